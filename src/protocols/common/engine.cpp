#include "protocols/common/engine.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/clock.hpp"
#include "core/config_detail.hpp"
#include "core/error.hpp"

namespace evb {
namespace {
constexpr uint8_t kEngineAgent = 0;  // cookies of the engine's own operations
constexpr uint64_t kRecvFlag = 1ull << 55;
// A command send on Channel::monitor: its completion is not progress (a rank
// reporting its figures is not a rank moving data).
constexpr uint64_t kQuietFlag = 1ull << 54;

}  // namespace

Engine::Engine(Driver& driver, int rank, const Config& config, PollMode mode,
               std::vector<std::string> peer_names)
    : driver_(driver),
      rank_(rank),
      config_(config),
      mode_(mode),
      peer_names_(std::move(peer_names)),
      recv_slots_(driver, config.command_size),
      send_slots_(driver, config.command_size),
      batcher_(config.batch.events, s_to_ns(config.batch.max_wait_s), peer_names_.size()) {
  agents_.push_back(nullptr);  // id 0 is the engine itself
  send_slots_.reserve(256);
  exclude_ = config.on_failure == OnFailure::exclude;
  lost_.assign(peer_names_.size(), 0);
}

void Engine::post_or_delay(std::function<void()> post) {
  const int64_t delay = faults_ ? faults_->send_delay_ns(now_ns()) : 0;
  if (delay <= 0 && delayed_.empty()) {
    post();
    return;
  }
  // Posts keep their order: one behind a delayed one waits for it.
  delayed_.emplace_back(now_ns() + delay, std::move(post));
}

void Engine::run_delayed(int64_t now) {
  while (!delayed_.empty() && delayed_.front().first <= now) {
    auto post = std::move(delayed_.front().second);
    delayed_.pop_front();
    post();
  }
}

void Engine::mark_lost(PeerId p) {
  if (p < 0 || p >= static_cast<int>(lost_.size()) || lost_[p]) return;
  lost_[p] = 1;
  const int64_t now = now_ns();
  for (size_t i = 1; i < agents_.size(); ++i) agents_[i]->on_peer_lost(p, now);
}

void Engine::on_failed(const Completion& c) {
  if (c.peer < 0 || c.peer >= static_cast<int>(lost_.size()) || c.peer == rank_) fail(c);
  mark_lost(c.peer);
  if (c.type == OpType::peer_event || c.type == OpType::remote_write) return;
  const uint8_t id = static_cast<uint8_t>(c.cookie >> 56);
  if (id != kEngineAgent) {
    agents_.at(id)->on_completion(c);
    return;
  }
  const uint64_t v = cookie_value(c.cookie);
  if (v & kRecvFlag) {  // an any-peer command receive: post it again
    const size_t idx = v & ~kRecvFlag;
    driver_.post_recv(kAnyPeer, command_tag(recv_channel_.at(idx)), recv_slots_.at(idx),
                      config_.command_size, recv_slots_.reg(idx), c.cookie);
  } else {
    send_slots_.release(v & ~kQuietFlag);
    --command_sends_in_flight_;
  }
}

const std::string& Engine::peer_name(PeerId p) const {
  static const std::string any = "any peer";
  if (p < 0 || p >= static_cast<int>(peer_names_.size())) return any;
  return peer_names_[p];
}

uint8_t Engine::add_agent(Agent* agent) {
  agents_.push_back(agent);
  return static_cast<uint8_t>(agents_.size() - 1);
}

void Engine::listen(Channel channel, uint8_t agent, int depth) {
  listeners_[static_cast<int>(channel)] = agent;
  recv_slots_.reserve(recv_channel_.size() + static_cast<size_t>(depth));
  for (int i = 0; i < depth; ++i) {
    const size_t idx = recv_slots_.acquire();
    if (recv_channel_.size() <= idx) recv_channel_.resize(idx + 1);
    recv_channel_[idx] = channel;
    driver_.post_recv(kAnyPeer, command_tag(channel), recv_slots_.at(idx), config_.command_size,
                      recv_slots_.reg(idx), make_cookie(kEngineAgent, kRecvFlag | idx));
  }
}

void Engine::post_command(PeerId peer, Channel channel, const void* bytes, size_t size) {
  if (peer == rank_) {
    counts_.sent(channel, bytes, size, false);
    Command cmd;
    std::memcpy(&cmd, bytes, sizeof cmd);
    local_commands_.push_back({channel, cmd});
    return;
  }
  if (lost(peer)) return;  // on_failure exclude: it is gone
  counts_.sent(channel, bytes, size, true);
  const size_t idx = send_slots_.acquire();
  std::memset(send_slots_.at(idx), 0, config_.command_size);
  // One command (all but batches) copied as the fixed 64 B it is.
  if (size == sizeof(Command))
    std::memcpy(send_slots_.at(idx), bytes, sizeof(Command));
  else
    std::memcpy(send_slots_.at(idx), bytes, size);
  const Segment seg = send_slots_.segment(idx, config_.command_size);
  ++command_sends_in_flight_;
  const uint64_t cookie =
      make_cookie(kEngineAgent, channel == Channel::monitor ? idx | kQuietFlag : idx);
  if (delaying()) {
    post_or_delay([this, peer, channel, seg, cookie] {
      driver_.post_send(peer, command_tag(channel), std::span<const Segment>(&seg, 1), cookie);
    });
    return;
  }
  driver_.post_send(peer, command_tag(channel), std::span<const Segment>(&seg, 1), cookie);
}

void Engine::send(PeerId peer, Tag tag, std::span<const Segment> segments, uint64_t cookie) {
  if (peer != rank_) {
    if (lost(peer)) {
      local_completions_.push_back({cookie, OpType::send, OpStatus::peer_lost, peer, tag, 0});
      return;
    }
    if (delaying()) {
      post_or_delay([this, peer, tag, segs = std::vector<Segment>(segments.begin(), segments.end()),
                     cookie] { driver_.post_send(peer, tag, segs, cookie); });
      return;
    }
    driver_.post_send(peer, tag, segments, cookie);
    return;
  }
  auto it = std::find_if(local_recvs_.begin(), local_recvs_.end(),
                         [&](const LocalRecv& r) { return r.tag == tag; });
  if (it == local_recvs_.end()) {
    // No receive yet: the segment list is kept until one is posted.
    local_sends_.push_back(LocalSend{tag, {segments.begin(), segments.end()}, cookie});
    return;
  }
  const LocalRecv r = *it;
  local_recvs_.erase(it);
  deliver_local(tag, segments, cookie, r);
}

void Engine::recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration* reg,
                  uint64_t cookie) {
  if (peer != rank_) {
    if (lost(peer)) return;  // on_failure exclude: nothing will come
    driver_.post_recv(peer, tag, buffer, size, reg, cookie);
    return;
  }
  LocalRecv r{tag, buffer, size, cookie};
  auto it = std::find_if(local_sends_.begin(), local_sends_.end(),
                         [&](const LocalSend& s) { return s.tag == tag; });
  if (it == local_sends_.end()) {
    local_recvs_.push_back(r);
    return;
  }
  const LocalSend s = std::move(*it);
  local_sends_.erase(it);
  deliver_local(s.tag, s.segments, s.cookie, r);
}

