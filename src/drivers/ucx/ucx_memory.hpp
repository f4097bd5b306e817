#pragma once
// Memory for the ucx driver: a registration is one ucp_mem_map of the
// caller's range (its memh is the Registration's descriptor) plus the packed
// key peers write with; a remote key is the peer's packed rkey unpacked
// against the endpoint to that peer.
//
// Packed key bytes, little-endian:
//   0 u32 magic "EVUK"   4 u32 rkey length n   8 u64 region base
//   16 u64 region size   24 n bytes of ucp_rkey_pack output
#include <ucp/api/ucp.h>

#include <cstdint>
#include <span>
#include <string>

#include "drivers/api/driver.hpp"

namespace evb::ucx {

constexpr uint32_t kKeyMagic = 0x4B555645u;  // "EVUK"
constexpr size_t kKeyHeader = 24;

class UcxRegistration final : public Registration {
 public:
  // Maps [base, base+size); with base == nullptr, UCX allocates the memory
  // (UCP_MEM_MAP_ALLOCATE: shared-memory segments peers on this host attach
  // to, so their puts are plain copies). Throws evb::Error (with `prefix`).
  UcxRegistration(ucp_context_h context, void* base, size_t size, const std::string& prefix);
  ~UcxRegistration() override;
  ucp_mem_h memh() const { return static_cast<ucp_mem_h>(descriptor_); }

 private:
  ucp_context_h context_;
};

// What a packed key says, before the rkey is unpacked.
struct KeyRecord {
  uint64_t base = 0;
  uint64_t size = 0;
  std::span<const std::byte> rkey;
};

// Empty string when `bytes` is a well-formed packed key (then *out is set),
// else what is wrong with it.
std::string parse_key(std::span<const std::byte> bytes, KeyRecord* out);

class UcxRemoteKey final : public RemoteKey {
 public:
  UcxRemoteKey(PeerId peer, const KeyRecord& record, ucp_rkey_h rkey)
      : RemoteKey(peer, record.size), base_(record.base), rkey_(rkey) {}
  ~UcxRemoteKey() override { ucp_rkey_destroy(rkey_); }
  uint64_t base() const { return base_; }
  ucp_rkey_h rkey() const { return rkey_; }

 private:
  uint64_t base_;
  ucp_rkey_h rkey_;
};

}  // namespace evb::ucx
