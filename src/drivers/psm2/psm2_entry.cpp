// The psm2 driver's entry: probe and create (plugin_entry.hpp).
#include "core/error.hpp"
#include "drivers/api/plugin_entry.hpp"
#include "drivers/psm2/psm2_driver.hpp"
#include "drivers/psm2/psm2_library.hpp"
#include "drivers/psm2/psm2_options.hpp"

namespace evb {
namespace {

std::unique_ptr<Driver> create_psm2(const DriverContext& context) {
  const psm2::Psm2Options options = psm2::parse_psm2_options(context.config);
  const DriverProbe probe = psm2::probe_psm2();
  if (!probe.can_run) throw ConfigError("driver 'psm2' cannot run here: " + probe.reason);
  return std::make_unique<psm2::Psm2Driver>(context, options);
}

}  // namespace

const DriverEntry* evb_driver_entry_psm2() {
  static const DriverEntry entry{.probe = psm2::probe_psm2, .create = create_psm2};
  return &entry;
}

}  // namespace evb
