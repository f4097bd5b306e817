#include "protocols/event_building/event_building_live.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/clock.hpp"
#include "protocols/monitor/monitor_hub.hpp"
#include "protocols/monitor/traffic.hpp"

namespace evb {
namespace {

std::string live_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string live_factors_text(const std::vector<double>& f) {
  std::string s = "[";
  for (size_t i = 0; i < f.size(); ++i) s += (i ? ", " : "") + live_number(f[i]);
  return s + "]";
}

uint64_t live_integrity_errors(const IntegrityCounters& i) {
  return i.corrupt + i.duplicate + i.incomplete + i.bad_events + i.out_of_sync;
}

}  // namespace

EventBuildingHubView::EventBuildingHubView(Engine& engine, const Topology& topo, EvmAgent& evm,
                                           EventBuildingStats& stats)
    : engine_(engine), topo_(topo), evm_(evm), stats_(stats) {}

size_t EventBuildingHubView::records_per_rank() const {
  // Per interval each rank sends 2 + rows/3 (BU) and 1 (RU) commands.
  const size_t rows = matrix_rows(topo_.nodes);  // per RU, or per RU group
  return 3 + (rows + 2) / 3;
}

void EventBuildingHubView::open(MonitorSnapshot& s) {
  const Config& c = engine_.config();
  const auto nodes = static_cast<size_t>(topo_.nodes);
  const size_t rows = matrix_rows(topo_.nodes);
  s.eb.bus.assign(nodes, MonitorBu{});
  s.eb.rus.assign(nodes, MonitorRu{});
  s.eb.matrix.assign(rows * nodes, 0);
  s.eb.matrix_rate.assign(rows * nodes, 0.0);
  bu_rate_.resize(nodes);
  ru_rate_.resize(nodes);
  matrix_rate_.resize(rows * nodes);
  s.eb.params.parallel = c.parallel;
  s.eb.params.credits = c.credits;
  s.eb.params.credits_allocated = c.credits;
  s.eb.params.processing_time_s = c.fu.processing_time_s;
  s.eb.params.ru_rate_factors.assign(nodes, 1.0);
  for (size_t r = 0; r < c.ru_rate_factors.size() && r < nodes; ++r)
    s.eb.params.ru_rate_factors[r] = c.ru_rate_factors[r];
  for (size_t r = 0; r < nodes; ++r) s.eb.rus[r].rate_factor = s.eb.params.ru_rate_factors[r];
}

bool EventBuildingHubView::take(const StatsRecord& r, MonitorSnapshot& s) {
  const Command& cmd = r.cmd;
  const auto nodes = static_cast<uint32_t>(topo_.nodes);
  auto own_bu = [&] {
    if (cmd.bu >= nodes || topo_.bu_rank[cmd.bu] != r.from)
      r.refuse("it names a BU it does not host");
    return &s.eb.bus[cmd.bu];
  };
  switch (static_cast<MonitorStat>(cmd.slot)) {
    case MonitorStat::bu: {
      MonitorBu* b = own_bu();
      if (!r.count(bu_rate_[cmd.bu], cmd.bytes)) return true;
      b->bytes = cmd.bytes;
      b->fragments = cmd.event_id;
      b->requests_in_flight = cmd.count;
      b->fu_queue = cmd.ru;
      b->integrity_errors = cmd.value;
      b->reported = true;
      return true;
    }
    case MonitorStat::latency: {
      MonitorBu* b = own_bu();
      b->latency_p50_s = ns_to_s(static_cast<int64_t>(cmd.event_id));
      b->latency_p90_s = ns_to_s(static_cast<int64_t>(cmd.bytes));
      b->latency_p99_s = ns_to_s(static_cast<int64_t>(cmd.value));
      return true;
    }
    case MonitorStat::matrix: {
      own_bu();
      const auto rows = static_cast<uint32_t>(matrix_rows(topo_.nodes));
      if (cmd.count < 1 || cmd.count > 3 || cmd.ru >= rows || cmd.count > rows - cmd.ru)
        r.refuse("a traffic row outside the RUs");
      const uint64_t v[3] = {cmd.event_id, cmd.bytes, cmd.value};
      auto cell = [&](uint32_t k) { return static_cast<size_t>(cmd.ru + k) * nodes + cmd.bu; };
      // The row is taken whole or not at all: every cell checked first.
      for (uint32_t k = 0; k < cmd.count; ++k) r.check(matrix_rate_[cell(k)], v[k]);
      for (uint32_t k = 0; k < cmd.count; ++k)
        if (r.count(matrix_rate_[cell(k)], v[k])) s.eb.matrix[cell(k)] = v[k];
      return true;
    }
    case MonitorStat::ru: {
      if (cmd.ru >= nodes || topo_.ru_rank[cmd.ru] != r.from)
        r.refuse("it names an RU it does not host");
      if (!r.count(ru_rate_[cmd.ru], cmd.bytes)) return true;
      MonitorRu& u = s.eb.rus[cmd.ru];
      u.bytes = cmd.bytes;
      u.fragments = cmd.event_id;
      u.reported = true;
      return true;
    }
    case MonitorStat::background:
      break;  // the hub's
  }
  return false;
}

void EventBuildingHubView::recorded(ControlRecord r, MonitorSnapshot& s) {
  stats_.control.push_back(r);
  s.eb.control.push_back(std::move(r));
}

void EventBuildingHubView::apply(const ControlRequest& r, int64_t now, MonitorHub& hub,
                                 MonitorSnapshot& s) {
  // Every change of one request applies from the hub's boundary on (a
  // resume or more credits assign some at once).
  MonitorParams& p = s.eb.params;
  // A pause stops assignment first; a resume comes last, once the other
  // changes are on their way (the events it assigns at once are under them).
  auto pause = [&](bool on) {
    if (on == p.paused) return;
    p.paused = on;
    evm_.set_paused(on);
    hub.broadcast(ControlKnob::pause, on ? 1 : 0);
    hub.record(now, on ? "pause" : "resume", "");
  };
  if (r.pause && *r.pause) pause(true);
  if (r.parallel) {
    p.parallel = *r.parallel;
    hub.broadcast(ControlKnob::parallel, static_cast<uint64_t>(p.parallel));
    hub.record(now, "parallel", std::to_string(p.parallel));
  }
  if (r.processing_time_s) {
    p.processing_time_s = *r.processing_time_s;
    hub.broadcast(ControlKnob::processing_time, std::bit_cast<uint64_t>(p.processing_time_s));
    hub.record(now, "fu.processing_time", live_number(p.processing_time_s));
  }
  if (r.ru_rate_factors) {
    p.ru_rate_factors = *r.ru_rate_factors;
    for (int ru = 0; ru < topo_.nodes; ++ru) {
      const double f = p.ru_rate_factors[static_cast<size_t>(ru)];
      s.eb.rus[static_cast<size_t>(ru)].rate_factor = f;
      engine_.send_command(topo_.ru_rank[ru], Channel::control,
                           Command{.type = CommandType::control,
                                   .event_id = hub.boundary(),
                                   .slot = static_cast<uint32_t>(ControlKnob::rate_factor),
                                   .ru = static_cast<uint32_t>(ru),
                                   .value = std::bit_cast<uint64_t>(f)});
    }
    hub.record(now, "ru_rate_factors", live_factors_text(p.ru_rate_factors));
  }
  if (r.credits) {
    p.credits = *r.credits;
    evm_.set_credits(p.credits);
    hub.record(now, "credits", std::to_string(p.credits));
  }
  for (const auto& [entry, on] : r.background) hub.switch_background(entry, on, now);
  if (r.pause && !*r.pause) pause(false);
  evm_.begin_phase(now, stats_.control.size());  // results.phases: a stretch under the new knobs
}

void EventBuildingHubView::fill(MonitorSnapshot& s) {
  s.eb.events_assigned = evm_.next_event();
  s.eb.events_built = evm_.events_built();
  s.eb.bytes_built = evm_.bytes_built();
  if (const CpuMeter* m = engine_.meter()) s.eb.evm_cpu_ns = m->net_ns();
  const CommandTally& cost = engine_.counts().of(CostRole::evm);
  s.eb.evm_commands = cost.commands_sent + cost.commands_received;
  s.eb.evm_messages = cost.messages_sent + cost.messages_received;
  for (int b = 0; b < topo_.nodes; ++b) {
    MonitorBu& bu = s.eb.bus[static_cast<size_t>(b)];
    bu.events_in_flight = static_cast<uint32_t>(evm_.held_slots(b));
    bu.events_built = b < static_cast<int>(stats_.completed_per_bu.size())
                          ? stats_.completed_per_bu[static_cast<size_t>(b)]
                          : 0;
    bu.excluded = evm_.bu_excluded(b);
    MonitorRu& ru = s.eb.rus[static_cast<size_t>(b)];
    ru.masked = evm_.ru_is_masked(b);
    ru.lost = engine_.lost(topo_.ru_rank[b]);
  }
  s.eb.faults.clear();
  for (const FailureRecord& f : stats_.failures)
    s.eb.faults.push_back(MonitorFault{f.unit, f.cause, f.action, f.lost_at_s, f.detected_at_s,
                                       f.recovered_at_s, f.reassigned});
  // The rates over the intervals the senders reported since the last call.
  auto put = [](auto& unit, IntervalRate& rate) {
    const PublishedRate p = rate.take();
    unit.rate_bytes_per_s = p.per_s;
    unit.rate_interval_s = p.interval_s;
    unit.rate_carried = p.carried;
  };
  for (size_t i = 0; i < bu_rate_.size(); ++i) put(s.eb.bus[i], bu_rate_[i]);
  for (size_t i = 0; i < ru_rate_.size(); ++i) put(s.eb.rus[i], ru_rate_[i]);
  for (size_t i = 0; i < matrix_rate_.size(); ++i)
    s.eb.matrix_rate[i] = matrix_rate_[i].take().per_s;
}

EventBuildingReporterView::EventBuildingReporterView(Engine& engine, const Topology& topo,
                                                     EventBuildingStats& stats, ReportedUnits units)
    : engine_(engine), topo_(topo), stats_(stats), units_(units) {}

bool EventBuildingReporterView::reporting() const {
  return (units_.bu_agent && !units_.bu_agent->done()) ||
         (units_.ru_agent && !units_.ru_agent->done());
}

void EventBuildingReporterView::report(const std::function<void(Command)>& send) {
  if (units_.bu_agent) {
    const BuAgent& a = *units_.bu_agent;
    const auto b = static_cast<uint32_t>(a.index());
    const std::vector<uint64_t>& per_ru = a.bytes_from_ru();
    uint64_t bytes = 0;
    for (uint64_t v : per_ru) bytes += v;
    // Over kMatrixFullNodes nodes, the sums per RU group (rows_ is sized once).
    const std::vector<uint64_t>& from = by_group(per_ru);
    send(Command{.type = CommandType::stats,
                 .event_id = a.fragments_received(),
                 .slot = static_cast<uint32_t>(MonitorStat::bu),
                 .bu = b,
                 .ru = units_.fus ? static_cast<uint32_t>(units_.fus->waiting()) : 0,
                 .count = static_cast<uint32_t>(std::max(0, a.requests_in_flight())),
                 .bytes = bytes,
                 .value = units_.bu ? live_integrity_errors(units_.bu->integrity()) : 0});
    const Histogram& h = stats_.latency;
    auto q = [&h](double p) { return h.count() ? static_cast<uint64_t>(h.quantile(p)) : 0; };
    send(Command{.type = CommandType::stats,
                 .event_id = q(0.5),
                 .slot = static_cast<uint32_t>(MonitorStat::latency),
                 .bu = b,
                 .bytes = q(0.9),
                 .value = q(0.99)});
    for (size_t r = 0; r < from.size(); r += 3) {
      const size_t n = std::min<size_t>(3, from.size() - r);
      Command c{.type = CommandType::stats,
                .slot = static_cast<uint32_t>(MonitorStat::matrix),
                .bu = b,
                .ru = static_cast<uint32_t>(r),
                .count = static_cast<uint32_t>(n)};
      uint64_t* dst[3] = {&c.event_id, &c.bytes, &c.value};
      for (size_t k = 0; k < n; ++k) *dst[k] = from[r + k];
      send(c);
    }
  }
  if (units_.ru)
    send(Command{.type = CommandType::stats,
                 .event_id = stats_.fragments_sent,
                 .slot = static_cast<uint32_t>(MonitorStat::ru),
                 .ru = static_cast<uint32_t>(units_.ru->index()),
                 .bytes = stats_.bytes_sent});
}

const std::vector<uint64_t>& EventBuildingReporterView::by_group(
    const std::vector<uint64_t>& per_ru) {
  if (topo_.nodes <= kMatrixFullNodes) return per_ru;
  matrix_row(per_ru, topo_.nodes, rows_);
  return rows_;
}

bool EventBuildingReporterView::apply(const ControlCommand& c) {
  const Command& cmd = c.cmd;
  const double real = std::bit_cast<double>(cmd.value);
  switch (static_cast<ControlKnob>(cmd.slot)) {
    case ControlKnob::parallel:
      if (cmd.value < 1 || cmd.value > static_cast<uint64_t>(topo_.nodes))
        c.refuse("parallel out of range");
      if (units_.bu_agent) units_.bu_agent->set_parallel(static_cast<int>(cmd.value));
      return true;
    case ControlKnob::processing_time:
      if (!std::isfinite(real) || real < 0 || real > 86400)
        c.refuse("processing time out of range");
      if (units_.fus) units_.fus->set_processing_time(s_to_ns(real));
      engine_.set_processing_time(real);
      return true;
    case ControlKnob::rate_factor:
      if (!units_.ru || cmd.ru != static_cast<uint32_t>(units_.ru->index()))
        c.refuse("it names an RU this rank does not host");
      if (!std::isfinite(real) || real <= 0 || real > 1000) c.refuse("rate factor out of range");
      units_.ru->set_rate_factor(real, cmd.event_id);
      return true;
    case ControlKnob::pause:
    case ControlKnob::background:
      break;  // the reporter's
  }
  return false;
}

}  // namespace evb
