// The ucx driver's entry: probe and create (plugin_entry.hpp).
#include "drivers/api/plugin_entry.hpp"
#include "drivers/ucx/ucx_check.hpp"
#include "drivers/ucx/ucx_driver.hpp"
#include "drivers/ucx/ucx_options.hpp"
#include "drivers/ucx/ucx_probe.hpp"

namespace evb {
namespace {

std::unique_ptr<Driver> create_ucx(const DriverContext& context) {
  return ucx::make_ucx_driver(context, ucx::parse_ucx_options(context.config));
}

}  // namespace

const DriverEntry* evb_driver_entry_ucx() {
  static const DriverEntry entry{
      .probe = ucx::probe_ucx, .create = create_ucx, .check_options = ucx::check_ucx_options};
  return &entry;
}

}  // namespace evb
