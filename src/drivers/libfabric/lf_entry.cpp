// The libfabric driver's entry: probe and create (plugin_entry.hpp).
#include "drivers/api/plugin_entry.hpp"
#include "drivers/libfabric/lf_check.hpp"
#include "drivers/libfabric/lf_driver.hpp"
#include "drivers/libfabric/lf_options.hpp"
#include "drivers/libfabric/lf_probe.hpp"

namespace evb {
namespace {

std::unique_ptr<Driver> create_libfabric(const DriverContext& context) {
  return libfabric::make_lf_driver(context, libfabric::parse_lf_options(context.config));
}

}  // namespace

const DriverEntry* evb_driver_entry_libfabric() {
  static const DriverEntry entry{.probe = libfabric::probe_libfabric,
                                 .create = create_libfabric,
                                 .check_options = libfabric::check_libfabric_options};
  return &entry;
}

}  // namespace evb
