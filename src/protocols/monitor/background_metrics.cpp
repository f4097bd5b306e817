#include "protocols/monitor/background_metrics.hpp"

#include <string>
#include <utility>

#include "protocols/monitor/background_figures.hpp"

namespace evb {
namespace {

// One family: a series per entry, read through its /api/state field `key`.
MetricDescriptor per_entry(std::string name, MetricType type, std::string unit, std::string help,
                           std::string_view key) {
  auto read = [f = background_field(key).read](const MetricInput& in) {
    std::vector<MetricSample> out;
    const std::vector<MonitorBackground>& entries = in.latest.background;
    for (size_t e = 0; e < entries.size(); ++e)
      out.push_back(
          {{{"entry", std::to_string(e + 1)}, {"pattern", entries[e].pattern}}, f(entries[e])});
    return out;
  };
  return {std::move(name), type,
          std::move(unit), {{"entry", "`1`, `2`"}, {"pattern", "`incast`, `alltoall`"}},
          std::move(help), {"background[]." + std::string(key)},
          false,           read};
}

}  // namespace

void append_background_families(std::vector<MetricDescriptor>& t) {
  constexpr auto gauge = MetricType::gauge;
  constexpr auto counter = MetricType::counter;
  t.push_back(per_entry("evbench_background_sent_bytes_total", counter, "bytes",
                        "Bytes the congestor ranks of a background entry sent (acknowledged or "
                        "landed) since their start, as they last reported.",
                        "bytes"));
  t.push_back(per_entry("evbench_background_messages_total", counter, "messages",
                        "Messages (or writes) the congestor ranks of a background entry sent "
                        "since their start, as they last reported.",
                        "messages"));
  t.push_back(per_entry("evbench_background_rate_bytes_per_second", gauge, "bytes/s",
                        "Bytes a background entry's ranks sent per second over the interval(s) "
                        "they reported since the last snapshot, each by its own clock, summed.",
                        "rate_bytes_per_s"));
  t.back().state.insert(t.back().state.end(), {"background[].gbps", "history[].background_gbps"});
  t.push_back(per_entry("evbench_background_rate_carried", gauge, "0/1",
                        "1 when a rank of the entry completed no interval since the last "
                        "snapshot: its part of the rate is carried forward (0 after a few).",
                        "rate_carried"));
  t.push_back(per_entry("evbench_background_active", gauge, "0/1",
                        "1 while the entry is switched on (POST /control background.N.active; "
                        "it sends only between its start and stop).",
                        "active"));
  t.push_back(per_entry("evbench_background_ranks_sending", gauge, "ranks",
                        "Ranks of the entry that were sending at their last report.",
                        "ranks_sending"));
}

}  // namespace evb
