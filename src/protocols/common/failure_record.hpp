#pragma once
// A peer the run lost or excluded (on_failure exclude), as the EVM saw it:
// what rank 0 reports under results.failures and, for the RUs, under
// lost_data_sources or as masked (docs/METRICS.md).
#include <cstdint>
#include <string>

namespace evb {

// Times in seconds since the EVM's t0; recovered_at_s < 0: not recovered
// (recovery: every event of the lost BU built elsewhere). Sent to rank 0
// inside RankStats, written by field (stats_fields.hpp).
struct FailureRecord {
  std::string unit;  // "BU 2", "RU 1": the unit's name as the report prints it
  // Its role and index: a BU's index in `bu`, an RU's in `ru`, the other -1.
  // The report tells lost RUs from BUs by these, never by the name.
  int bu = -1;
  int ru = -1;
  int rank = -1;
  std::string cause;  // "peer lost" (driver) or "silent" (heartbeats missed)
  // What the run did about it: "reassigned" (a BU), "masked" (an RU under
  // on_ru_loss mask: events built without it), "stopped" (an RU under stop:
  // assignment ended).
  std::string action;
  double lost_at_s = 0;
  double detected_at_s = 0;
  uint64_t reassigned = 0;
  double recovered_at_s = -1;
  // One line of text, field by field ("{unit: RU 1, rank: 3, ...}"), and
  // back: decode throws evb::Error on anything but such a record or an
  // earlier evbench's list of 7 or 8 values in its fixed order (which
  // names no role: bu and ru stay -1).
  std::string encode() const;
  static FailureRecord decode(const std::string& text);
};

}  // namespace evb
