#include "protocols/event_building/recovery.hpp"

#include <algorithm>
#include <cstdio>

#include "protocols/event_building/rate_timeline.hpp"

namespace evb {

AggregateRecovery aggregate_recovery(const EventBuildingSummary& s, double fault_s, double since_s,
                                     double level) {
  AggregateRecovery out;
  if (s.rate_bins.empty() || s.rate_bin_s <= 0 || level <= 0) return out;
  const double until =
      s.assign_stopped_at_s >= 0 ? s.assign_stopped_at_s : s.rate_bins.size() * s.rate_bin_s;
  const Recovery r = find_recovery(s.rate_bins, s.rate_bin_s, s.warmup_s, fault_s, since_s, until,
                                   0.1, 0.9 * level);
  if (r.pre_level <= 0) return out;
  out.known = true;
  out.pre_fault_gbps = r.pre_level * 8 / 1e9;
  if (r.recovered_s) out.time_to_recover_s = std::max(0.0, *r.recovered_s - since_s);
  out.best_fraction = r.best_fraction / level;
  if (r.recovered_s) out.best_fraction = std::max(out.best_fraction, 0.9);  // rounding
  out.resolution_s = s.rate_bin_s;
  return out;
}

std::string recovery_text(const AggregateRecovery& r) {
  char share[48] = "";
  if (r.rus > 0) std::snprintf(share, sizeof share, "%d/%d of ", r.rus_left, r.rus);
  char buf[256];
  if (!r.known)
    std::snprintf(buf, sizeof buf, "; no pre-fault aggregate to recover to\n");
  else if (r.time_to_recover_s)
    std::snprintf(buf, sizeof buf,
                  "; aggregate back to >= 90 %% of %sits pre-fault %.2f Gb/s after %.3f s\n", share,
                  r.pre_fault_gbps, *r.time_to_recover_s);
  else
    std::snprintf(buf, sizeof buf,
                  "; aggregate not back to 90 %% of %sits pre-fault %.2f Gb/s (best %.0f %%)\n",
                  share, r.pre_fault_gbps, 100 * r.best_fraction);
  return buf;
}

void recovery_fields(JsonWriter& w, const AggregateRecovery& r) {
  if (!r.known) {
    w.raw("pre_fault_gbps", "null");
    w.raw("time_to_recover_s", "null");
    return;
  }
  w.value("pre_fault_gbps", r.pre_fault_gbps);
  if (r.time_to_recover_s)
    w.value("time_to_recover_s", *r.time_to_recover_s);
  else
    w.raw("time_to_recover_s", "null");
  w.value("recovered_fraction", r.best_fraction);
  w.value("recovery_level", r.level());  // of pre_fault_gbps: (N - masked) / N, else 1
  w.value("recovery_resolution_s", r.resolution_s);
}

}  // namespace evb
