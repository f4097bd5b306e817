#pragma once
// Which transport Open MPI chose for this job, read from the library once it
// is initialised: the selected PML ("ob1", "ucx", "cm") and, under ob1, the
// BTL that carries the traffic between evbench ranks ("vader", "tcp").
// docs/drivers/mpi.md "Variant names" says how it is decided.
#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace evb::mpi {

struct MpiTransport {
  std::string pml;                // empty when it could not be read
  std::vector<std::string> btls;  // initialised BTL modules, "self" left out
  std::string how;                // where pml/btls came from ("library", "mca parameters")
};

// Collective-free; call after MPI_Init.
MpiTransport detect_transport();

// The variant name: "mpi/vader", "mpi/tcp", "mpi/ucx", "mpi/ob1" (no BTL
// known), or "mpi" when nothing could be read (another MPI, the SMPI build).
// `one_host`: every rank of the job shares this node.
std::string transport_variant(const MpiTransport& t, bool one_host);

// Capabilities::shared_memory_path: ob1 over vader (or sm) with every rank
// on this host, where ob1 carries every message between ranks by memory
// copies. Under pml ucx, UCX's own choice is not read: false.
bool through_shared_memory(const MpiTransport& t, bool one_host);

// Without initialising MPI (`evbench drivers`): the variants whose Open MPI
// components are installed (mca_btl_vader, mca_btl_tcp, mca_pml_ucx next to
// libmpi), and those that are not, with the reason. Empty under another MPI.
struct InstalledVariants {
  std::vector<std::string> usable;
  std::vector<std::pair<std::string, std::string>> not_here;  // name, reason
};
InstalledVariants installed_variants();

}  // namespace evb::mpi
