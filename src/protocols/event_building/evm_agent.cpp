#include "protocols/event_building/evm_agent.hpp"

#include <algorithm>
#include <cstdio>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/ring_geometry.hpp"
#include "protocols/common/fault_injector.hpp"

namespace evb {

EvmAgent::EvmAgent(Engine& engine, const Topology& topo, EventBuildingStats& stats, bool live)
    : engine_(engine),
      topo_(topo),
      stats_(stats),
      evm_(topo.nodes, meps_to_build(engine.config())),  // ids name MEPs (fragment.events)
      live_(live) {
  id_ = engine_.add_agent(this);
  engine_.time_agent(id_);  // results.cost: the EVM's CPU time per event
  // One credit per BU slot can be outstanding (capped; the driver buffers beyond).
  engine_.listen(Channel::to_evm, id_, std::clamp(topo.nodes * engine.config().credits, 2, 256));
  stats_.evm = true;
  held_.assign(static_cast<size_t>(topo.nodes) * engine.config().credits, 0);
  slot_event_.assign(held_.size(), 0);
  stats_.completed_per_bu.assign(static_cast<size_t>(topo.nodes), 0);
  exclude_ = engine.config().on_failure == OnFailure::exclude;
  mask_ = exclude_ && engine.config().on_ru_loss == OnRuLoss::mask;
  detection_ns_ = s_to_ns(engine.config().failure_detection_s);
  if (exclude_) evm_.hold_fragments(min_ring_slots(engine.config()));
}

double EvmAgent::since_t0(int64_t ns) const {
  return ns_to_s(ns - engine_.t0_ns());
}

void EvmAgent::lose_ru(int ru, PeerId peer, int64_t now, const char* cause) {
  FailureRecord r;
  r.unit = "RU " + std::to_string(ru);
  r.ru = ru;
  r.rank = peer;
  r.cause = cause;
  r.action = mask_ ? "masked" : "stopped";
  r.lost_at_s = r.detected_at_s = since_t0(now);
  // An injected kill: the time it was planned for, else the detection.
  const double kill = planned_kill_s(engine_.config(), topo_, peer);
  if (kill >= 0) r.lost_at_s = std::min(r.detected_at_s, kill);
  stats_.failures.push_back(r);
  if (!mask_) {
    // No event can be complete without this RU: stop, and let the BUs report
    // the ones that miss it as incomplete.
    std::fprintf(stderr,
                 "evbench: %s (rank %d) lost at %.2f s, detected after %.2f s: no event can be "
                 "complete any more; assignment stops\n",
                 r.unit.c_str(), peer, r.lost_at_s, r.detected_at_s - r.lost_at_s);
    evm_.stop_assigning();
    return;
  }
  const int left = evm_.mask(ru);
  if (left == 0)
    throw Error("EVM: every RU is lost (the last was " + r.unit + ", " + engine_.peer_name(peer) +
                "): no data source left to build events from");
  std::fprintf(stderr,
               "evbench: %s (rank %d) %s at %.2f s, detected after %.2f s: masked; events are "
               "built from the %d RU(s) left\n",
               r.unit.c_str(), peer, r.cause == "out of sync" ? "out of sync" : "lost", r.lost_at_s,
               r.detected_at_s - r.lost_at_s, left);
}

void EvmAgent::on_peer_lost(PeerId peer, int64_t now) {
  // A congestor (background:, reporting to this rank) is not the event
  // builder's: the ranks of its own entry end the run over it.
  if (topo_.congestor(peer)) return;
  const RankRoles& roles = topo_.ranks.at(peer);
  if (roles.ru >= 0 && !(mask_ && evm_.masked(roles.ru))) lose_ru(roles.ru, peer, now);
  if (roles.bu >= 0 && !evm_.excluded(roles.bu)) {
    const double kill = planned_kill_s(engine_.config(), topo_, peer);
    const int64_t lost_ns = kill >= 0 ? std::min(now, engine_.t0_ns() + s_to_ns(kill)) : now;
    exclude_bu(roles.bu, now, "peer lost", lost_ns);
  }
  maybe_stop();
}

void EvmAgent::exclude_bu(int bu, int64_t now, const char* cause, int64_t lost_ns) {
  const int credits = engine_.config().credits;
  std::vector<uint64_t> events;
  for (int s = 0; s < credits; ++s) {
    const size_t k = static_cast<size_t>(bu) * credits + s;
    if (held_[k]) events.push_back(slot_event_[k]);
    held_[k] = 0;
  }
  // Events of an earlier exclusion that this BU held are handed on again:
  // they stay with their first record.
  const size_t record = stats_.failures.size();
  evm_.exclude(bu, events);
  if (evm_.active() == 0)
    throw Error("EVM: every BU is lost or excluded (the last was BU " + std::to_string(bu) + ", " +
                engine_.peer_name(topo_.bu_rank[bu]) + "): no one left to build events");
  FailureRecord r;
  r.unit = "BU " + std::to_string(bu);
  r.bu = bu;
  r.rank = topo_.bu_rank[bu];
  r.cause = cause;
  r.lost_at_s = since_t0(lost_ns);
  r.detected_at_s = since_t0(now);
  r.action = "reassigned";
  r.reassigned = events.size();
  if (events.empty()) r.recovered_at_s = r.detected_at_s;
  stats_.failures.push_back(r);
  stats_.excluded_bus.push_back(bu);
  // Indexed like stats_.failures, whose records of lost RUs hold no events.
  open_per_record_.resize(stats_.failures.size(), 0);
  for (uint64_t e : events) {
    auto it = std::find_if(reassigned_open_.begin(), reassigned_open_.end(),
                           [&](const auto& p) { return p.first == e; });
    if (it != reassigned_open_.end()) continue;
    reassigned_open_.emplace_back(e, record);
    ++open_per_record_[record];
  }
  if (open_per_record_[record] == 0 && r.recovered_at_s < 0)
    stats_.failures[record].recovered_at_s = r.detected_at_s;
  std::fprintf(stderr,
               "evbench: BU %d (rank %d) %s %.2f s, detected after %.2f s, %zu events "
               "reassigned\n",
               bu, r.rank, std::string(cause) == "silent" ? "silent since" : "lost at", r.lost_at_s,
               r.detected_at_s - r.lost_at_s, events.size());
  // Slots left idle after assignment stopped take the reassigned events now.
  std::vector<IdleSlot> idle;
  idle.swap(idle_);
  for (const IdleSlot& i : idle)
    if (!evm_.excluded(i.bu)) serve(i.from, i.bu, i.slot);
  const Command ex{.type = CommandType::exclude, .bu = static_cast<uint32_t>(bu)};
  for (int n = 0; n < topo_.nodes; ++n) engine_.send_command(topo_.ru_rank[n], Channel::to_ru, ex);
  engine_.send_command(topo_.bu_rank[bu], Channel::to_bu, ex);
}

void EvmAgent::book_reassigned_built(uint64_t event, int64_t now) {
  if (reassigned_open_.empty()) return;
  auto it = std::find_if(reassigned_open_.begin(), reassigned_open_.end(),
                         [&](const auto& p) { return p.first == event; });
  if (it == reassigned_open_.end()) return;
  const size_t record = it->second;
  reassigned_open_.erase(it);
  if (--open_per_record_[record] > 0) return;
  FailureRecord& r = stats_.failures[record];
  r.recovered_at_s = since_t0(now);
  std::fprintf(stderr,
               "evbench: %s (rank %d): its %llu events built elsewhere, %.3f s after detection\n",
               r.unit.c_str(), r.rank, static_cast<unsigned long long>(r.reassigned),
               r.recovered_at_s - r.detected_at_s);
}

void EvmAgent::start(int64_t now) {
  const Config& c = engine_.config();
  last_heard_.assign(static_cast<size_t>(topo_.nodes), now);
  deadline_ns_ = c.events ? 0 : now + s_to_ns(c.duration_s);
  interval_ns_ = s_to_ns(c.report_interval_s);
  next_report_ns_ = now + interval_ns_;
  credits_ = c.credits;
  const size_t slots = static_cast<size_t>(topo_.nodes) * static_cast<size_t>(c.credits);
  parked_.reserve(slots);
  unparking_.reserve(slots);
  stats_.phases.assign(1, PhaseBook{});
}

void EvmAgent::begin_phase(int64_t now, size_t changes) {
  stats_.phases.push_back(PhaseBook{since_t0(now), changes});
}

void EvmAgent::on_command(PeerId from, const Command& cmd) {
  if (exclude_) {
    // Late deliveries of an excluded BU are discarded, not trusted.
    const int sender = topo_.ranks.at(from).bu;
    if (sender >= 0 && (cmd.type == CommandType::credit || cmd.type == CommandType::heartbeat) &&
        cmd.bu == static_cast<uint32_t>(sender)) {
      if (evm_.excluded(sender)) {
        if (cmd.type == CommandType::credit && cmd.value) ++stats_.late_discarded;
        return;
      }
      last_heard_[sender] = now_ns();
      if (cmd.type == CommandType::heartbeat) return;
    }
  }
  if (cmd.type == CommandType::desync) {
    on_desync(from, cmd);
    return;
  }
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
  // value: 0 a free slot, 1 its event finished, 2 built without a masked RU.
  if (cmd.value > 2 || (cmd.value == 2 && !mask_))
    refuse("finish flag " + std::to_string(cmd.value) +
           (cmd.value == 2 ? " (built masked) without on_ru_loss mask" : " is unknown"));
  // count: 1 when the BU counted the finished event in its window.
  if (cmd.count > 1 || (cmd.count && !cmd.value))
    refuse("window flag " + std::to_string(cmd.count) + " is unknown");
  if (cmd.value) {
    if (!held_[k]) refuse("the slot holds no event");
    if (cmd.event_id != slot_event_[k] && cmd.event_id != kEventUnknown)
      refuse("it reports another event finished in that slot");
    held_[k] = 0;
    if (cmd.value == 2)
      evm_.completed_masked(bu, slot_event_[k]);
    else
      evm_.completed(bu, slot_event_[k]);
    ++stats_.completed_per_bu[bu];
    if (exclude_) book_reassigned_built(cmd.event_id, now_ns());
    interval_bytes_ += cmd.bytes;
    bytes_built_ += cmd.bytes;
    ++interval_events_;
    if (exclude_) book_sample(now_ns(), cmd.bytes);  // only a lost rank needs them
    timeline_.add(now_ns() - engine_.t0_ns(), cmd.bytes);
    if (cmd.bytes) book_phase(cmd.bytes, cmd.count == 1);  // 0: a corrupt event, not built
  }
  serve(from, bu, cmd.slot);
  if (exclude_) release(false);
  maybe_stop();
}

void EvmAgent::book_phase(uint64_t bytes, bool in_window) {
  if (stats_.phases.empty()) return;  // a credit before start()
  PhaseBook& p = stats_.phases.back();
  ++p.events;
  p.bytes += bytes;
  if (in_window) {
    ++p.window_events;
    p.window_bytes += bytes;
  }
}

void EvmAgent::book_sample(int64_t now, uint64_t bytes) {
  const int64_t t = now - engine_.t0_ns();
  if (interval_ns_ <= 0 || t < 0) return;
  const size_t k = static_cast<size_t>(t / interval_ns_);
  if (stats_.evm_sample_bytes.size() <= k) {
    stats_.evm_sample_bytes.resize(k + 1, 0);
    stats_.evm_sample_events.resize(k + 1, 0);
  }
  stats_.evm_sample_bytes[k] += bytes;
  if (bytes) ++stats_.evm_sample_events[k];  // 0: a corrupt event, not built
}

void EvmAgent::release(bool final) {
  const auto w = evm_.take_release(final);
  if (!w) return;
  const Command r{.type = CommandType::release, .value = *w};
  // A masked RU is asked for nothing more: a watermark past what it was asked
  // for would be refused (a live one, masked for being out of sync).
  for (int n = 0; n < topo_.nodes; ++n)
    if (!(mask_ && evm_.masked(n))) engine_.send_command(topo_.ru_rank[n], Channel::to_ru, r);
  if (final) return;
  std::vector<IdleSlot> idle;
  idle.swap(idle_);
  for (const IdleSlot& i : idle)
    if (!evm_.excluded(i.bu)) serve(i.from, i.bu, i.slot);
}

void EvmAgent::serve(PeerId from, int bu, uint32_t slot) {
  if (paused_ || static_cast<int>(slot) >= credits_) {
    parked_.push_back({from, bu, slot});
    return;
  }
  const size_t k = static_cast<size_t>(bu) * engine_.config().credits + slot;
  if (auto e = evm_.assign(bu)) {
    held_[k] = 1;
    slot_event_[k] = *e;
    assign_event(from, bu, slot, *e);
  } else if (exclude_) {
    idle_.push_back({from, bu, slot});
  }
}

int EvmAgent::held_slots(int bu) const {
  const size_t credits = static_cast<size_t>(engine_.config().credits);
  int n = 0;
  for (size_t s = 0; s < credits; ++s) n += held_[static_cast<size_t>(bu) * credits + s];
  return n;
}

void EvmAgent::set_credits(int credits) {
  credits_ = credits;
  unpark();
}

void EvmAgent::set_paused(bool paused) {
  paused_ = paused;
  unpark();
}

void EvmAgent::unpark() {
  unparking_.clear();
  unparking_.swap(parked_);
  for (const IdleSlot& i : unparking_)
    if (!evm_.excluded(i.bu)) serve(i.from, i.bu, i.slot);
  maybe_stop();
}

void EvmAgent::maybe_stop() {
  if (evm_.stopping() && stopping_at_ns_ < 0) stopping_at_ns_ = now_ns();
  if (stop_sent_ || !evm_.drained()) return;
  stop_sent_ = true;
  stats_.rate_bins = timeline_.bins();
  stats_.rate_bin_s = ns_to_s(timeline_.bin_ns());
  stats_.assign_stopped_at_s = since_t0(stopping_at_ns_);
  stats_.events_assigned = evm_.assigned();
  stats_.max_outstanding_per_bu = static_cast<int>(evm_.max_outstanding());
  stats_.evm_masked_events = evm_.masked_events();
  if (exclude_) {
    release(true);  // the RUs hold nothing when they stop
    stats_.assignments_held_back = evm_.held_back();
  }
  for (int n = 0; n < topo_.nodes; ++n) {
    engine_.send_command(topo_.ru_rank[n], Channel::to_ru, Command{.type = CommandType::stop});
    if (!evm_.excluded(n))
      engine_.send_command(topo_.bu_rank[n], Channel::to_bu, Command{.type = CommandType::stop});
  }
}

void EvmAgent::on_tick(int64_t now) {
  if (deadline_ns_ && now >= deadline_ns_ && !evm_.stopping()) evm_.stop_assigning();
  if (exclude_ && !stop_sent_)
    for (int bu = 0; bu < topo_.nodes; ++bu)
      if (!evm_.excluded(bu) && now - last_heard_[bu] > detection_ns_)
        exclude_bu(bu, now, "silent", last_heard_[bu]);
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
  // This turn's assignments, in one message per peer (batch.events > 1).
  engine_.flush_commands(Channel::to_bu);
  engine_.flush_commands(Channel::to_ru);
}

int64_t EvmAgent::next_timer_ns() const {
  int64_t t = live_ ? next_report_ns_ : -1;
  if (exclude_ && !stop_sent_) {
    const int64_t check = now_ns() + detection_ns_ / 4;
    t = t < 0 ? check : std::min(t, check);
  }
  if (deadline_ns_ && !evm_.stopping()) t = t < 0 ? deadline_ns_ : std::min(t, deadline_ns_);
  return t;
}

std::string EvmAgent::waiting_for() const {
  if (!evm_.stopping()) return "EVM: credits from BUs";
  return "EVM: " + std::to_string(evm_.assigned() - evm_.completed_total()) +
         " assigned event(s) to be reported built";
}

}  // namespace evb
