#include "protocols/common/evm_agent.hpp"

#include <algorithm>
#include <cstdio>

#include "core/clock.hpp"
#include "core/error.hpp"

namespace evb {

EvmAgent::EvmAgent(Engine& engine, const Topology& topo, RankStats& stats, bool live)
    : engine_(engine),
      topo_(topo),
      stats_(stats),
      evm_(topo.nodes, engine.config().events),
      live_(live) {
  id_ = engine_.add_agent(this);
  // One credit per BU slot can be outstanding (capped; the driver buffers beyond).
  engine_.listen(Channel::to_evm, id_, std::clamp(topo.nodes * engine.config().credits, 2, 256));
  stats_.evm = true;
  held_.assign(static_cast<size_t>(topo.nodes) * engine.config().credits, 0);
  slot_event_.assign(held_.size(), 0);
}

void EvmAgent::start(int64_t now) {
  const Config& c = engine_.config();
  deadline_ns_ = c.events ? 0 : now + s_to_ns(c.duration_s);
  interval_ns_ = s_to_ns(c.report_interval_s);
  next_report_ns_ = now + interval_ns_;
}

void EvmAgent::on_command(PeerId from, const Command& cmd) {
  if (cmd.type != CommandType::credit)
    throw PeerError(from, "EVM: unexpected command " + std::to_string(static_cast<int>(cmd.type)) +
                              " from " + engine_.peer_name(from));
  auto refuse = [&](const std::string& what) {
    throw PeerError(from, "EVM: credit from " + engine_.peer_name(from) + " refused: " + what);
  };
  const int bu = static_cast<int>(cmd.bu);
  if (bu < 0 || bu >= topo_.nodes || topo_.bu_rank[bu] != from) refuse("it names another BU");
  if (cmd.slot >= static_cast<uint32_t>(engine_.config().credits)) refuse("no valid slot");
  // A slot is either free (its credit offers it) or holds one assigned event
  // (its credit reports that event finished): nothing else is accepted.
  const size_t k = static_cast<size_t>(bu) * engine_.config().credits + cmd.slot;
  if (!cmd.value && held_[k]) refuse("the slot holds an unfinished event");
  if (cmd.value) {
    if (!held_[k]) refuse("the slot holds no event");
    if (cmd.event_id != slot_event_[k] && cmd.event_id != kEventUnknown)
      refuse("it reports another event finished in that slot");
    held_[k] = 0;
    evm_.completed(bu);
    interval_bytes_ += cmd.bytes;
    ++interval_events_;
  }
  if (auto e = evm_.assign(bu)) {
    held_[k] = 1;
    slot_event_[k] = *e;
    assign_event(from, bu, cmd.slot, *e);
  }
  maybe_stop();
}

void EvmAgent::maybe_stop() {
  if (stop_sent_ || !evm_.drained()) return;
  stop_sent_ = true;
  stats_.events_assigned = evm_.assigned();
  stats_.max_outstanding_per_bu = static_cast<int>(evm_.max_outstanding());
  for (int n = 0; n < topo_.nodes; ++n) {
    engine_.send_command(topo_.ru_rank[n], Channel::to_ru, Command{.type = CommandType::stop});
    engine_.send_command(topo_.bu_rank[n], Channel::to_bu, Command{.type = CommandType::stop});
  }
}

void EvmAgent::on_tick(int64_t now) {
  if (deadline_ns_ && now >= deadline_ns_ && !evm_.stopping()) evm_.stop_assigning();
  maybe_stop();
  if (live_ && interval_ns_ > 0 && now >= next_report_ns_) {
    const double secs = ns_to_s(interval_ns_);
    std::fprintf(stderr, "# t=%6.1f s  events/s %10.1f  aggregate %8.2f Gb/s  (EVM view)\n",
                 ns_to_s(now - engine_.t0_ns()), interval_events_ / secs,
                 interval_bytes_ * 8.0 / secs / 1e9);
    interval_bytes_ = 0;
    interval_events_ = 0;
    next_report_ns_ += interval_ns_;
  }
}

int64_t EvmAgent::next_timer_ns() const {
  int64_t t = live_ ? next_report_ns_ : -1;
  if (deadline_ns_ && !evm_.stopping()) t = t < 0 ? deadline_ns_ : std::min(t, deadline_ns_);
  return t;
}

std::string EvmAgent::waiting_for() const {
  if (!evm_.stopping()) return "EVM: credits from BUs";
  return "EVM: " + std::to_string(evm_.assigned() - evm_.completed_total()) +
         " assigned event(s) to be reported built";
}

}  // namespace evb
