#include "drivers/verbs/verbs_memory.hpp"

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace evb::verbs {

VerbsRegistration::VerbsRegistration(ibv_pd* pd, void* base, size_t size, const std::string& prefix)
    : Registration(base, size) {
  if (!base || size == 0)
    throw Error(prefix + ": register_memory needs a non-empty range (got " + std::to_string(size) +
                " bytes)");
  mr_ = ibv_reg_mr(pd, base, size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  if (!mr_)
    throw Error(prefix + ": ibv_reg_mr of " + std::to_string(size) +
                " bytes: " + std::strerror(errno) +
                " (locked-memory limit? `ulimit -l` must be unlimited or large enough)");
  keys_ = MemoryKeys{mr_->lkey, mr_->rkey};
  descriptor_ = &keys_;
  const std::string packed =
      pack_region(RemoteRegion{reinterpret_cast<uintptr_t>(base), mr_->rkey, size});
  packed_key_.resize(packed.size());
  std::memcpy(packed_key_.data(), packed.data(), packed.size());
}

VerbsRegistration::~VerbsRegistration() {
  if (mr_) ibv_dereg_mr(mr_);
}

}  // namespace evb::verbs
