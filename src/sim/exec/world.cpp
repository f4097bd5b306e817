#include "sim/exec/world.hpp"

#include <algorithm>
#include <limits>

#include "core/error.hpp"

namespace evb::simexec {

namespace {
constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
}

World::World(std::vector<int> rank_host, Network& network)
    : rank_host_(std::move(rank_host)), connections_(rank_host_), network_(network) {
  const size_t n = rank_host_.size();
  sinks_.assign(n, nullptr);
  blocked_.assign(n, 0);
  queued_.assign(n, 0);
  generation_.assign(n, 0);
  round_data_.assign(n, std::string());
}

World::~World() = default;

void World::run(const std::function<void(int rank)>& body, size_t stack_bytes) {
  ScopedSimContext scope(this);
  const int n = ranks();
  fibers_.clear();
  for (int r = 0; r < n; ++r)
    fibers_.push_back(std::make_unique<Fiber>([&body, r] { body(r); }, stack_bytes));
  for (int r = 0; r < n; ++r) make_runnable(r);
  int finished = 0;
  for (;;) {
    while (runnable_head_ < runnable_.size()) {
      const int r = runnable_[runnable_head_++];
      queued_[r] = 0;
      if (fibers_[r]->finished()) continue;
      current_ = r;
      ++switches_;
      fibers_[r]->resume();
      current_ = -1;
      if (fibers_[r]->finished()) ++finished;
    }
    runnable_.clear();
    runnable_head_ = 0;
    if (finished == n) break;
    if (!advance_clock()) {
      if (aborted_) {
        // Every rank was told; those that did not return are stuck for good.
        break;
      }
      stalled();
    }
  }
  fibers_.clear();
}

void World::make_runnable(int rank) {
  if (queued_[rank]) return;
  queued_[rank] = 1;
  runnable_.push_back(rank);
}

void World::wake(int rank) {
  if (!blocked_[rank]) return;
  blocked_[rank] = 0;
  ++generation_[rank];  // its timer, if any, is void
  make_runnable(rank);
}

void World::block_until(int64_t t_ns) {
  const int r = current_;
  if (r < 0) throw Error("sim: a rank blocked outside its fiber");
  if (aborted_) throw WorldAborted(abort_why_);
  blocked_[r] = 1;
  if (t_ns != kNever) timers_.push(Timer{std::max(t_ns, now_), ++timer_seq_, r, generation_[r]});
  fibers_[r]->suspend();
  current_ = r;
  if (aborted_) throw WorldAborted(abort_why_);
}

void World::abort(const std::string& why) {
  if (aborted_) return;
  aborted_ = true;
  abort_why_ = why;
  for (int r = 0; r < ranks(); ++r) wake(r);
}

void World::attach(int rank, MessageSink* sink) {
  if (rank < 0 || rank >= ranks()) throw Error("sim: no rank " + std::to_string(rank));
  sinks_[rank] = sink;
}

void World::detach(int rank) {
  if (rank >= 0 && rank < ranks()) sinks_[rank] = nullptr;
}

void World::transmit(Message m) {
  ++messages_;
  const int src_host = rank_host_.at(m.src);
  const int dst_host = rank_host_.at(m.dst);
  uint64_t key;
  if (src_host == dst_host) {
    // Ranks on one host (split layout, an EVM sharing a host): no network.
    key = next_local_key_++;
    local_ready_.push_back(key);
  } else {
    key = network_.send(src_host, dst_host, std::max<uint64_t>(m.bytes, 1), now_,
                        connections_.lane(m));
  }
  in_flight_.emplace(key, m);
}

bool World::advance_clock() {
  if (!local_ready_.empty()) {
    std::vector<uint64_t> ready;
    ready.swap(local_ready_);
    for (uint64_t key : ready) deliver(key);
    return true;
  }
  int64_t t = network_.next_event_ns();
  while (!timers_.empty()) {
    const Timer& top = timers_.top();
    if (blocked_[top.rank] && generation_[top.rank] == top.generation) break;
    timers_.pop();  // void: the rank was woken meanwhile
  }
  if (!timers_.empty()) t = std::min(t, timers_.top().t);
  if (t == kNever) return false;
  now_ = std::max(now_, t);
  delivered_.clear();
  network_.advance(now_, delivered_);
  for (const simnet::Delivery& d : delivered_) deliver(d.message);
  while (!timers_.empty() && timers_.top().t <= now_) {
    const Timer top = timers_.top();
    timers_.pop();
    if (blocked_[top.rank] && generation_[top.rank] == top.generation) wake(top.rank);
  }
  return true;
}

void World::deliver(uint64_t key) {
  auto it = in_flight_.find(key);
  if (it == in_flight_.end()) return;
  const Message m = it->second;
  in_flight_.erase(it);
  if (MessageSink* to = sinks_[m.dst]) {
    to->on_arrival(m);
    wake(m.dst);
  }
  if (MessageSink* from = sinks_[m.src]) {
    from->on_delivered(m);
    wake(m.src);
  }
}

std::vector<std::string> World::collective(const std::string& mine, bool to_all) {
  const int r = current_;
  const uint64_t seq = round_seq_;
  round_data_[r] = mine;
  if (++round_count_ == ranks()) {
    round_result_ = std::move(round_data_);
    round_data_.assign(static_cast<size_t>(ranks()), std::string());
    round_count_ = 0;
    ++round_seq_;
    for (int q = 0; q < ranks(); ++q) wake(q);
  } else {
    while (round_seq_ == seq) block_until(kNever);
  }
  if (to_all || r == 0) return round_result_;
  return {};
}

void World::stalled() const {
  std::string waiting;
  int shown = 0;
  for (int r = 0; r < ranks(); ++r) {
    if (fibers_[r]->finished()) continue;
    if (++shown <= 8) waiting += (waiting.empty() ? "" : ", ") + std::to_string(r);
  }
  if (shown > 8) waiting += ", ... (" + std::to_string(shown) + " in all)";
  throw Error("sim: the simulation stalled at t = " + std::to_string(now_ / 1000) +
              " us: rank(s) " + waiting +
              " wait and nothing is in flight (a protocol waiting for a message no rank sends)");
}

}  // namespace evb::simexec
