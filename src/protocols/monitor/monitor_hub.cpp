#include "protocols/monitor/monitor_hub.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <string_view>

#include "core/clock.hpp"
#include "core/error.hpp"

namespace evb {
namespace {

// Sums of counters peers report, kept at the largest value rather than
// wrapping (two congestor ranks may claim counters near 2^64).
uint64_t hub_counter_sum(uint64_t a, uint64_t b) {
  return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

}  // namespace

MonitorHub::MonitorHub(Engine& engine, const Topology& topo, std::unique_ptr<HubView> view,
                       MonitorState& state, MonitorLabels labels, bool quiet)
    : engine_(engine), topo_(topo), view_(std::move(view)), state_(state), quiet_(quiet) {
  const Config& c = engine.config();
  const uint8_t id = engine_.add_agent(this);
  engine_.listen(
      Channel::monitor, id,
      static_cast<int>(std::min<size_t>(
          4096, view_->records_per_rank() * topo.ranks.size() + 2 * topo.congestors.size())));
  MonitorSnapshot& s = snapshot_;
  s.protocol = std::move(labels.protocol);
  s.variant = std::move(labels.variant);
  s.data_path = std::move(labels.data_path);
  s.nodes = topo.nodes;
  s.interval_s = c.report_interval_s;
  view_->open(s);
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
  // The interval it covers, by the sender's clock; each rate checks that
  // it follows the last one of the same counter.
  const auto start = std::bit_cast<int64_t>(cmd.pad[0]);
  const auto end = std::bit_cast<int64_t>(cmd.pad[1]);
  const StatsRecord r{engine_, from, cmd, start, end};
  if (cmd.type != CommandType::stats) r.refuse("not a stats command");
  if (const std::string_view fault = interval_fault(start, end); !fault.empty())
    r.refuse(std::string(fault));
  if (static_cast<MonitorStat>(cmd.slot) == MonitorStat::background) {
    take_background(from, cmd, start, end);
    return;
  }
  if (!view_->take(r, snapshot_)) r.refuse("unknown record " + std::to_string(cmd.slot));
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
  view_->recorded(std::move(r), snapshot_);
}

void MonitorHub::apply_scheduled(int64_t now) {
  const std::vector<ControlStep>& steps = engine_.config().control;
  // Once assignment has ended only the entries due before its deadline
  // apply: the EVM's loop may first turn after it (a stalled or starved
  // rank), and an entry due within the run is applied late, not dropped.
  const int64_t end = view_->stopping() ? view_->deadline_ns() : INT64_MAX;
  while (next_step_ < steps.size() && now - engine_.t0_ns() >= s_to_ns(steps[next_step_].at_s) &&
         engine_.t0_ns() + s_to_ns(steps[next_step_].at_s) < end) {
    const ControlParse p = parse_control(steps[next_step_].body, state_.limits());
    ++next_step_;
    if (p.status == 202) apply(p.request, now, "config");  // else refused at validation
  }
}

void MonitorHub::apply(const ControlRequest& r, int64_t now, const char* source) {
  source_ = source;
  // Every change of one request applies from the same event on: the next
  // one to be assigned.
  boundary_ = view_->boundary();
  view_->apply(r, now, *this, snapshot_);
}

void MonitorHub::publish_background() {
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
  view_->fill(s);
  s.finished = finished;
  publish_background();
  state_.publish(s);
}

void MonitorHub::on_tick(int64_t now) {
  if (finished_) return;
  apply_scheduled(now);
  if (state_.has_requests()) {
    if (view_->stopping()) {
      // Assignment has ended: nothing is left to apply a change to.
      if (!quiet_ && !state_.take_requests().empty())
        std::fprintf(stderr, "# control: request(s) after the end of assignment not applied\n");
    } else {
      for (const ControlRequest& r : state_.take_requests()) apply(r, now, "http");
    }
  }
  if (view_->done()) {
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
