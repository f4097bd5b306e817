#include "protocols/background/congestor_run.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <string>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/messages.hpp"

namespace evb {
namespace {

using Kind = CongestorRun::Kind;

// Data and done messages (a done is one byte) on the data channel's tag: a
// simulated network (the credit model's lanes, sim/exec/connections.hpp)
// carries them as data, counted and not copied, the rest as commands.
constexpr Tag kDataTag = static_cast<Tag>(Channel::data);
constexpr Tag kKeyTag = 2;  // write-incast: the target's window key
constexpr Tag kAckTag = 3;  // acks (one byte) and fins (two) back to a sender
constexpr size_t kAck = 1;
constexpr size_t kFin = 2;
constexpr size_t kAckSlot = CongestorBuffers::kAckSlot;

uint64_t cookie(Kind kind, size_t index, size_t slot) {
  return (static_cast<uint64_t>(kind) << 56) | (static_cast<uint64_t>(index) << 24) | slot;
}
Kind kind_of(uint64_t c) {
  return static_cast<Kind>(c >> 56);
}
size_t index_of(uint64_t c) {
  return static_cast<size_t>((c >> 24) & 0xFFFFFFFFull);
}
size_t slot_of(uint64_t c) {
  return static_cast<size_t>(c & 0xFFFFFFull);
}

constexpr size_t kSmall = CongestorBuffers::kSmall;

// How long a blocking rank waits for a completion before it looks at the
// clock again: up to the next thing it must do (start, stop) once its
// traffic runs, at most the engine's 10 ms, and 1 ms before its start,
// where it has only receives posted (a driver may wait a long timeout out
// in full when nothing completes: the mpi driver under SMPI, in
// MPI_Waitany; a short one it polls, where SMPI's MPI_Testany never
// reports a finished eager send such as an ack).
constexpr int64_t kShortWaitNs = 1'000'000;
constexpr int64_t kLongWaitNs = 10'000'000;
int64_t congestor_wait_ns(int64_t now, bool started, int64_t start, int64_t stop) {
  if (!started) return std::min(kShortWaitNs, start - now);
  return now < stop ? std::min(kLongWaitNs, stop - now) : kLongWaitNs;
}

}  // namespace

CongestorRun::CongestorRun(const ProtocolContext& ctx)
    : ctx_(ctx),
      spec_(ctx.config.background.at(
          static_cast<size_t>(ctx.topo.congestor(ctx.boot.rank())->entry))) {
  const CongestorRank& me = *ctx.topo.congestor(ctx.boot.rank());
  plan_ = plan_congestor(spec_, ctx.topo.entry_ranks(me.entry), me.member);
  counts_.entry = me.entry;
  counts_.member = me.member;
  if (ctx.topo.congestors_report) link_.emplace(ctx.driver, ctx.config, ctx.topo, ctx.boot.rank());
}

void CongestorRun::set_up() {
  Driver& d = ctx_.driver;
  // The event builder's ranks advertise their BU windows with one
  // collective over every rank (exchange_windows); a congestor takes its
  // part with nothing to advertise.
  if (ctx_.config.data_path == DataPath::write) ctx_.boot.allgather(std::string());
  const Capabilities caps = d.capabilities();
  if (spec_.size > caps.max_message)
    throw ConfigError("background: a " + std::to_string(spec_.size) + " B message is above " +
                      d.name() + "'s largest (" + std::to_string(caps.max_message) + " B)");
  if (plan_.writes) require_capability(d, caps.rdma_write, "rdma_write", "background write-incast");
  if (link_) link_->set_up();
  const size_t per_source = static_cast<size_t>(spec_.in_flight);
  // Sized as the memory check counts them (congestor_plan.hpp).
  const CongestorBuffers sizes = congestor_buffers(spec_, plan_);
  send_buffer_ = AlignedBuffer(sizes.send);
  send_reg_ = d.register_memory(send_buffer_.data(), send_buffer_.size());
  recv_buffer_ = AlignedBuffer(sizes.recv);
  recv_reg_ = d.register_memory(recv_buffer_.data(), recv_buffer_.size());
  if (plan_.writes && !plan_.sources.empty()) {
    // The target: a window for the writes, its key sent to each source.
    window_ = d.allocate_memory(sizes.window, ctx_.config.page_size);
    const auto& key = window_->packed_key();
    std::copy(key.begin(), key.end(), reinterpret_cast<std::byte*>(send_buffer_.data()));
    for (size_t s = 0; s < plan_.sources.size(); ++s) {
      const Segment seg{send_buffer_.data(), key.size(), send_reg_.get()};
      d.post_send(plan_.sources[s], kKeyTag, std::span(&seg, 1), cookie(key_send, s, 0));
      ++other_outstanding_;
    }
  }
  if (plan_.writes && !plan_.targets.empty()) {
    // A source: the target's key, before the start barrier.
    d.post_recv(plan_.targets[0], kKeyTag, recv_buffer_.data(), kSmall, recv_reg_.get(),
                cookie(key_recv, 0, 0));
    const int64_t give_up = now_ns() + s_to_ns(ctx_.config.peer_timeout_s);
    std::array<Completion, 8> got{};
    while (target_keys_.empty()) {
      const size_t n = d.poll(got);
      for (size_t i = 0; i < n; ++i) {
        const Completion& c = got[i];
        if (c.status != OpStatus::ok || kind_of(c.cookie) != key_recv)
          throw PeerError(c.peer, "background write-incast: no window key from rank " +
                                      std::to_string(plan_.targets[0]) + ": " + d.last_error());
        target_keys_.push_back(d.unpack_key(
            c.peer, std::span(reinterpret_cast<const std::byte*>(recv_buffer_.data()), c.bytes)));
      }
      if (target_keys_.empty() && now_ns() > give_up)
        throw PeerError(plan_.targets[0], "background write-incast: rank " +
                                              std::to_string(plan_.targets[0]) +
                                              " sent no window key within peer_timeout");
      if (n == 0) idle(kShortWaitNs);
    }
  }
  // Receives for everything the sources will send, posted before any starts;
  // a sender's receives for the acks and fins of its targets.
  for (size_t s = 0; s < plan_.sources.size(); ++s)
    for (size_t k = 0; k < (plan_.writes ? 1 : per_source); ++k) post_recv(s, k);
  dones_expected_ =
      static_cast<int64_t>(plan_.sources.size()) * (plan_.writes ? 1 : spec_.in_flight);
  credits_.assign(plan_.targets.size(), spec_.in_flight);
  if (plan_.writes || plan_.targets.empty()) return;
  ack_buffer_ = AlignedBuffer(sizes.ack);
  ack_reg_ = d.register_memory(ack_buffer_.data(), ack_buffer_.size());
  for (size_t t = 0; t < plan_.targets.size(); ++t)
    for (size_t k = 0; k < per_source; ++k) post_ack_recv(t, k);
  fins_expected_ = static_cast<int64_t>(plan_.targets.size()) * spec_.in_flight;
}

void CongestorRun::post_ack_recv(size_t target, size_t slot) {
  const size_t at = (target * static_cast<size_t>(spec_.in_flight) + slot) * kAckSlot;
  ctx_.driver.post_recv(plan_.targets[target], kAckTag, ack_buffer_.data() + at, kAckSlot,
                        ack_reg_.get(), cookie(ack_recv, target, slot));
}

void CongestorRun::post_recv(size_t source, size_t slot) {
  const size_t size = plan_.writes ? kSmall : static_cast<size_t>(spec_.size);
  const size_t at = plan_.writes ? source * kSmall
                                 : (source * static_cast<size_t>(spec_.in_flight) + slot) * size;
  ctx_.driver.post_recv(plan_.sources[source], kDataTag, recv_buffer_.data() + at, size,
                        recv_reg_.get(), cookie(recv, source, slot));
}

void CongestorRun::post_data(size_t target, size_t slot) {
  const Segment seg{send_buffer_.data(), static_cast<size_t>(spec_.size), send_reg_.get()};
  if (plan_.writes) {
    ctx_.driver.rdma_write(plan_.targets[target], std::span(&seg, 1), *target_keys_.at(target),
                           slot * spec_.size, std::nullopt, cookie(data, target, slot));
  } else {
    --credits_[target];
    ++unacked_;
    ctx_.driver.post_send(plan_.targets[target], kDataTag, std::span(&seg, 1),
                          cookie(data, target, slot));
  }
  ++data_outstanding_;
}

bool CongestorRun::sending() const {
  // Switched on within its window, or still waiting for what it sent: until
  // then its counts may grow.
  const bool on = started_ && !stopping_ && (!link_ || link_->on());
  return on || unacked_ > 0 || data_outstanding_ > 0;
}

void CongestorRun::send_or_park(size_t target, size_t slot) {
  if (stopping_) return;
  if (link_ && !link_->on()) {
    parked_.emplace_back(target, slot);
    return;
  }
  post_data(target, slot);
}

void CongestorRun::unpark() {
  if (stopping_) return;
  for (const auto& [target, slot] : parked_) post_data(target, slot);
  parked_.clear();
}

void CongestorRun::post_small(Kind kind, int peer, size_t index, size_t bytes) {
  const Segment seg{send_buffer_.data(), bytes, send_reg_.get()};
  ctx_.driver.post_send(peer, kind == done ? kDataTag : kAckTag, std::span(&seg, 1),
                        cookie(kind, index, 0));
  ++other_outstanding_;
}

void CongestorRun::send_dones() {
  for (size_t t = 0; t < plan_.targets.size(); ++t)
    for (int k = 0; k < (plan_.writes ? 1 : spec_.in_flight); ++k)
      post_small(done, plan_.targets[t], t, 1);
  done_sent_ = true;
}

void CongestorRun::handle(const Completion& c, int64_t now) {
  if (link_ && c.type != OpType::peer_event && c.status == OpStatus::ok &&
      CongestorLink::owns(c.cookie)) {
    link_->handle(c);
    return;
  }
  if (c.type == OpType::peer_event || c.status != OpStatus::ok)
    throw PeerError(
        c.peer,
        "background: rank " + std::to_string(ctx_.boot.rank()) + " lost rank " +
            std::to_string(c.peer) +
            (ctx_.driver.last_error().empty() ? std::string() : ": " + ctx_.driver.last_error()));
  const size_t index = index_of(c.cookie);
  const auto count = [&] {
    ++counts_.messages;
    counts_.bytes += spec_.size;
    counts_.last_ns = now - t0_;
  };
  switch (kind_of(c.cookie)) {
    case data:  // a send left (or a write landed)
      --data_outstanding_;
      if (!plan_.writes) break;
      count();
      send_or_park(index, slot_of(c.cookie));
      break;
    case ack_recv:  // a target took a data message (ack) or a done (fin)
      if (c.bytes == kFin) {
        ++fins_received_;
        break;
      }
      count();
      --unacked_;
      ++credits_[index];
      post_ack_recv(index, slot_of(c.cookie));
      send_or_park(index, slot_of(c.cookie));
      break;
    case recv:
      if (c.bytes == spec_.size && !plan_.writes) {
        ++counts_.received_messages;
        counts_.received_bytes += c.bytes;
        post_recv(index, slot_of(c.cookie));
        post_small(ack_send, plan_.sources[index], index, kAck);
      } else {
        ++dones_received_;
        if (!plan_.writes) post_small(ack_send, plan_.sources[index], index, kFin);
      }
      break;
    case done:
    case key_send:
    case ack_send:
      --other_outstanding_;
      break;
    case key_recv:
      throw Error("background: a second window key arrived");
  }
}

bool CongestorRun::finished() const {
  return done_sent_ && (!link_ || link_->idle()) && data_outstanding_ == 0 &&
         other_outstanding_ == 0 && dones_received_ == dones_expected_ &&
         fins_received_ == fins_expected_;
}

void CongestorRun::idle(int64_t wait_ns) {
  if (ctx_.mode == PollMode::yield) sched_yield();
  if (ctx_.mode == PollMode::block)
    ctx_.driver.wait(std::chrono::microseconds(std::max<int64_t>(1, wait_ns / 1000)));
}

void CongestorRun::run() {
  t0_ = now_ns();
  const int64_t start = t0_ + s_to_ns(spec_.start_s);
  const double stop_s =
      spec_.stop_s < 0 ? ctx_.config.warmup_s + ctx_.config.duration_s : spec_.stop_s;
  const int64_t stop = t0_ + s_to_ns(stop_s);
  const int64_t timeout = s_to_ns(ctx_.config.peer_timeout_s);
  int64_t last_progress = t0_;
  if (link_) link_->start(t0_);
  std::array<Completion, 32> got{};
  while (!finished()) {
    const int64_t now = now_ns();
    if (!started_ && now >= start && now < stop) {
      counts_.first_ns = now - t0_;
      for (size_t t = 0; t < plan_.targets.size(); ++t)
        for (size_t k = 0; k < static_cast<size_t>(spec_.in_flight); ++k) send_or_park(t, k);
    }
    started_ = started_ || now >= start;
    stopping_ = now >= stop;
    if (link_) {
      // Held credits go out whenever the entry is on: a stop and a start
      // can both arrive while this rank was not running (a loaded host).
      if (link_->on() && !parked_.empty()) unpark();
      // Reports end at stop: the EVM's rank may be done by the time the
      // traffic has wound down.
      if (!stopping_) link_->tick(now, counts_, sending());
    }
    if (stopping_ && !done_sent_ && data_outstanding_ == 0 && unacked_ == 0) send_dones();
    const size_t n = ctx_.driver.poll(got);
    for (size_t i = 0; i < n; ++i) handle(got[i], now);
    if (n > 0) last_progress = now;
    if (stopping_ && now - std::max(last_progress, stop) > timeout)
      throw Error("background: rank " + std::to_string(ctx_.boot.rank()) +
                  " waited peer_timeout for its peers to end their traffic");
    if (n == 0) idle(congestor_wait_ns(now, started_, start, stop));
  }
  if (counts_.messages == 0) counts_.first_ns = counts_.last_ns = 0;
}

void CongestorRun::finish(RankStats& stats) {
  stats.own = counts_.encode();
}

std::unique_ptr<ProtocolRun> make_congestor_run(const ProtocolContext& ctx) {
  return std::make_unique<CongestorRun>(ctx);
}

}  // namespace evb
