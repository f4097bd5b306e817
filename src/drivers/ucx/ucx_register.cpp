// Registers the ucx driver with the plug-in registry.
#include "drivers/api/registry.hpp"
#include "drivers/ucx/ucx_driver.hpp"
#include "drivers/ucx/ucx_options.hpp"
#include "drivers/ucx/ucx_probe.hpp"

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
  f.probe = [] { return ucx::probe_ucx(); };
  f.create = [](const DriverContext& context) -> std::unique_ptr<Driver> {
    return ucx::make_ucx_driver(context, ucx::parse_ucx_options(context.config));
  };
  r.add_driver(std::move(f));
}

}  // namespace evb