void Engine::write(const WriteTarget& target, std::span<const Segment> segments, uint64_t offset,
                   uint32_t immediate, uint64_t cookie) {
  if (!target.local) {
    if (lost(target.peer)) {
      local_completions_.push_back(
          {cookie, OpType::rdma_write, OpStatus::peer_lost, target.peer, 0, 0, 0});
      return;
    }
    if (delaying()) {
      // The target lives in the RU's window table for the whole run.
      post_or_delay(
          [this, t = &target, segs = std::vector<Segment>(segments.begin(), segments.end()), offset,
           immediate,
           cookie] { driver_.rdma_write(t->peer, segs, *t->key, offset, immediate, cookie); });
      return;
    }
    driver_.rdma_write(target.peer, segments, *target.key, offset, immediate, cookie);
    return;
  }
  size_t total = 0;
  for (const auto& seg : segments) total += seg.size;
  if (offset > target.size || total > target.size - offset)
    throw Error("rank " + std::to_string(rank_) + ": write of " + std::to_string(total) +
                " B at offset " + std::to_string(offset) + " past the end of this rank's " +
                std::to_string(target.size) + " B window memory");
  std::byte* out = target.local + offset;
  for (const auto& seg : segments) {
    std::memcpy(out, seg.data, seg.size);
    out += seg.size;
  }
  local_completions_.push_back({cookie, OpType::rdma_write, OpStatus::ok, rank_, 0, total, 0});
  local_completions_.push_back({0, OpType::remote_write, OpStatus::ok, rank_, 0, total, immediate});
}

