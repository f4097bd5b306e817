#pragma once
// Bytes on the wire of the tcp driver: the connection handshake and the frame
// header in front of every message. Plain structs copied with memcpy; the
// driver only runs between little-endian hosts (checked at compile time).
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace evb::tcp {

static_assert(std::endian::native == std::endian::little, "the tcp wire format is little-endian");

constexpr uint32_t kHandshakeMagic = 0x48425645;  // "EVBH"
constexpr uint32_t kFrameMagic = 0x46425645;      // "EVBF"
constexpr uint16_t kProtocolVersion = 1;

enum class HandshakeKind : uint16_t { hello = 1, accept = 2, reject = 3 };

// Why an acceptor refused a hello (carried in Handshake::reason of a reject).
enum class RefuseReason : uint32_t {
  none = 0,
  bad_magic = 1,
  bad_version = 2,
  run_id_mismatch = 3,
  not_a_peer = 4,
  wrong_target = 5,
  duplicate = 6,
};
const char* to_string(RefuseReason reason);

// Sent by the connecting rank (hello) and answered by the acceptor.
struct Handshake {
  uint32_t magic = kHandshakeMagic;
  uint16_t version = kProtocolVersion;
  uint16_t kind = static_cast<uint16_t>(HandshakeKind::hello);
  uint64_t run_id = 0;
  int32_t from_rank = -1;
  int32_t to_rank = -1;
  uint32_t reason = 0;  // RefuseReason in a reject
  uint32_t reserved = 0;
};
static_assert(sizeof(Handshake) == 32);

enum class FrameKind : uint16_t { data = 1, bye = 2 };

// In front of every message; `length` payload bytes follow.
struct FrameHeader {
  uint32_t magic = kFrameMagic;
  uint16_t kind = static_cast<uint16_t>(FrameKind::data);
  uint16_t flags = 0;
  uint32_t tag = 0;
  uint32_t reserved = 0;
  uint64_t length = 0;
};
static_assert(sizeof(FrameHeader) == 24);

// Identifies one run: a hash of every rank's listening address. All ranks of a
// run share it; a stale process of another run (other ports) does not.
uint64_t run_id_of(const std::vector<std::string>& addresses);

// A rank's address is "host:port#secret": the secret (random per process,
// exchanged only through the bootstrap) enters the run id, so a client that
// knows every host:port still cannot compute it. endpoint_of() drops it for
// connecting and for messages.
std::string endpoint_of(const std::string& address);

}  // namespace evb::tcp
