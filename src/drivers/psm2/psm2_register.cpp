// Registers the psm2 driver with the plug-in registry.
#include "core/error.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/psm2/psm2_driver.hpp"
#include "drivers/psm2/psm2_library.hpp"
#include "drivers/psm2/psm2_options.hpp"

namespace evb {

void evb_register_driver_psm2(PluginRegistry& r) {
  DriverFactory f;
  f.name = "psm2";
  f.summary = "Omni-Path PSM2 (libpsm2): MQ tagged messages over hfi1 or shared memory";
  f.options = psm2::psm2_option_specs();
  f.max_segments = psm2::Psm2Driver::kMaxSegments;
  f.may_rdma_write = false;
  f.probe = [] { return psm2::probe_psm2(); };
  f.create = [](const DriverContext& context) -> std::unique_ptr<Driver> {
    const psm2::Psm2Options options = psm2::parse_psm2_options(context.config);
    const DriverProbe probe = psm2::probe_psm2();
    if (!probe.can_run) throw ConfigError("driver 'psm2' cannot run here: " + probe.reason);
    return std::make_unique<psm2::Psm2Driver>(context, options);
  };
  r.add_driver(std::move(f));
}

}  // namespace evb
