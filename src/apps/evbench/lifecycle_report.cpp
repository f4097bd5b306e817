#include "apps/evbench/lifecycle_report.hpp"

#include <cstdio>

namespace evb {

LifecycleSummary summarize_lifecycle(const std::vector<RankStats>& ranks) {
  LifecycleSummary s;
  for (const RankStats& r : ranks) {
    ++s.ranks;
    if (s.slowest_rank < 0 || r.lifecycle.ready_s() > s.slowest.ready_s()) {
      s.slowest_rank = r.rank;
      s.slowest = r.lifecycle;
    }
    if (s.slowest_teardown_rank < 0 || r.lifecycle.teardown_s > s.teardown_s) {
      s.slowest_teardown_rank = r.rank;
      s.teardown_s = r.lifecycle.teardown_s;
    }
  }
  return s;
}

std::string lifecycle_line(const LifecycleSummary& s) {
  if (s.ranks == 0) return "";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "start-up %.2f s (join %.2f, connect %.2f, set-up %.2f; slowest rank %d), "
                "teardown %.2f s (slowest rank %d)",
                s.slowest.ready_s(), s.slowest.join_s, s.slowest.connect_s, s.slowest.setup_s,
                s.slowest_rank, s.teardown_s, s.slowest_teardown_rank);
  return buf;
}

void write_lifecycle(JsonWriter& w, const LifecycleSummary& s) {
  if (s.ranks == 0) return;
  w.begin_object("startup");
  w.value("ready_s", s.slowest.ready_s());
  w.value("slowest_rank", s.slowest_rank);
  w.value("join_s", s.slowest.join_s);
  w.value("connect_s", s.slowest.connect_s);
  w.value("setup_s", s.slowest.setup_s);
  w.end_object();
  w.begin_object("teardown");
  w.value("seconds", s.teardown_s);
  w.value("slowest_rank", s.slowest_teardown_rank);
  w.end_object();
}

}  // namespace evb
