// Defaults of the optional Driver operations, and the set-up refusal helper.
// Protocols check capabilities before using an optional operation, so reaching
// one of these defaults is a programming error: it throws instead of doing
// nothing.
#include "drivers/api/driver.hpp"

#include "core/error.hpp"

namespace evb {

void require_capability(const Driver& driver, bool has, const std::string& capability,
                        const std::string& needed_for) {
  if (!has)
    throw ConfigError("driver '" + driver.name() + "' has no " + capability + ", needed for " +
                      needed_for);
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
