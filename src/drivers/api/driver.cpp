// Defaults of the optional Driver operations (allocate_memory, and the ones
// that throw), and the set-up refusal helper.
// Protocols check capabilities before using an optional operation, so reaching
// one of these defaults is a programming error: it throws instead of doing
// nothing.
#include "drivers/api/driver.hpp"

#include <utility>

#include "core/aligned_buffer.hpp"
#include "core/error.hpp"

namespace evb {

namespace {

// allocate_memory()'s default: page-aligned memory, owned together with the
// registration the driver made of it (released first).
class OwnedRegistration final : public Registration {
 public:
  OwnedRegistration(AlignedBuffer memory, RegistrationPtr inner)
      : Registration(memory.data(), memory.size()),
        memory_(std::move(memory)),
        inner_(std::move(inner)) {
    packed_key_ = inner_->packed_key();
    descriptor_ = inner_->descriptor();
  }

 private:
  AlignedBuffer memory_;
  RegistrationPtr inner_;  // declared last: deregistered before the memory goes
};

}  // namespace

void require_capability(const Driver& driver, bool has, const std::string& capability,
                        const std::string& needed_for) {
  if (!has)
    throw ConfigError("driver '" + driver.name() + "' has no " + capability + ", needed for " +
                      needed_for);
}

RegistrationPtr Driver::allocate_memory(size_t size, PageSize pages) {
  if (size == 0) throw Error("driver '" + name() + "': allocate_memory of 0 bytes");
  AlignedBuffer memory(size, pages);
  RegistrationPtr inner = register_memory(memory.data(), memory.size());
  return std::make_unique<OwnedRegistration>(std::move(memory), std::move(inner));
}

RemoteKeyPtr Driver::unpack_key(PeerId, std::span<const std::byte>) {
  throw Error("driver '" + name() + "' has no rdma_write: unpack_key() is not available");
}

void Driver::rdma_write(PeerId, std::span<const Segment>, const RemoteKey&, uint64_t,
                        std::optional<uint32_t>, uint64_t) {
  throw Error("driver '" + name() + "' has no rdma_write");
}

void Driver::alltoall(const void*, void*, size_t) {
  throw Error("driver '" + name() + "' has no alltoall");
}

}  // namespace evb
