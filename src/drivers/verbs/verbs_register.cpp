// Registers the verbs driver with the plug-in registry.
#include "core/error.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/verbs/verbs_driver.hpp"
#include "drivers/verbs/verbs_options.hpp"
#include "drivers/verbs/verbs_probe.hpp"

namespace evb {

void evb_register_driver_verbs(PluginRegistry& r) {
  DriverFactory f;
  f.name = "verbs";
  f.summary =
      "InfiniBand / RoCE verbs (libibverbs): reliable-connected queue pairs, credit-based "
      "commands, RDMA WRITE WITH IMMEDIATE into BU windows";
  f.options = verbs::verbs_option_specs();
  f.may_rdma_write = true;
  f.probe = [] { return verbs::probe_verbs(); };
  f.create = [](const DriverContext& context) -> std::unique_ptr<Driver> {
    // Bad options are refused first, then a host without a device.
    const verbs::VerbsOptions options = verbs::parse_verbs_options(context.config);
    const DriverProbe probe = verbs::probe_verbs();
    if (!probe.can_run) throw ConfigError("driver 'verbs' cannot run here: " + probe.reason);
    return verbs::make_verbs_driver(context, options);
  };
  r.add_driver(std::move(f));
}

}  // namespace evb
