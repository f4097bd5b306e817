// Describes the ucx driver to the plug-in registry: name, options, limits.
// Its library half (probe, create) is ucx_entry.cpp (plugin_entry.hpp).
#include "drivers/api/registry.hpp"
#include "drivers/ucx/ucx_driver.hpp"
#include "drivers/ucx/ucx_options.hpp"

namespace evb {

void evb_register_driver_ucx(PluginRegistry& r) {
  DriverFactory f;
  f.name = "ucx";
  f.survives_peer_loss = true;  // a lost peer: peer_event + failed completions
  f.summary =
      "UCX (UCP tag matching, puts, shared memory, tcp, InfiniBand rc/ud/dc): tagged messages, "
      "one-sided puts with an emulated immediate";
  f.options = ucx::ucx_option_specs();
  f.max_segments = ucx::UcxDriver::kMaxSegments;
  f.may_rdma_write = true;
  r.add_driver(std::move(f));
}

}  // namespace evb
