#pragma once
// Per-process limits that a run's size meets before its first byte: the
// open-file limit (RLIMIT_NOFILE) against the descriptors a rank will hold,
// and the kernel's cap on listen backlogs (net.core.somaxconn).
//
// A rank's need is counted from what its driver says it holds per peer
// (Capabilities::descriptors_per_peer) and a fixed part for the process;
// ensure_open_files() raises the soft limit to the need where the hard limit
// allows, else refuses the run before start with one line naming the limit,
// the need and the fix.
#include <cstdint>
#include <optional>
#include <string>

namespace evb {

struct FileLimit {
  uint64_t soft = 0;
  uint64_t hard = 0;  // UINT64_MAX: unlimited
};

// What a process of the run will hold open, and what the figure is made of
// ("255 peers x 2 (driver tcp) + 64 (the process)").
struct FileNeed {
  uint64_t total = 0;
  std::string breakdown;
};

// Descriptors a process keeps for itself besides its peers: standard
// streams, the rendezvous connection, epoll and event descriptors, the
// monitor's connections, shared-memory files.
constexpr uint64_t kFixedDescriptors = 64;

// `peers` x `per_peer` (the driver's own figure) + kFixedDescriptors, plus
// `served` connections the process serves (the rendezvous: one per rank).
FileNeed descriptor_need(int peers, uint64_t per_peer, const std::string& driver, int served);

std::optional<FileLimit> open_file_limit();

// The one-line refusal for `need` under `limit` ("" when it fits the hard
// limit); `who` names the process ("this rank", "the launcher").
std::string open_files_shortfall(const FileNeed& need, const FileLimit& limit,
                                 const std::string& who);

// Raises RLIMIT_NOFILE's soft limit to need.total when it is lower and the
// hard limit allows; throws ConfigError with open_files_shortfall()'s
// message when it does not. Does nothing when the limit cannot be read.
void ensure_open_files(const FileNeed& need, const std::string& who);

// /proc/sys/net/core/somaxconn (the cap on every listen backlog), or -1.
int kernel_somaxconn();

}  // namespace evb
