#pragma once
// Memory registration under the domain's mr_mode rules, packed keys and the
// remote keys rdma_write targets.
//
// Packed key layout (little-endian, kKeyHeader + key length bytes):
//   0  u8   version (kKeyVersion)
//   1  u8   flags: bit 0 raw key (FI_MR_RAW), bit 1 virtual addressing (FI_MR_VIRT_ADDR)
//   2  u16  key length in bytes (8 unless raw)
//   4  u32  reserved, 0
//   8  u64  base: the region's address when addressed virtually (or the raw
//           base address), else 0 (offsets)
//   16 u64  region size in bytes
//   24 ...  the key: fi_mr_key() as u64, or fi_mr_raw_attr() bytes
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "drivers/api/driver.hpp"
#include "drivers/libfabric/lf_fabric.hpp"

namespace evb::libfabric {

constexpr uint8_t kKeyVersion = 1;
constexpr size_t kKeyHeader = 24;
constexpr size_t kMaxRawKey = 256;

// The fields of a packed key.
struct KeyRecord {
  bool raw = false;
  bool virt_addr = false;
  uint64_t base = 0;
  uint64_t size = 0;
  std::vector<uint8_t> key;  // 8 bytes (u64, little-endian) unless raw
};

std::vector<std::byte> pack_key(const KeyRecord& record);
// Parses and validates `bytes`; returns "" or what is wrong with them.
std::string parse_key(std::span<const std::byte> bytes, KeyRecord* out);

// A region registered with the domain (fi_mr_reg); descriptor() is its
// fi_mr_desc, packed_key() what a peer needs to write into it.
class LfRegistration final : public Registration {
 public:
  LfRegistration(void* base, size_t size, Fid<fid_mr> mr, std::vector<std::byte> packed);
  fid_mr* mr() const { return mr_.get(); }

 private:
  Fid<fid_mr> mr_;
};

// A peer's region as rdma_write needs it: the target address of offset 0 and
// the 64-bit key (mapped with fi_mr_map_raw for raw keys, unmapped again by
// the destructor).
class LfRemoteKey final : public RemoteKey {
 public:
  LfRemoteKey(PeerId peer, size_t size, uint64_t base, uint64_t key, fid_domain* mapped_in);
  ~LfRemoteKey() override;
  uint64_t address(uint64_t offset) const { return base_ + offset; }
  uint64_t key() const { return key_; }

 private:
  uint64_t base_;
  uint64_t key_;
  fid_domain* mapped_in_;  // non-null: fi_mr_unmap_key on destruction
};

// Registers memory and packs / unpacks keys following one domain's mr_mode
// (FI_MR_LOCAL, FI_MR_VIRT_ADDR, FI_MR_PROV_KEY, FI_MR_ENDPOINT, FI_MR_RAW).
class MemoryRegistrar {
 public:
  MemoryRegistrar(fid_domain* domain, fid_ep* ep, const fi_info& info);

  // Throws evb::Error prefixed with `context` when the provider refuses.
  std::unique_ptr<LfRegistration> register_memory(void* base, size_t size,
                                                  const std::string& context);
  // Throws evb::Error prefixed with `context` (which names the peer) on
  // malformed bytes or a key of another kind of domain.
  std::unique_ptr<LfRemoteKey> unpack(PeerId peer, std::span<const std::byte> bytes,
                                      const std::string& context) const;

  size_t packed_key_size() const { return kKeyHeader + (raw() ? key_size_ : 8); }
  bool local() const { return (mode_ & FI_MR_LOCAL) != 0; }
  bool virt_addr() const { return (mode_ & FI_MR_VIRT_ADDR) != 0; }
  bool raw() const { return (mode_ & FI_MR_RAW) != 0; }
  bool prov_key() const { return (mode_ & FI_MR_PROV_KEY) != 0; }
  bool endpoint_bound() const { return (mode_ & FI_MR_ENDPOINT) != 0; }
  int mode() const { return mode_; }
  // The endpoint FI_MR_ENDPOINT regions bind to; null after shutdown.
  void set_endpoint(fid_ep* ep) { ep_ = ep; }

 private:
  fid_domain* domain_;
  fid_ep* ep_;
  int mode_;
  size_t key_size_;
  uint64_t next_key_ = 1;
};

}  // namespace evb::libfabric
