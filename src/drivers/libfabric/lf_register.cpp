// Describes the libfabric driver to the plug-in registry: name, options,
// limits. Its library half (probe, create) is lf_entry.cpp (plugin_entry.hpp).
#include "drivers/api/registry.hpp"
#include "drivers/libfabric/lf_options.hpp"

namespace evb {

void evb_register_driver_libfabric(PluginRegistry& r) {
  DriverFactory f;
  f.name = "libfabric";
  f.summary =
      "libfabric RDM endpoints (tcp;ofi_rxm, shm, verbs, psm2, cxi, ...): tagged messages, "
      "RMA writes with immediate";
  f.options = libfabric::lf_option_specs();
  // A lost peer: peer_event + failed completions, over the ofi_rxm providers;
  // the others are refused under on_failure exclude when the driver starts
  // (survives_peer_loss() in lf_fabric.hpp).
  f.survives_peer_loss = true;
  f.may_rdma_write = true;  // max_segments depends on the provider: checked at set-up
  r.add_driver(std::move(f));
}

}  // namespace evb
