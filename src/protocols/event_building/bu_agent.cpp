#include "protocols/event_building/bu_agent.hpp"

#include <algorithm>
#include <cstdio>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "protocols/event_building/scheduling.hpp"

namespace evb {

BuAgent::BuAgent(Engine& engine, BuilderUnit& bu, FilterUnits& fus, const Registration& windows,
                 const Topology& topo, EventBuildingStats& stats, bool write_path, bool live)
    : engine_(engine),
      bu_(bu),
      fus_(fus),
      windows_(windows),
      topo_(topo),
      stats_(stats),
      write_path_(write_path),
      live_(live) {
  const Config& c = engine.config();
  id_ = engine_.add_agent(this);
  engine_.listen(Channel::to_bu, id_, c.credits + 1);  // assignments + stop
  if (write_path_) engine_.listen_writes(id_);
  slot_bytes_.assign(c.credits, 0);
  slot_in_window_.assign(c.credits, 0);
  slot_event_.assign(c.credits, 0);
  released_at_assign_.assign(c.credits, 0);
  stats_.bu = bu.index();
  warmup_ns_ = s_to_ns(c.warmup_s);
  end_ns_ = c.events ? 0 : s_to_ns(c.duration_s);
  interval_ns_ = s_to_ns(c.report_interval_s);
  if (c.on_failure == OnFailure::exclude && topo.evm_rank >= 0)
    heartbeat_ns_ = std::max<int64_t>(1, s_to_ns(c.failure_detection_s) / 4);
  lost_ru_.assign(static_cast<size_t>(topo.nodes), 0);
  mask_ = heartbeat_ns_ > 0 && c.on_ru_loss == OnRuLoss::mask;
  slot_masked_.assign(c.credits, 0);
  if (mask_) stats_.masked_per_ru.assign(static_cast<size_t>(topo.nodes), 0);
  kept_.assign(static_cast<size_t>(topo.nodes), 0);
  parallel_ = c.parallel;
  bytes_from_ru_.assign(static_cast<size_t>(topo.nodes), 0);
}

int BuAgent::requests_in_flight() const {
  int n = 0;
  for (const EventSlot& e : bu_.slots())
    if (e.state == SlotState::building) n += e.in_flight;
  return n;
}

void BuAgent::on_peer_lost(PeerId peer, int64_t now) {
  if (topo_.congestor(peer)) return;  // not the event builder's (see EvmAgent)
  if (excluded_) return;
  if (peer == topo_.evm_rank)
    throw Error("BU " + std::to_string(bu_.index()) + ": the EVM, " + engine_.peer_name(peer) +
                ", was lost; the run cannot go on without it");
  const int ru = topo_.ranks.at(peer).ru;
  if (ru < 0 || lost_ru_[ru]) return;
  write_off(ru);
  on_tick(now);
}

void BuAgent::write_off(int ru) {
  lost_ru_[ru] = 1;
  ++lost_rus_;
  for (uint32_t s = 0; s < bu_.slots().size(); ++s) {
    // A request to the RU will not be answered (or its answer is dropped):
    // it no longer counts against `parallel`, and the next RUs are asked.
    EventSlot& e = bu_.slot(s);
    if (e.state == SlotState::building && !e.have.empty() && !e.have[ru] && requested(e, ru) &&
        e.in_flight > 0) {
      --e.in_flight;
      after_fragment(s);
    }
    check_incomplete(s);
  }
}

void BuAgent::masked_by(PeerId from, const Command& cmd) {
  if (from != topo_.evm_rank || !mask_ || cmd.ru >= static_cast<uint32_t>(topo_.nodes))
    throw PeerError(from, "BU " + std::to_string(bu_.index()) + ": a mask command from " +
                              engine_.peer_name(from) + " refused");
  mask_out_of_sync(static_cast<int>(cmd.ru));
}

void BuAgent::mask_out_of_sync(int ru) {
  if (excluded_ || lost_ru_[ru]) return;
  write_off(ru);
  on_tick(now_ns());
}

void BuAgent::check_incomplete(uint32_t slot) {
  if (lost_rus_ == 0 || excluded_ || !bu_.complete_but(slot, lost_ru_)) return;
  EventSlot& e = bu_.slot(slot);
  if (mask_) {
    // Built from the RUs left; each RU it lacks is counted (never built
    // short silently). A corrupt one is not built (bad_events).
    if (!e.bad) {
      ++stats_.masked_events;
      for (int r = 0; r < bu_.nru(); ++r)
        if (!e.have[r]) ++stats_.masked_per_ru[r];
    }
    finish_event(slot, now_ns(), true);
    return;
  }
  e.state = SlotState::complete;
  slot_masked_[slot] = 0;
  slot_in_window_[slot] = 0;
  ++stats_.incomplete_lost_peer;
  const uint64_t event = e.event;
  bu_.release(slot);
  --busy_slots_;
  slot_released(slot, event, 0);
}

void BuAgent::excluded_by(PeerId from, const Command& cmd) {
  if (from != topo_.evm_rank || cmd.bu != static_cast<uint32_t>(bu_.index()))
    throw PeerError(from, "BU " + std::to_string(bu_.index()) + ": an exclusion from " +
                              engine_.peer_name(from) + " refused");
  std::fprintf(stderr, "evbench: BU %d: excluded by the EVM (silent too long); leaving the run\n",
               bu_.index());
  excluded_ = true;
  stopped_ = true;
  for (uint32_t s = 0; s < bu_.slots().size(); ++s)
    if (bu_.slot(s).state != SlotState::free) ++stats_.late_discarded;
}

void BuAgent::begin_event(uint32_t slot, uint64_t event, int64_t now) {
  const Config& c = engine_.config();
  fill_visit_order(c, bu_.index(), bu_.nru(), event, order_);
  bu_.start(slot, event, order_, now);
  ++busy_slots_;
  ++stats_.events_started;
  stats_.max_events_in_flight = std::max(stats_.max_events_in_flight, busy_slots_);
}

void BuAgent::expect_fragment(uint32_t slot, int ru) {
  if (write_path_ || ru_lost(ru)) return;
  engine_.recv(topo_.ru_rank[ru], data_tag(slot), bu_.window(slot, ru), bu_.window_size(ru),
               &windows_, cookie(slot, ru));
}

void BuAgent::request_fragments(uint32_t slot) {
  EventSlot& e = bu_.slot(slot);
  const int parallel = parallel_;
  while (e.in_flight < parallel && e.next < bu_.nru()) {
    const int r = e.order[e.next++];
    if (ru_lost(r)) continue;
    if (local_ru_ && r == local_ru_->index()) {
      // In place: nothing to ask, nothing to copy; checked when it "arrives".
      engine_.complete_locally(Completion{cookie(slot, r), OpType::recv, OpStatus::ok,
                                          engine_.rank(), data_tag(slot), 0});
      ++e.in_flight;
      continue;
    }
    expect_fragment(slot, r);
    engine_.batch_command(topo_.ru_rank[r], Channel::to_ru,
                          Command{.type = CommandType::pull_request,
                                  .event_id = e.event,
                                  .slot = slot,
                                  .bu = static_cast<uint32_t>(bu_.index()),
                                  .ru = static_cast<uint32_t>(r),
                                  .value = released_at_assign_[slot]});
    ++e.in_flight;
    stats_.max_requests_in_flight = std::max(stats_.max_requests_in_flight, e.in_flight);
  }
}

void BuAgent::send_credit(uint32_t slot, uint64_t event, uint64_t bytes, bool finished) {
  engine_.batch_command(topo_.evm_rank, Channel::to_evm,
                        Command{.type = CommandType::credit,
                                .event_id = event,
                                .slot = slot,
                                .bu = static_cast<uint32_t>(bu_.index()),
                                .count = finished ? slot_in_window_[slot] : 0u,
                                .bytes = bytes,
                                .value = !finished            ? 0u
                                         : slot_masked_[slot] ? 2u
                                                              : 1u});
}

bool BuAgent::asked(const EventSlot& e, int ru) {
  return std::find(e.order.cbegin(), e.order.cbegin() + e.next, ru) != e.order.cbegin() + e.next;
}

void BuAgent::on_completion(const Completion& c) {
  if (c.status != OpStatus::ok) return;  // on_failure exclude: from a lost peer
  if (excluded_) {
    if (c.type == OpType::recv || c.type == OpType::remote_write) ++stats_.late_discarded;
    return;
  }
  if (c.type == OpType::recv) {
    const uint64_t v = Engine::cookie_value(c.cookie);
    fragment(static_cast<uint32_t>(v >> 24), static_cast<int>(v & 0xFFFFFF), c.bytes, c.peer);
  } else if (c.type == OpType::remote_write) {
    const uint32_t nru = static_cast<uint32_t>(bu_.nru());
    const uint32_t slot = c.immediate / nru;
    const int ru = static_cast<int>(c.immediate % nru);
    if (slot >= bu_.slots().size())
      throw PeerError(c.peer, "BU " + std::to_string(bu_.index()) + ": a write from " +
                                  engine_.peer_name(c.peer) + " names no slot of this BU");
    fragment(slot, ru, c.bytes, c.peer);
  }
}

void BuAgent::fragment(uint32_t slot, int ru, size_t bytes, PeerId from) {
  if (mask_ && ru_lost(ru)) {
    ++stats_.late_discarded;  // masked (out of sync) but alive: its answers are dropped
    return;
  }
  if (!before_fragment(slot, ru)) return;
  bytes_from_ru_[static_cast<size_t>(ru)] += bytes;
  ++fragments_received_;
  ++stats_.fragments_received;
  stats_.arrival_bytes_total += bytes;
  if (const int64_t t = now_ns() - engine_.t0_ns();
      t >= warmup_ns_ && (end_ns_ <= 0 || t <= end_ns_))
    stats_.arrival_bytes_in_window += bytes;
  EventSlot& e = bu_.slot(slot);
  if (e.state != SlotState::building)
    throw PeerError(from, "BU " + std::to_string(bu_.index()) + ": a fragment from " +
                              engine_.peer_name(from) + " for a slot that is not building");
  if (e.in_flight > 0) --e.in_flight;
  if (local_ru_ && ru == local_ru_->index() && from == engine_.rank()) {
    const FragmentView f = local_ru_->fragment(e.event);
    const uint64_t head = local_ru_->head_bytes();  // header, and a MEP's table
    local_head_.resize((head + 7) / 8);
    auto& h = *reinterpret_cast<FragmentHeader*>(local_head_.data());
    local_ru_->fill_header(h, f, e.event, bu_.index());
    const uint64_t meta = static_cast<uint64_t>(h.meta_size) * h.meta_segments;
    const auto* head_bytes = reinterpret_cast<const uint8_t*>(local_head_.data());
    bu_.accept_in_place(slot, ru, head_bytes, f.meta, head + meta + f.payload_size);
    ++stats_.fragments_in_place;
    if (const OutOfSync* o = bu_.out_of_sync()) ru_out_of_sync(*o, head_bytes, f.meta);
  } else if (!bu_.accept(slot, ru, bytes)) {
    if (const OutOfSync* o = bu_.out_of_sync()) {
      const uint8_t* w = bu_.window(slot, ru);
      if (o->expected_from < 0)
        ru_out_of_sync(*o, w, w + bu_.head_bytes());
      else
        label_disagreement(*o);
    }
  }
  if (bu_.complete(slot)) {
    finish_event(slot, now_ns());
  } else {
    after_fragment(slot);
    check_incomplete(slot);
  }
}

void BuAgent::finish_event(uint32_t slot, int64_t now, bool masked) {
  EventSlot& e = bu_.slot(slot);
  e.state = SlotState::complete;
  slot_masked_[slot] = masked && !e.bad;
  const int64_t t = now - engine_.t0_ns();
  slot_in_window_[slot] = 0;
  if (e.bad) {
    ++bu_.integrity().bad_events;
  } else if (e.desync) {
    ++bu_.integrity().out_of_sync_events;
  } else {
    ++stats_.events_built;
    stats_.latency.add(now - e.started_ns);
    slot_in_window_[slot] =
        stats_.book(t, e.bytes, e.bytes - e.own_bytes, 1, warmup_ns_, end_ns_, interval_ns_);
  }
  slot_bytes_[slot] = e.bad || e.desync ? 0 : e.bytes;
  slot_event_[slot] = e.event;
  if (hold_finished(slot)) return;
  fus_.offer(slot, e.event, now);
  on_tick(now);
}

void BuAgent::release_held(uint32_t slot, int64_t now) {
  const EventSlot& e = bu_.slot(slot);
  slot_event_[slot] = e.event;
  fus_.offer(slot, e.event, now);
  on_tick(now);
}

void BuAgent::on_tick(int64_t now) {
  if (excluded_) return;
  if (heartbeat_ns_ && !stopped_ && now >= next_heartbeat_ns_) {
    next_heartbeat_ns_ = now + heartbeat_ns_;
    engine_.send_command(
        topo_.evm_rank, Channel::to_evm,
        Command{.type = CommandType::heartbeat, .bu = static_cast<uint32_t>(bu_.index())});
  }
  for (uint32_t slot : fus_.finished(now)) {
    bu_.release(slot);
    --busy_slots_;
    slot_released(slot, slot_event_[slot], slot_bytes_[slot]);
  }
  if (live_ && interval_ns_ > 0) {
    if (next_report_ns_ == 0) next_report_ns_ = engine_.t0_ns() + interval_ns_;
    if (now >= next_report_ns_) {
      const double secs = ns_to_s(interval_ns_);
      std::fprintf(stderr, "# t=%6.1f s  BU %d: events/s %10.1f  %8.2f Gb/s  (this node only)\n",
                   ns_to_s(now - engine_.t0_ns()), bu_.index(),
                   (stats_.events_built - reported_events_) / secs,
                   (stats_.bytes_total - reported_bytes_) * 8.0 / secs / 1e9);
      reported_bytes_ = stats_.bytes_total;
      reported_events_ = stats_.events_built;
      next_report_ns_ += interval_ns_;
    }
  }
  protocol_tick(now);
  engine_.flush_commands(Channel::to_ru);  // the requests of this turn's events
}

int64_t BuAgent::next_timer_ns() const {
  int64_t t = fus_.next_deadline();
  auto earliest = [&t](int64_t d) {
    if (d >= 0) t = t < 0 ? d : std::min(t, d);
  };
  if (live_ && next_report_ns_) earliest(next_report_ns_);
  if (heartbeat_ns_ && !stopped_) earliest(next_heartbeat_ns_);
  earliest(protocol_timer_ns());
  return t;
}

std::string BuAgent::waiting_for() const {
  std::string s = "BU " + std::to_string(bu_.index()) + ": ";
  int n = 0;
  for (const EventSlot& e : bu_.slots()) {
    if (e.state != SlotState::building) continue;
    std::string missing;
    for (int r = 0; r < bu_.nru(); ++r)
      if (e.have.size() > static_cast<size_t>(r) && !e.have[r] && requested(e, r))
        missing += (missing.empty() ? "" : ",") + engine_.peer_name(topo_.ru_rank[r]);
    s += (n++ ? "; " : "") + std::string("event ") + std::to_string(e.event) +
         " missing fragments from " + missing;
  }
  if (n == 0) s += stopped_ ? "FUs to finish" : "events from the EVM";
  return s;
}

}  // namespace evb
