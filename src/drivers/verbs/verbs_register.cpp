// Describes the verbs driver to the plug-in registry: name, options and what
// it can do (query). Its library half (probe, create) is verbs_entry.cpp
// (plugin_entry.hpp).
#include "drivers/api/registry.hpp"
#include "drivers/verbs/verbs_driver.hpp"
#include "drivers/verbs/verbs_options.hpp"
#include "drivers/verbs/verbs_work.hpp"

namespace evb {

namespace {

// VerbsDriver's capabilities before a device is opened: max_segments is the
// device's max_sge (0: not known), max_message at most the tagged limit.
Capabilities query_verbs(const Config&) {
  Capabilities c;
  c.max_segments = 0;
  c.max_message = verbs::kMaxTaggedMessage;
  c.inline_size = 0;
  c.tag_bits = 32;
  c.rdma_write = true;
  c.write_preferred = true;
  c.write_immediate = true;
  c.registration_required = true;
  c.packed_key_size = verbs::kPackedRegionSize;
  c.ordered_per_peer = true;
  c.zero_copy_send = false;
  c.can_block = true;
  c.alltoall = false;
  c.survives_peer_loss = false;  // not declared until its failure path has met hardware
  c.descriptors_per_peer = 0;    // queue pairs, not descriptors
  return c;
}

}  // namespace

void evb_register_driver_verbs(PluginRegistry& r) {
  DriverFactory f;
  f.name = "verbs";
  f.summary =
      "InfiniBand / RoCE verbs (libibverbs): reliable-connected queue pairs, credit-based "
      "commands, RDMA WRITE WITH IMMEDIATE into BU windows";
  f.options = verbs::verbs_option_specs();
  f.query = query_verbs;
  r.add_driver(std::move(f));
}

}  // namespace evb
