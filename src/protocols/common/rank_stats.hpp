#pragma once
// What one rank measured, gathered to rank 0 at the end of a run: the part
// every protocol's rank has (who it was, where it ran, its memory, start-up
// and host load) and the protocol's own part, which only that protocol
// reads (EventBuildingStats, protocols/event_building/event_building_stats.hpp;
// MicrobenchStats, protocols/microbench/microbench_stats.hpp).
//
// Times are relative to the rank's start of the data phase (t0, right after
// the start barrier). "Window" means after warm-up and, for deadline runs,
// before the deadline; see docs/METRICS.md.
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_load.hpp"
#include "core/lifecycle.hpp"

namespace evb {

// Each member has a line in FieldTable<RankStats> (stats_fields.hpp): the
// members without one do not reach rank 0.
struct RankStats {
  int rank = 0;
  std::string host;
  std::string poll_mode;  // the mode this rank ran (poll_mode auto resolved)
  std::vector<int> cpus;  // the CPUs it may run on (sched_getaffinity, after binding)
  // The process's peak resident set size (getrusage ru_maxrss), bytes.
  uint64_t peak_rss_bytes = 0;
  // Bytes of transparent huge pages backing the process while its buffers
  // were in use (page_size: huge asks for them; the kernel decides).
  uint64_t anon_huge_bytes = 0;
  // Resident anonymous memory of the process at the same moment (RssAnon).
  uint64_t anon_rss_bytes = 0;
  // Where this rank's start-up and teardown time went (results.startup).
  Lifecycle lifecycle;
  // Its host's load at the start and end of its data phase (results.host_load).
  HostLoadWindow host_load;
  // Failure, if any (empty when the rank succeeded).
  std::string error;
  // The protocol's own part as its one-line record (encode_own_part in
  // stats_fields.hpp, from the protocol's field table), opaque here: the
  // protocol's run writes it (ProtocolRun::finish), its report reads it
  // back (own_parts). Empty: the protocol sent none.
  std::string own;

  // One line of text, field by field (the table in stats_fields.hpp), and
  // back: deserialize throws evb::Error on text that is not such a record.
  std::string serialize() const;
  static RankStats deserialize(const std::string& text);
};

}  // namespace evb
