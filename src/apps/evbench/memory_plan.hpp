#pragma once
// The memory check before a run: what the ranks placed on this host will
// allocate (the protocol's memory needs: rings, windows, pools) against what the host
// has available (MemAvailable of /proc/meminfo). A configuration that cannot
// fit is refused before any rank starts, naming the keys that size the
// largest part, e.g.
//   ru_buffer: 64.3 GiB needed on this host (4 ranks, local bootstrap):
//   4 × 16 GiB RU ring + ...;
//   22.9 GiB available (MemAvailable of /proc/meminfo); lower ru_buffer or nodes
// page_size huge asks for transparent huge pages (madvise), which come out
// of the same memory, so MemAvailable is the figure for both page sizes.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/topology.hpp"
#include "protocols/api/memory_need.hpp"

namespace evb {

// What one rank with given roles allocates: the protocol's memory_needs
// (ProtocolFactory), so the check counts what its units will take.
using MemoryNeeds = std::function<std::vector<MemoryNeed>(const Config&, const RankRoles&)>;

// The ranks that will run on this host and how that was decided.
struct HostShare {
  std::vector<int> ranks;
  // "" when every rank runs here (local bootstrap); else what the share is,
  // e.g. "this host's share (ranks 6..7 of 8; the other ranks' hosts are not checked)".
  std::string scope;
};

// Environment lookup (::getenv by default; tests pass their own).
using EnvLookup = std::function<const char*(const char*)>;

// local bootstrap: every rank. env/mpi: the launcher's local ranks when it
// says (OMPI_COMM_WORLD_LOCAL_RANK/_SIZE, MPI_LOCALRANKID/MPI_LOCALNRANKS),
// else the ranks of this rank's node per layout (EVBENCH_RANK, SLURM_PROCID,
// OMPI_COMM_WORLD_RANK, PMI_RANK), else (no launcher: `validate` on a login
// node) the node needing the most.
HostShare ranks_on_this_host(const Config& config, const Topology& topo, const EnvLookup& env,
                             const MemoryNeeds& needs);

// The memory of `ranks`, by part.
struct HostNeed {
  struct Part {
    std::string what, keys;
    uint64_t total = 0;
    uint64_t each = 0;  // bytes of one when all are the same size, else 0
    int count = 0;
  };
  std::vector<Part> parts;  // largest first
  uint64_t total = 0;
};
HostNeed host_memory_need(const Config& config, const Topology& topo, const std::vector<int>& ranks,
                          const MemoryNeeds& needs);

// MemAvailable of /proc/meminfo text, in bytes; nullopt when absent.
std::optional<uint64_t> mem_available_bytes(const std::string& meminfo);

// "" when `need` fits in `available`; else the one-line message above
// (`nodes` is among the keys to lower when every rank runs here).
std::string memory_shortfall(const HostNeed& need, uint64_t available, const HostShare& share);

// "1.5 GiB", "64.3 GiB", "512 MiB": one decimal below 100 of a unit, none
// when it would be 0.
std::string human_bytes(uint64_t bytes);

// Throws ConfigError with memory_shortfall()'s message; does nothing when
// /proc/meminfo cannot be read.
void check_host_memory(const Config& config, const Topology& topo, const MemoryNeeds& needs);

}  // namespace evb
