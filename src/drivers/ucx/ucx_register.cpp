// Describes the ucx driver to the plug-in registry: name, options and what
// it can do (query). Its library half (probe, create) is ucx_entry.cpp
// (plugin_entry.hpp).
#include "core/error.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/ucx/ucx_driver.hpp"
#include "drivers/ucx/ucx_options.hpp"

namespace evb {

namespace {

// UcxDriver's capabilities before UCX runs: the packed key size comes from
// UCX (0: not known), can_block from the worker's event fd (the most: true).
// A peer's death is survived only in peer-failure mode (error_handling peer;
// a bad option value is left to the option check, which names it).
Capabilities query_ucx(const Config& config) {
  bool peer_failure = true;
  try {
    peer_failure = ucx::parse_ucx_options(&config).error_handling == ucx::ErrorHandling::peer;
  } catch (const ConfigError&) {
  }
  Capabilities c;
  c.max_segments = ucx::UcxDriver::kMaxSegments;
  c.max_message = 1ull << 30;
  c.inline_size = 0;
  c.tag_bits = 32;
  c.rdma_write = true;
  c.write_preferred = true;   // the most: puts_beat_sends() decides once UCX runs
  c.write_immediate = false;  // emulated: flush, then a notify message
  c.registration_required = false;
  c.packed_key_size = 0;
  c.ordered_per_peer = true;
  c.zero_copy_send = true;
  c.can_block = true;
  c.alltoall = false;
  c.survives_peer_loss = peer_failure;  // peer_event + failed completions
  c.descriptors_per_peer = 2;           // tcp: a connection per endpoint, two while both connect
  c.shared_memory_path = true;          // the most: decided once UCX runs (shares_memory)
  return c;
}

}  // namespace

void evb_register_driver_ucx(PluginRegistry& r) {
  DriverFactory f;
  f.name = "ucx";
  f.summary =
      "UCX (UCP tag matching, puts, shared memory, tcp, InfiniBand rc/ud/dc): tagged messages, "
      "one-sided puts with an emulated immediate";
  f.options = ucx::ucx_option_specs();
  f.query = query_ucx;
  r.add_driver(std::move(f));
}

}  // namespace evb
