#pragma once
// What a congestor rank counted and sends rank 0 (its RankStats::own, one
// line of numbers), and rank 0's merge of them into one result per
// `background` entry: results.background[] and the table's background lines.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/json_writer.hpp"
#include "core/topology.hpp"
#include "protocols/common/rank_stats.hpp"

namespace evb {

// One congestor rank's counts; times in ns since the start barrier
// (first_ns: its first send posted, last_ns: its last data completion; 0
// when it sent nothing).
struct CongestorCounts {
  int entry = 0;
  int member = 0;
  uint64_t messages = 0;  // data messages (or writes) sent and completed
  uint64_t bytes = 0;
  uint64_t received_messages = 0;
  uint64_t received_bytes = 0;
  int64_t first_ns = 0;
  int64_t last_ns = 0;

  std::string encode() const;
  // nullopt when `text` is not exactly such a record (it came from a peer).
  static std::optional<CongestorCounts> decode(const std::string& text);
};

// One entry of results.background[]: its pattern and settings, the window
// its senders actually sent in (start, stop: seconds since the start
// barrier, earliest first send to latest last completion), their messages,
// bytes and rate.
struct BackgroundResult {
  BackgroundSpec spec;
  int ranks_reported = 0;  // congestor ranks whose counts reached rank 0
  uint64_t messages = 0;
  uint64_t bytes = 0;
  uint64_t received_bytes = 0;
  double start_s = 0;
  double stop_s = 0;
  double gbps = 0;
};

// Rank 0: the congestors' records (ranks at or after topo.nprocs) merged
// by entry, one result per entry of config.background. Throws evb::Error on
// a malformed record.
std::vector<BackgroundResult> merge_background(const Config& config, const Topology& topo,
                                               const std::vector<RankStats>& congestor_ranks);

// results.background (an array; nothing when the run had no background).
void write_background_json(JsonWriter& w, const std::vector<BackgroundResult>& results);
// "# background 1: incast ..." lines of the result table.
void print_background_lines(std::FILE* out, const std::vector<BackgroundResult>& results);

}  // namespace evb
