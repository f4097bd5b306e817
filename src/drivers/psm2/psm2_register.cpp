// Describes the psm2 driver to the plug-in registry: name, options and what
// it can do (query). Its library half (probe, create) is psm2_entry.cpp
// (plugin_entry.hpp).
#include "drivers/api/registry.hpp"
#include "drivers/psm2/psm2_driver.hpp"
#include "drivers/psm2/psm2_options.hpp"

namespace evb {

namespace {

// Psm2Driver::capabilities(), which no option changes.
Capabilities query_psm2(const Config&) {
  Capabilities c;
  c.max_segments = psm2::Psm2Driver::kMaxSegments;
  c.max_message = 1ull << 30;
  c.tag_bits = 32;
  c.ordered_per_peer = true;
  c.zero_copy_send = false;
  c.can_block = false;
  c.rdma_write = false;
  c.survives_peer_loss = false;  // runs under mpirun: a dead rank ends the job
  c.descriptors_per_peer = 0;    // endpoints in the HFI context or shared memory
  return c;
}

}  // namespace

void evb_register_driver_psm2(PluginRegistry& r) {
  DriverFactory f;
  f.name = "psm2";
  f.summary = "Omni-Path PSM2 (libpsm2): MQ tagged messages over hfi1 or shared memory";
  f.options = psm2::psm2_option_specs();
  f.query = query_psm2;
  r.add_driver(std::move(f));
}

}  // namespace evb
