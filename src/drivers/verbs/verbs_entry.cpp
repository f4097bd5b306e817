// The verbs driver's entry: probe and create (plugin_entry.hpp).
#include "core/error.hpp"
#include "drivers/api/plugin_entry.hpp"
#include "drivers/verbs/verbs_check.hpp"
#include "drivers/verbs/verbs_driver.hpp"
#include "drivers/verbs/verbs_options.hpp"
#include "drivers/verbs/verbs_probe.hpp"

namespace evb {
namespace {

std::unique_ptr<Driver> create_verbs(const DriverContext& context) {
  // Bad options are refused first, then a host without a device.
  const verbs::VerbsOptions options = verbs::parse_verbs_options(context.config);
  const DriverProbe probe = verbs::probe_verbs();
  if (!probe.can_run) throw ConfigError("driver 'verbs' cannot run here: " + probe.reason);
  return verbs::make_verbs_driver(context, options);
}

}  // namespace

const DriverEntry* evb_driver_entry_verbs() {
  static const DriverEntry entry{.probe = verbs::probe_verbs,
                                 .create = create_verbs,
                                 .check_options = verbs::check_verbs_options};
  return &entry;
}

}  // namespace evb
