// Describes the mpi driver to the plug-in registry: name, options and what
// it can do (query). Its library half (probe, create) is mpi_entry.cpp
// (plugin_entry.hpp).
#include "drivers/api/registry.hpp"
#include "drivers/mpi/mpi_driver.hpp"

namespace evb {

namespace {

// MpiDriver::capabilities() with these options; tag_bits is the most MPI's
// MPI_TAG_UB may grant (known once MPI runs).
Capabilities query_mpi(const Config& config) {
  const mpi::MpiOptions o = mpi::MpiOptions::from(&config);
  Capabilities caps;
  caps.rdma_write = false;
  caps.ordered_per_peer = true;
  caps.zero_copy_send = true;
  caps.can_block = o.wait == mpi::WaitMode::waitany;
  caps.max_message = 1ull << 30;
  caps.max_segments = mpi::MpiDriver::kMaxSegments;
  caps.tag_bits = 32;
  caps.alltoall = true;
  caps.survives_peer_loss = false;  // no ULFM: a dead rank aborts the job
  caps.descriptors_per_peer = 2;    // Open MPI's tcp BTL: its sockets to the peer
  caps.shared_memory_path = true;   // the most: vader on one host, known once MPI runs
  return caps;
}

}  // namespace

void evb_register_driver_mpi(PluginRegistry& registry) {
  registry.add_driver(DriverFactory{
      .name = "mpi",
      .summary = "MPI non-blocking point-to-point (Isend/Issend/Irecv, Testsome)",
      .options = mpi::mpi_option_keys(),
      .query = query_mpi,
  });
}

}  // namespace evb
