#pragma once
// Wire format of the rendezvous protocol (client <-> server over TCP).
//
// Every message is one frame: a 4-byte big-endian body length, then the body.
// The body starts with a one-byte MsgType; integers are big-endian, strings
// are a u32 length plus bytes, string lists a u32 count plus strings.
//
//   client -> server: Hello, Contrib, Abort, Goodbye
//   server -> client: Welcome (all ranks joined), Reject, Busy, Result, Fail, Bye
//
// Busy answers a connection the server will not read yet (more connections
// wait to identify themselves than ranks are still to join, plus a margin):
// the client closes and retries with backoff.
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace evb::boot {

constexpr uint32_t kMagic = 0x45564252;         // "EVBR"
constexpr uint16_t kVersion = 2;                // 2: Busy
constexpr uint32_t kMaxHelloFrame = 64 * 1024;  // before a client is known
constexpr uint32_t kMaxFrame = 1u << 30;        // 1 GiB per collective result

enum class MsgType : uint8_t {
  hello = 1,
  welcome = 2,
  reject = 3,
  contrib = 4,
  result = 5,
  fail = 6,
  abort = 7,
  goodbye = 8,
  bye = 9,
  busy = 10,
};

enum class Op : uint8_t { allgather = 1, gather = 2, barrier = 3 };
const char* op_name(Op op);

// Why a run failed, as told to every rank.
enum class FailKind : uint8_t { peer_lost = 1, aborted = 2, error = 3 };

struct Hello {
  uint32_t magic = kMagic;
  uint16_t version = kVersion;
  std::string token;
  int32_t rank = -1;
  int32_t size = 0;
  std::string hostname;
};

struct Contrib {
  uint64_t seq = 0;
  Op op = Op::barrier;
  std::string data;
};

struct Result {
  uint64_t seq = 0;
  std::vector<std::string> values;
};

struct Fail {
  FailKind kind = FailKind::error;
  int32_t rank = -1;  // the rank at fault, or -1
  std::string message;
};

class ProtocolError : public Error {
 public:
  using Error::Error;
};

// Encoders return a complete frame (length prefix included).
std::string encode_hello(const Hello& m);
std::string encode_welcome(const std::vector<std::string>& hostnames);
std::string encode_reject(const std::string& why);
std::string encode_busy(const std::string& why);
std::string encode_contrib(const Contrib& m);
std::string encode_result(const Result& m);
std::string encode_fail(const Fail& m);
std::string encode_abort(const std::string& why);
std::string encode_goodbye();
std::string encode_bye();

// Decoders take a frame body (after the length prefix) and throw
// ProtocolError when it is malformed.
MsgType body_type(const std::string& body);
Hello decode_hello(const std::string& body);
std::vector<std::string> decode_welcome(const std::string& body);
std::string decode_reject(const std::string& body);
std::string decode_busy(const std::string& body);
Contrib decode_contrib(const std::string& body);
Result decode_result(const std::string& body);
Fail decode_fail(const std::string& body);
std::string decode_abort(const std::string& body);

// Splits complete frames off the front of `buf`. Returns false when no full
// frame is buffered yet; throws ProtocolError for a length above `max_frame`.
bool take_frame(std::string* buf, uint32_t max_frame, std::string* body);

// Reads the 4-byte length prefix.
uint32_t frame_length(const char* prefix);

}  // namespace evb::boot
