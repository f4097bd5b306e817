// Describes the libfabric driver to the plug-in registry: name, options and
// what it can do (query). Its library half (probe, create) is lf_entry.cpp
// (plugin_entry.hpp).
#include <algorithm>
#include <cstdlib>
#include <string>

#include "drivers/api/registry.hpp"
#include "drivers/libfabric/lf_options.hpp"

namespace evb {

namespace {

// LfDriver's capabilities before a provider is opened: most come from the
// provider (iov_limit, inject_size, FI_RMA, FI_MR_LOCAL, message order, a
// wait fd), so they hold the most it can be; whether a lost peer is survived
// depends on the provider too (survives_peer_loss() in lf_fabric.hpp, checked
// when the driver starts under on_failure exclude).
Capabilities query_libfabric(const Config& config) {
  const libfabric::LfOptions o = libfabric::parse_lf_options(&config);
  Capabilities c;
  c.max_segments = 0;  // the provider's iov_limit
  c.max_message = 1ull << 30;
  c.inline_size = 0;  // the provider's inject_size (none with inject: false)
  c.tag_bits = 32;
  c.rdma_write = true;
  c.write_preferred = true;  // the most: writes_beat_sends(provider) once it is chosen
  c.write_immediate = o.write_immediate != libfabric::ImmediateMode::emulated;
  c.registration_required = true;
  c.packed_key_size = 0;
  c.ordered_per_peer = true;
  c.zero_copy_send = true;
  c.can_block = true;
  c.alltoall = false;
  c.survives_peer_loss = true;
  c.descriptors_per_peer = 2;   // tcp;ofi_rxm: a connection, two while both sides connect
  c.shared_memory_path = true;  // the most: moves_by_memory_copy(provider) once it is chosen
  return c;
}

// ofi_rxm over tcp gives every rank one shared receive context of
// FI_OFI_RXM_MSG_RX_SIZE buffers (default 4096 of 16 KiB: 64 MiB), faulted in
// at its first connection: 64 ranks on one host touched 4 GiB and took 4.5 s
// to connect here, 0.9 s with 512 (docs/drivers/libfabric.md, "Start-up at
// scale"). Read once, when libfabric initialises its providers: so set here,
// before the probe's first fi_getinfo, and inherited by forked ranks.
void prepare_libfabric(const Config& config, int local_ranks) {
  if (std::getenv("FI_OFI_RXM_MSG_RX_SIZE")) return;  // the user's own
  size_t buffers = libfabric::parse_lf_options(&config).rxm_rx_buffers;
  if (buffers == 0) {
    if (local_ranks <= 1) return;  // the library's own default
    buffers = std::max<size_t>(256, 4096 / static_cast<size_t>(local_ranks));
  }
  ::setenv("FI_OFI_RXM_MSG_RX_SIZE", std::to_string(buffers).c_str(), 1);
}

}  // namespace

void evb_register_driver_libfabric(PluginRegistry& r) {
  DriverFactory f;
  f.name = "libfabric";
  f.summary =
      "libfabric RDM endpoints (tcp;ofi_rxm, shm, verbs, psm2, cxi, ...): tagged messages, "
      "RMA writes with immediate";
  f.options = libfabric::lf_option_specs();
  f.query = query_libfabric;
  f.prepare = prepare_libfabric;
  r.add_driver(std::move(f));
}

}  // namespace evb
