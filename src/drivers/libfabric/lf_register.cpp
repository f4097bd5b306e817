// Registers the libfabric driver with the plug-in registry.
#include "drivers/api/registry.hpp"
#include "drivers/libfabric/lf_driver.hpp"
#include "drivers/libfabric/lf_options.hpp"
#include "drivers/libfabric/lf_probe.hpp"

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
  f.probe = [] { return libfabric::probe_libfabric(); };
  f.create = [](const DriverContext& context) -> std::unique_ptr<Driver> {
    return libfabric::make_lf_driver(context, libfabric::parse_lf_options(context.config));
  };
  r.add_driver(std::move(f));
}

}  // namespace evb