void Engine::deliver_local(Tag tag, std::span<const Segment> segments, uint64_t cookie,
                           const LocalRecv& r) {
  size_t total = 0;
  for (const auto& seg : segments) total += seg.size;
  Completion sc{cookie, OpType::send, OpStatus::ok, rank_, tag, total};
  Completion rc{r.cookie, OpType::recv, OpStatus::ok, rank_, r.tag, total};
  if (total > r.size) {
    rc.status = OpStatus::truncated;
  } else {
    auto* out = static_cast<uint8_t*>(r.buffer);
    for (const auto& seg : segments) {
      std::memcpy(out, seg.data, seg.size);
      out += seg.size;
    }
  }
  local_completions_.push_back(sc);
  local_completions_.push_back(rc);
}

void Engine::on_engine_completion(const Completion& c) {
  const uint64_t v = cookie_value(c.cookie);
  if (v & kRecvFlag) {
    const size_t idx = v & ~kRecvFlag;
    const Channel channel = recv_channel_.at(idx);
    Command cmd;
    if (!decode_command(recv_slots_.at(idx), c.bytes, &cmd))
      throw PeerError(c.peer, "rank " + std::to_string(rank_) + ": malformed command from " +
                                  peer_name(c.peer));
    // A batch's list is read out before its buffer takes the next message.
    if (cmd.type == CommandType::batch) take_batch(c.peer, cmd, recv_slots_.at(idx), c.bytes);
    driver_.post_recv(kAnyPeer, command_tag(channel), recv_slots_.at(idx), config_.command_size,
                      recv_slots_.reg(idx), c.cookie);
    if (channel == Channel::monitor) ++quiet_seen_;
    if (cmd.type != CommandType::batch)
      hand_over(channel, c.peer, std::span<const Command>(&cmd, 1), true);
    else
      hand_over(channel, c.peer, batch_in_, true);
  } else {
    if (v & kQuietFlag) ++quiet_seen_;
    send_slots_.release(v & ~kQuietFlag);
    --command_sends_in_flight_;
  }
}

void Engine::dispatch(const Completion& c) {
  if (c.status != OpStatus::ok) {
    if (!exclude_) fail(c);
    on_failed(c);
    return;
  }
  if (c.type == OpType::peer_event) return;
  if (c.type == OpType::remote_write) {
    if (write_listener_ == 0xFF)
      throw PeerError(c.peer, "rank " + std::to_string(rank_) + ": unexpected write from " +
                                  peer_name(c.peer) + " (no windows here)");
    agents_.at(write_listener_)->on_completion(c);
    return;
  }
  const uint8_t id = static_cast<uint8_t>(c.cookie >> 56);
  if (id == kEngineAgent)
    on_engine_completion(c);
  else
    agents_.at(id)->on_completion(c);
}

bool Engine::all_done() const {
  if (command_sends_in_flight_ || !local_commands_.empty() || !local_completions_.empty() ||
      !delayed_.empty() || !batcher_.empty() || driver_.owed_to_peers() != 0)
    return false;
  for (size_t i = 1; i < agents_.size(); ++i)
    if (!agents_[i]->done()) return false;
  return true;
}

