#include "protocols/monitor/monitor_hub.hpp"

#include <bit>
#include <cstdio>
#include <string_view>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "protocols/monitor/traffic.hpp"

namespace evb {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Sums of counters peers report, kept at the largest value rather than
// wrapping (two congestor ranks may claim counters near 2^64).
uint64_t hub_counter_sum(uint64_t a, uint64_t b) {
  return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

std::string factors_text(const std::vector<double>& f) {
  std::string s = "[";
  for (size_t i = 0; i < f.size(); ++i) s += (i ? ", " : "") + number(f[i]);
  return s + "]";
}

}  // namespace

MonitorHub::MonitorHub(Engine& engine, const Topology& topo, EvmAgent& evm,
                       EventBuildingStats& stats, MonitorState& state, MonitorLabels labels,
                       bool quiet)
    : engine_(engine), topo_(topo), evm_(evm), stats_(stats), state_(state), quiet_(quiet) {
  const Config& c = engine.config();
  const auto nodes = static_cast<size_t>(topo.nodes);
  const uint8_t id = engine_.add_agent(this);
  // Per interval each rank sends 2 + rows/3 (BU) and 1 (RU) commands.
  const size_t rows = matrix_rows(topo.nodes);  // per RU, or per RU group
  const size_t per_rank = 3 + (rows + 2) / 3;
  engine_.listen(Channel::monitor, id,
                 static_cast<int>(std::min<size_t>(
                     4096, per_rank * topo.ranks.size() + 2 * topo.congestors.size())));
  MonitorSnapshot& s = snapshot_;
  s.protocol = std::move(labels.protocol);
  s.variant = std::move(labels.variant);
  s.data_path = std::move(labels.data_path);
  s.nodes = topo.nodes;
  s.interval_s = c.report_interval_s;
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
  for (const BackgroundSpec& b : c.background)
    s.background.push_back(MonitorBackground{.pattern = to_string(b.pattern), .ranks = b.ranks});
  congestors_.resize(topo.congestors.size());
  // Scrapes before the data phase see the run's labels and knobs, at t 0.
  state_.publish(s);
}

void MonitorHub::start(int64_t now) {
  interval_ns_ = s_to_ns(engine_.config().report_interval_s);
  next_ns_ = now + interval_ns_;
  publish(now, false);
}

void MonitorHub::on_command(PeerId from, const Command& cmd) {
  auto refuse = [&](const std::string& what) {
    throw PeerError(from, "monitor: stats from " + engine_.peer_name(from) + " refused: " + what);
  };
  if (cmd.type != CommandType::stats) refuse("not a stats command");
  const auto nodes = static_cast<uint32_t>(topo_.nodes);
  auto own_bu = [&] {
    if (cmd.bu >= nodes || topo_.bu_rank[cmd.bu] != from) refuse("it names a BU it does not host");
    return &snapshot_.eb.bus[cmd.bu];
  };
  // The interval it covers, by the sender's clock; each rate checks that
  // it follows the last one of the same counter.
  const auto start = std::bit_cast<int64_t>(cmd.pad[0]);
  const auto end = std::bit_cast<int64_t>(cmd.pad[1]);
  if (const std::string_view fault = interval_fault(start, end); !fault.empty())
    refuse(std::string(fault));
  // Checks a report before anything of it is kept; false when it is older
  // than the last one taken (it adds nothing, and its figures are older).
  auto check = [&](const IntervalRate& rate, uint64_t total) {
    if (const std::string_view fault = rate.check(total, start, end); !fault.empty())
      refuse(std::string(fault));
    return !rate.stale(end);
  };
  auto count = [&](IntervalRate& rate, uint64_t total) {
    if (!check(rate, total)) return false;
    rate.add(total, start, end);
    return true;
  };
  switch (static_cast<MonitorStat>(cmd.slot)) {
    case MonitorStat::bu: {
      MonitorBu* b = own_bu();
      if (!count(bu_rate_[cmd.bu], cmd.bytes)) return;
      b->bytes = cmd.bytes;
      b->fragments = cmd.event_id;
      b->requests_in_flight = cmd.count;
      b->fu_queue = cmd.ru;
      b->integrity_errors = cmd.value;
      b->reported = true;
      return;
    }
    case MonitorStat::latency: {
      MonitorBu* b = own_bu();
      b->latency_p50_s = ns_to_s(static_cast<int64_t>(cmd.event_id));
      b->latency_p90_s = ns_to_s(static_cast<int64_t>(cmd.bytes));
      b->latency_p99_s = ns_to_s(static_cast<int64_t>(cmd.value));
      return;
    }
    case MonitorStat::matrix: {
      own_bu();
      const auto rows = static_cast<uint32_t>(matrix_rows(topo_.nodes));
      if (cmd.count < 1 || cmd.count > 3 || cmd.ru >= rows || cmd.count > rows - cmd.ru)
        refuse("a traffic row outside the RUs");
      const uint64_t v[3] = {cmd.event_id, cmd.bytes, cmd.value};
      auto cell = [&](uint32_t k) { return static_cast<size_t>(cmd.ru + k) * nodes + cmd.bu; };
      // The row is taken whole or not at all: every cell checked first.
      for (uint32_t k = 0; k < cmd.count; ++k) check(matrix_rate_[cell(k)], v[k]);
      for (uint32_t k = 0; k < cmd.count; ++k)
        if (count(matrix_rate_[cell(k)], v[k])) snapshot_.eb.matrix[cell(k)] = v[k];
      return;
    }
    case MonitorStat::background:
      take_background(from, cmd, start, end);
      return;
    case MonitorStat::ru: {
      if (cmd.ru >= nodes || topo_.ru_rank[cmd.ru] != from)
        refuse("it names an RU it does not host");
      if (!count(ru_rate_[cmd.ru], cmd.bytes)) return;
      MonitorRu& r = snapshot_.eb.rus[cmd.ru];
      r.bytes = cmd.bytes;
      r.fragments = cmd.event_id;
      r.reported = true;
      return;
    }
  }
  refuse("unknown record " + std::to_string(cmd.slot));
}

void MonitorHub::take_background(PeerId from, const Command& cmd, int64_t start, int64_t end) {
  const CongestorRank* k = topo_.congestor(from);
  if (!k || cmd.bu != static_cast<uint32_t>(k->entry) ||
      cmd.ru != static_cast<uint32_t>(k->member) || cmd.count > 1)
    throw PeerError(from, "monitor: stats from " + engine_.peer_name(from) +
                              " refused: it names a background member it is not");
  CongestorSeen& seen = congestors_[static_cast<size_t>(from - topo_.nprocs)];
  if (seen.rate.stale(end)) return;  // older than the last: adds nothing, changes nothing
  if (cmd.event_id < seen.messages || cmd.value < seen.received_bytes)
    throw PeerError(
        from, "monitor: stats from " + engine_.peer_name(from) + " refused: a counter went back");
  if (const std::string_view fault = seen.rate.add(cmd.bytes, start, end); !fault.empty())
    throw PeerError(
        from, "monitor: stats from " + engine_.peer_name(from) + " refused: " + std::string(fault));
  seen.reported = true;
  seen.sending = cmd.count == 1;
  seen.messages = cmd.event_id;
  seen.bytes = cmd.bytes;
  seen.received_bytes = cmd.value;
}

void MonitorHub::switch_background(int entry, bool on, int64_t now) {
  MonitorBackground& b = snapshot_.background.at(static_cast<size_t>(entry));
  if (b.active == on) return;
  b.active = on;
  const Command c{.type = CommandType::control,
                  .event_id = boundary_,
                  .slot = static_cast<uint32_t>(ControlKnob::background),
                  .bu = static_cast<uint32_t>(entry),
                  .value = on ? 1u : 0u};
  for (const int rank : topo_.entry_ranks(entry))
    engine_.send_command(static_cast<PeerId>(rank), Channel::control, c);
  record(now, "background." + std::to_string(entry + 1) + ".active", on ? "true" : "false");
}

void MonitorHub::broadcast(ControlKnob knob, uint64_t value) {
  const Command c{.type = CommandType::control,
                  .event_id = boundary_,
                  .slot = static_cast<uint32_t>(knob),
                  .value = value};
  for (size_t rank = 0; rank < topo_.ranks.size(); ++rank)
    engine_.send_command(static_cast<PeerId>(rank), Channel::control, c);
}

void MonitorHub::record(int64_t now, std::string key, std::string value) {
  ControlRecord r{ns_to_s(now - engine_.t0_ns()), std::move(key), std::move(value), boundary_,
                  source_};
  if (!quiet_)
    std::fprintf(stderr, "# t=%6.1f s  control: %s%s%s (from event %llu)\n", r.t_s, r.key.c_str(),
                 r.value.empty() ? "" : " ", r.value.c_str(),
                 static_cast<unsigned long long>(r.from_event));
  stats_.control.push_back(r);
  snapshot_.eb.control.push_back(std::move(r));
}

void MonitorHub::apply_scheduled(int64_t now) {
  const std::vector<ControlStep>& steps = engine_.config().control;
  while (next_step_ < steps.size() && now - engine_.t0_ns() >= s_to_ns(steps[next_step_].at_s)) {
    const ControlParse p = parse_control(steps[next_step_].body, state_.limits());
    ++next_step_;
    if (p.status == 202) apply(p.request, now, "config");  // else refused at validation
  }
}

void MonitorHub::apply(const ControlRequest& r, int64_t now, const char* source) {
  source_ = source;
  // Every change of one request applies from the same event on: the next
  // one to be assigned (a resume or more credits assign some at once).
  boundary_ = evm_.next_event();
  MonitorParams& p = snapshot_.eb.params;
  // A pause stops assignment first; a resume comes last, once the other
  // changes are on their way (the events it assigns at once are under them).
  auto pause = [&](bool on) {
    if (on == p.paused) return;
    p.paused = on;
    evm_.set_paused(on);
    broadcast(ControlKnob::pause, on ? 1 : 0);
    record(now, on ? "pause" : "resume", "");
  };
  if (r.pause && *r.pause) pause(true);
  if (r.parallel) {
    p.parallel = *r.parallel;
    broadcast(ControlKnob::parallel, static_cast<uint64_t>(p.parallel));
    record(now, "parallel", std::to_string(p.parallel));
  }
  if (r.processing_time_s) {
    p.processing_time_s = *r.processing_time_s;
    broadcast(ControlKnob::processing_time, std::bit_cast<uint64_t>(p.processing_time_s));
    record(now, "fu.processing_time", number(p.processing_time_s));
  }
  if (r.ru_rate_factors) {
    p.ru_rate_factors = *r.ru_rate_factors;
    for (int ru = 0; ru < topo_.nodes; ++ru) {
      const double f = p.ru_rate_factors[static_cast<size_t>(ru)];
      snapshot_.eb.rus[static_cast<size_t>(ru)].rate_factor = f;
      engine_.send_command(topo_.ru_rank[ru], Channel::control,
                           Command{.type = CommandType::control,
                                   .event_id = boundary_,
                                   .slot = static_cast<uint32_t>(ControlKnob::rate_factor),
                                   .ru = static_cast<uint32_t>(ru),
                                   .value = std::bit_cast<uint64_t>(f)});
    }
    record(now, "ru_rate_factors", factors_text(p.ru_rate_factors));
  }
  if (r.credits) {
    p.credits = *r.credits;
    evm_.set_credits(p.credits);
    record(now, "credits", std::to_string(p.credits));
  }
  for (const auto& [entry, on] : r.background) switch_background(entry, on, now);
  if (r.pause && !*r.pause) pause(false);
  evm_.begin_phase(now, stats_.control.size());  // results.phases: a stretch under the new knobs
}

void MonitorHub::publish_rates() {
  auto put = [](auto& unit, IntervalRate& rate) {
    const PublishedRate p = rate.take();
    unit.rate_bytes_per_s = p.per_s;
    unit.rate_interval_s = p.interval_s;
    unit.rate_carried = p.carried;
  };
  for (size_t i = 0; i < bu_rate_.size(); ++i) put(snapshot_.eb.bus[i], bu_rate_[i]);
  for (size_t i = 0; i < ru_rate_.size(); ++i) put(snapshot_.eb.rus[i], ru_rate_[i]);
  for (size_t i = 0; i < matrix_rate_.size(); ++i)
    snapshot_.eb.matrix_rate[i] = matrix_rate_[i].take().per_s;
  for (MonitorBackground& b : snapshot_.background) {
    b = MonitorBackground{.pattern = b.pattern, .ranks = b.ranks, .active = b.active};
  }
  for (size_t i = 0; i < congestors_.size(); ++i) {
    CongestorSeen& seen = congestors_[i];
    const PublishedRate p = seen.rate.take();
    MonitorBackground& b = snapshot_.background.at(static_cast<size_t>(topo_.congestors[i].entry));
    if (!seen.reported) continue;
    ++b.ranks_reported;
    b.ranks_sending += seen.sending ? 1 : 0;
    b.messages = hub_counter_sum(b.messages, seen.messages);
    b.bytes = hub_counter_sum(b.bytes, seen.bytes);
    b.rate_bytes_per_s += p.per_s;
    b.rate_carried = b.rate_carried || p.carried;
  }
}

void MonitorHub::publish(int64_t now, bool finished) {
  MonitorSnapshot& s = snapshot_;
  s.t_s = ns_to_s(now - engine_.t0_ns());
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
  s.finished = finished;
  publish_rates();
  state_.publish(s);
}

void MonitorHub::on_tick(int64_t now) {
  if (finished_) return;
  if (!evm_.stopping()) apply_scheduled(now);
  if (state_.has_requests()) {
    if (evm_.stopping()) {
      // Assignment has ended: nothing is left to apply a change to.
      if (!quiet_ && !state_.take_requests().empty())
        std::fprintf(stderr, "# control: request(s) after the end of assignment not applied\n");
    } else {
      for (const ControlRequest& r : state_.take_requests()) apply(r, now, "http");
    }
  }
  if (evm_.done()) {
    finished_ = true;
    publish(now, true);
    return;
  }
  if (interval_ns_ > 0 && now >= next_ns_) {
    next_ns_ = now + interval_ns_;
    publish(now, false);
  }
}

int64_t MonitorHub::next_timer_ns() const {
  if (finished_) return -1;
  int64_t t = interval_ns_ > 0 ? next_ns_ : -1;
  const std::vector<ControlStep>& steps = engine_.config().control;
  if (next_step_ < steps.size()) {
    const int64_t due = engine_.t0_ns() + s_to_ns(steps[next_step_].at_s);
    t = t < 0 ? due : std::min(t, due);
  }
  return t;
}

}  // namespace evb
