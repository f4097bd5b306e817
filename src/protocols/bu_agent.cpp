#include "protocols/bu_agent.hpp"

#include <algorithm>
#include <cstdio>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "protocols/scheduling.hpp"

namespace evb {

BuAgent::BuAgent(Engine& engine, BuilderUnit& bu, FilterUnits& fus, const Topology& topo,
                 RankStats& stats, bool live)
    : engine_(engine), bu_(bu), fus_(fus), topo_(topo), stats_(stats), live_(live) {
  const Config& c = engine.config();
  protocol_ = c.protocol;
  id_ = engine_.add_agent(this);
  engine_.listen(Channel::to_bu, id_, c.credits + 1);  // assignments + stop
  slot_bytes_.assign(c.credits, 0);
  slot_event_.assign(c.credits, 0);
  stats_.bu = bu.index();
  next_event_ = static_cast<uint64_t>(bu.index());
}

void BuAgent::start(int64_t now) {
  const Config& c = engine_.config();
  warmup_ns_ = s_to_ns(c.warmup_s);
  end_ns_ = c.events ? 0 : s_to_ns(c.duration_s);
  interval_ns_ = s_to_ns(c.report_interval_s);
  next_report_ns_ = now + interval_ns_;
  for (uint32_t s = 0; s < static_cast<uint32_t>(c.credits); ++s) {
    switch (protocol_) {
      case Protocol::pull: {
        Command cmd{
            .type = CommandType::credit, .slot = s, .bu = static_cast<uint32_t>(bu_.index())};
        engine_.send_command(topo_.evm_rank, Channel::to_evm, cmd);
        break;
      }
      case Protocol::push: {
        post_push_receives(s);
        Command cmd{
            .type = CommandType::credit, .slot = s, .bu = static_cast<uint32_t>(bu_.index())};
        engine_.send_command(topo_.evm_rank, Channel::to_evm, cmd);
        break;
      }
      default: {
        uint64_t e;
        if (next_own_event(e)) begin_event(s, e, now);
        break;
      }
    }
  }
}

bool BuAgent::next_own_event(uint64_t& event) {
  const Config& c = engine_.config();
  if (stopped_) return false;
  if (c.events && next_event_ >= c.events) {
    stopped_ = true;
    return false;
  }
  event = next_event_;
  next_event_ += static_cast<uint64_t>(topo_.nodes);
  return true;
}

void BuAgent::post_push_receives(uint32_t slot) {
  for (int r = 0; r < bu_.nru(); ++r)
    engine_.recv(topo_.ru_rank[r], data_tag(slot), bu_.window(slot, r), bu_.window_size(r),
                 cookie(slot, r));
}

void BuAgent::begin_event(uint32_t slot, uint64_t event, int64_t now) {
  const Config& c = engine_.config();
  bu_.start(slot, event, visit_order(c.scheduling, bu_.index(), bu_.nru(), c.seed, event), now);
  ++busy_slots_;
  stats_.max_events_in_flight = std::max(stats_.max_events_in_flight, busy_slots_);
  issue_requests(slot);
}

void BuAgent::issue_requests(uint32_t slot) {
  EventSlot& e = bu_.slot(slot);
  const int parallel = engine_.config().parallel;
  while (e.in_flight < parallel && e.next < bu_.nru()) {
    const int r = e.order[e.next++];
    const int rank = topo_.ru_rank[r];
    engine_.recv(rank, data_tag(slot), bu_.window(slot, r), bu_.window_size(r), cookie(slot, r));
    Command cmd{.type = CommandType::pull_request,
                .event_id = e.event,
                .slot = slot,
                .bu = static_cast<uint32_t>(bu_.index()),
                .ru = static_cast<uint32_t>(r)};
    engine_.send_command(rank, Channel::to_ru, cmd);
    ++e.in_flight;
    stats_.max_requests_in_flight = std::max(stats_.max_requests_in_flight, e.in_flight);
  }
}

void BuAgent::on_command(PeerId from, const Command& cmd) {
  switch (cmd.type) {
    case CommandType::assign:
      begin_event(cmd.slot, cmd.event_id, now_ns());
      break;
    case CommandType::stop:
      stopped_ = true;
      break;
    default:
      throw PeerError(from, "BU " + std::to_string(bu_.index()) + ": unexpected command " +
                                std::to_string(static_cast<int>(cmd.type)) + " from " +
                                engine_.peer_name(from));
  }
}

void BuAgent::on_completion(const Completion& c) {
  if (c.type != OpType::recv) return;
  const uint64_t v = Engine::cookie_value(c.cookie);
  const auto slot = static_cast<uint32_t>(v >> 24);
  const int r = static_cast<int>(v & 0xFFFFFF);
  EventSlot& e = bu_.slot(slot);
  if (protocol_ == Protocol::push && e.state == SlotState::free) {
    const auto* h = reinterpret_cast<const FragmentHeader*>(bu_.window(slot, r));
    bu_.start(slot, h->event_id, {}, now_ns());
    ++busy_slots_;
    stats_.max_events_in_flight = std::max(stats_.max_events_in_flight, busy_slots_);
  }
  if (e.in_flight > 0) --e.in_flight;
  bu_.accept(slot, r, c.bytes);
  if (bu_.complete(slot))
    finish_event(slot, now_ns());
  else if (protocol_ != Protocol::push)
    issue_requests(slot);
}

void BuAgent::finish_event(uint32_t slot, int64_t now) {
  EventSlot& e = bu_.slot(slot);
  e.state = SlotState::complete;
  const int64_t t = now - engine_.t0_ns();
  if (e.bad) {
    ++bu_.integrity().bad_events;
  } else {
    ++stats_.events_built;
    stats_.latency.add(now - e.started_ns);
    stats_.book(t, e.bytes, 1, warmup_ns_, end_ns_, interval_ns_);
  }
  slot_bytes_[slot] = e.bad ? 0 : e.bytes;
  slot_event_[slot] = e.event;
  fus_.offer(slot, e.event, now);
  on_tick(now);
}

void BuAgent::slot_released(uint32_t slot, uint64_t event, uint64_t bytes) {
  bu_.release(slot);
  --busy_slots_;
  switch (protocol_) {
    case Protocol::pull:
    case Protocol::push: {
      if (protocol_ == Protocol::push) post_push_receives(slot);
      Command cmd{.type = CommandType::credit,
                  .event_id = event,
                  .slot = slot,
                  .bu = static_cast<uint32_t>(bu_.index()),
                  .bytes = bytes,
                  .value = 1};
      engine_.send_command(topo_.evm_rank, Channel::to_evm, cmd);
      break;
    }
    default: {
      uint64_t e;
      if (next_own_event(e)) begin_event(slot, e, now_ns());
      break;
    }
  }
}

void BuAgent::on_tick(int64_t now) {
  for (uint32_t slot : fus_.finished(now))
    slot_released(slot, slot_event_[slot], slot_bytes_[slot]);
  if (live_ && interval_ns_ > 0 && now >= next_report_ns_) {
    const double secs = ns_to_s(interval_ns_);
    std::fprintf(stderr, "# t=%6.1f s  BU %d: events/s %10.1f  %8.2f Gb/s  (this node only)\n",
                 ns_to_s(now - engine_.t0_ns()), bu_.index(),
                 (stats_.events_built - reported_events_) / secs,
                 (stats_.bytes_total - reported_bytes_) * 8.0 / secs / 1e9);
    reported_bytes_ = stats_.bytes_total;
    reported_events_ = stats_.events_built;
    next_report_ns_ += interval_ns_;
  }
  if (protocol_ == Protocol::pull_noevm) {
    if (!stopped_ && end_ns_ && now - engine_.t0_ns() >= end_ns_) stopped_ = true;
    if (stopped_ && busy_slots_ == 0 && !done_sent_) {
      done_sent_ = true;
      for (int r = 0; r < topo_.nodes; ++r) {
        Command cmd{.type = CommandType::bu_done, .bu = static_cast<uint32_t>(bu_.index())};
        engine_.send_command(topo_.ru_rank[r], Channel::to_ru, cmd);
      }
    }
  }
}

int64_t BuAgent::next_timer_ns() const {
  int64_t t = fus_.next_deadline();
  if (live_) t = t < 0 ? next_report_ns_ : std::min(t, next_report_ns_);
  if (protocol_ == Protocol::pull_noevm && end_ns_ && !stopped_) {
    const int64_t d = engine_.t0_ns() + end_ns_;
    t = t < 0 ? d : std::min(t, d);
  }
  return t;
}

bool BuAgent::done() const {
  if (protocol_ == Protocol::pull_noevm) return done_sent_;
  return stopped_ && (protocol_ == Protocol::push || busy_slots_ == 0);
}

std::string BuAgent::waiting_for() const {
  std::string s = "BU " + std::to_string(bu_.index()) + ": ";
  int n = 0;
  for (const EventSlot& e : bu_.slots()) {
    if (e.state != SlotState::building) continue;
    std::string missing;
    for (int r = 0; r < bu_.nru(); ++r)
      if (e.have.size() > static_cast<size_t>(r) && !e.have[r] &&
          (protocol_ == Protocol::push ||
           std::find(e.order.cbegin(), e.order.cbegin() + e.next, r) != e.order.cbegin() + e.next))
        missing += (missing.empty() ? "" : ",") + engine_.peer_name(topo_.ru_rank[r]);
    s += (n++ ? "; " : "") + std::string("event ") + std::to_string(e.event) +
         " missing fragments from " + missing;
  }
  if (n == 0) s += stopped_ ? "FUs to finish" : "events from the EVM";
  return s;
}

}  // namespace evb