std::string Engine::waiting_report() const {
  std::string s;
  for (size_t i = 1; i < agents_.size(); ++i) {
    if (agents_[i]->done()) continue;
    if (!s.empty()) s += "; ";
    s += agents_[i]->waiting_for();
  }
  if (command_sends_in_flight_)
    s += (s.empty() ? "" : "; ") + std::to_string(command_sends_in_flight_) +
         " command send(s) unfinished";
  if (const size_t owed = driver_.owed_to_peers())
    s += (s.empty() ? "" : "; ") + std::string("the driver's ") + std::to_string(owed) +
         " operation(s) owed to peers (a write's flush and notify)";
  return s;
}

void Engine::idle(int64_t now) {
  switch (mode_) {
    case PollMode::busy:
    case PollMode::automatic:
      return;
    case PollMode::yield:
      if (meter_) meter_->rest();  // off the CPU by choice: not in a window
      sched_yield();
      return;
    case PollMode::block: {
      int64_t wake = now + 10'000'000;  // wake at least every 10 ms for timers
      for (size_t i = 1; i < agents_.size(); ++i) {
        const int64_t t = agents_[i]->next_timer_ns();
        if (t >= 0) wake = std::min(wake, t);
      }
      if (faults_ && faults_->next_ns(t0_ns_) >= 0) wake = std::min(wake, faults_->next_ns(t0_ns_));
      if (!delayed_.empty()) wake = std::min(wake, delayed_.front().first);
      if (const int64_t due = batcher_.next_due_ns(); due >= 0) wake = std::min(wake, due);
      const int64_t us = std::max<int64_t>(0, (wake - now) / 1000);
      if (us <= 0) return;
      if (meter_) meter_->rest();
      driver_.wait(std::chrono::microseconds(us));
      return;
    }
  }
}

void Engine::set_processing_time(double seconds) {
  // Silence while FUs process an event is not a fault: it may last that long.
  timeout_s_ = config_.peer_timeout_s > 0 ? config_.peer_timeout_s + seconds : 0;
}

void Engine::run() {
  t0_ns_ = now_ns();
  last_progress_ns_ = t0_ns_;
  for (size_t i = 1; i < agents_.size(); ++i) agents_[i]->start(t0_ns_);
  set_processing_time(config_.fu.processing_time_s);
  if (meter_) meter_->begin_loop();
  Completion batch[64];
  while (!all_done()) {
    bool progress = false;
    const size_t n = driver_.poll(std::span<Completion>(batch, 64));
    batch_ = std::span<const Completion>(batch, n);
    quiet_seen_ = 0;
    for (size_t i = 0; i < n; ++i) dispatch(batch[i]);
    batch_ = {};
    progress |= n > quiet_seen_;
    while (!local_completions_.empty()) {
      const Completion c = local_completions_.front();
      local_completions_.pop_front();
      dispatch(c);
      progress = true;
    }
    while (!local_commands_.empty()) {
      const auto [channel, cmd] = local_commands_.front();
      local_commands_.pop_front();
      hand_over(channel, rank_, std::span<const Command>(&cmd, 1), false);
      progress |= channel != Channel::monitor;
    }
    int64_t now = now_ns();
    if (faults_) {
      if (meter_ && faults_->next_ns(t0_ns_) >= 0 && faults_->next_ns(t0_ns_) <= now)
        meter_->rest();  // a stall sleeps
      if (faults_->tick(now, t0_ns_, rank_)) {
        now = now_ns();
        last_progress_ns_ = now;  // this rank stood still, not its peers
      }
    }
    if (!delayed_.empty()) {
      const size_t before = delayed_.size();
      run_delayed(now);
      progress |= delayed_.size() != before;
    }
    tick_agents(now);
    if (!batcher_.empty()) flush_due(now);
    if (progress || paused_) {
      last_progress_ns_ = now;
      if (!progress) idle(now);
    } else {
      const int64_t timeout_ns = s_to_ns(timeout_s_);
      if (now - last_progress_ns_ > timeout_ns && timeout_ns > 0)
        throw Error("rank " + std::to_string(rank_) + ": no progress for " +
                    config_detail::format_duration(timeout_s_) +
                    " (peer_timeout + fu.processing_time); waiting for " + waiting_report());
      idle(now);
    }
  }
  if (meter_) meter_->end_loop();
}

}  // namespace evb
