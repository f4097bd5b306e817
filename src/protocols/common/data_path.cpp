#include "protocols/common/data_path.hpp"

namespace evb {

DataPath resolve_data_path(const Config& config, const Driver& driver) {
  const Capabilities& caps = driver.capabilities();
  const bool can = caps.rdma_write;
  switch (config.data_path) {
    case DataPath::automatic:
      return can && caps.write_preferred ? DataPath::write : DataPath::send;
    case DataPath::write:
      require_capability(driver, can, "rdma_write", "data_path: write");
      return DataPath::write;
    default:
      return DataPath::send;
  }
}

}  // namespace evb
