// Describes the psm2 driver to the plug-in registry: name, options, limits.
// Its library half (probe, create) is psm2_entry.cpp (plugin_entry.hpp).
#include "drivers/api/registry.hpp"
#include "drivers/psm2/psm2_driver.hpp"
#include "drivers/psm2/psm2_options.hpp"

namespace evb {

void evb_register_driver_psm2(PluginRegistry& r) {
  DriverFactory f;
  f.name = "psm2";
  f.summary = "Omni-Path PSM2 (libpsm2): MQ tagged messages over hfi1 or shared memory";
  f.options = psm2::psm2_option_specs();
  f.max_segments = psm2::Psm2Driver::kMaxSegments;
  f.may_rdma_write = false;
  r.add_driver(std::move(f));
}

}  // namespace evb
