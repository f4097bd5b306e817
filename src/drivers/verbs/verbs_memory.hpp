#pragma once
// Memory for the verbs driver: a registration is one memory region
// (ibv_reg_mr) of the caller's range, local and remote write allowed; its
// descriptor() points at the region's MemoryKeys and its packed key is
// pack_region() of {address, size, rkey}. A remote key is a peer's packed
// key, checked and unpacked (verbs_work.hpp).
#include <infiniband/verbs.h>

#include <string>

#include "drivers/api/driver.hpp"
#include "drivers/verbs/verbs_work.hpp"

namespace evb::verbs {

class VerbsRegistration final : public Registration {
 public:
  // Throws evb::Error (with `prefix`) when the HCA refuses the range.
  VerbsRegistration(ibv_pd* pd, void* base, size_t size, const std::string& prefix);
  ~VerbsRegistration() override;
  const MemoryKeys& keys() const { return keys_; }

 private:
  ibv_mr* mr_ = nullptr;
  MemoryKeys keys_;
};

class VerbsRemoteKey final : public RemoteKey {
 public:
  VerbsRemoteKey(PeerId peer, const RemoteRegion& region)
      : RemoteKey(peer, region.size), region_(region) {}
  const RemoteRegion& region() const { return region_; }

 private:
  RemoteRegion region_;
};

}  // namespace evb::verbs
