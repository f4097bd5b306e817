#pragma once
// The run's start-up and teardown as figures (results.startup,
// results.teardown and the table's `# start-up` line): the slowest rank's
// time from launch to the set-up barrier, split into the bootstrap's join,
// the driver's connection set-up and the protocol's set-up, and the longest
// teardown (docs/BOOTSTRAP.md, "Start-up and teardown").
#include <string>
#include <vector>

#include "core/json_writer.hpp"
#include "core/lifecycle.hpp"
#include "protocols/common/rank_stats.hpp"

namespace evb {

struct LifecycleSummary {
  int ranks = 0;
  int slowest_rank = -1;  // the last rank to pass the set-up barrier's entry
  Lifecycle slowest;      // that rank's phases
  int slowest_teardown_rank = -1;
  double teardown_s = 0;
};

LifecycleSummary summarize_lifecycle(const std::vector<RankStats>& ranks);

// "start-up 1.52 s (join 0.31, connect 0.95, set-up 0.26; slowest rank 17),
// teardown 0.04 s (slowest rank 3)"; "" without ranks.
std::string lifecycle_line(const LifecycleSummary& s);

// "startup": {...} and "teardown": {...} into the open results object.
void write_lifecycle(JsonWriter& w, const LifecycleSummary& s);

}  // namespace evb
