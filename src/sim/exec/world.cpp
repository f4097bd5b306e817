#include "sim/exec/world.hpp"

#include <algorithm>
#include <limits>

#include "core/error.hpp"
#include "core/messages.hpp"

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

void World::set_fragment_cpu(int64_t send_ns, int64_t receive_ns) {
  send_cpu_ns_ = std::max<int64_t>(send_ns, 0);
  receive_cpu_ns_ = std::max<int64_t>(receive_ns, 0);
  int hosts = 0;
  for (int h : rank_host_) hosts = std::max(hosts, h + 1);
  cpu_free_.assign(static_cast<size_t>(hosts), 0);
}

bool World::is_fragment(const Message& m) {
  return m.kind == Message::Kind::write ||
         tag_channel(m.tag) == static_cast<uint32_t>(Channel::data);
}

int64_t World::charge(int host, int64_t cost_ns) {
  int64_t& free = cpu_free_[static_cast<size_t>(host)];
  free = std::max(free, now_) + cost_ns;
  ++fragments_charged_;
  cpu_charged_ns_ += cost_ns;
  return free;
}

void World::transmit(Message m) {
  ++messages_;
  if (send_cpu_ns_ > 0 && is_fragment(m)) {
    const int64_t done = charge(rank_host_.at(m.src), send_cpu_ns_);
    cpu_queue_.push(CpuDone{done, ++cpu_seq_, true, 0, std::move(m)});
    return;
  }
  send_now(m);
}

void World::send_now(const Message& m) {
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
    for (uint64_t key : ready) arrive(key);
    return true;
  }
  int64_t t = network_.next_event_ns();
  if (!cpu_queue_.empty()) t = std::min(t, cpu_queue_.top().t);
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
  for (const simnet::Delivery& d : delivered_) arrive(d.message);
  while (!cpu_queue_.empty() && cpu_queue_.top().t <= now_) {
    const CpuDone done = cpu_queue_.top();
    cpu_queue_.pop();
    if (done.send)
      send_now(done.m);
    else
      deliver(done.key);
  }
  while (!timers_.empty() && timers_.top().t <= now_) {
    const Timer top = timers_.top();
    timers_.pop();
    if (blocked_[top.rank] && generation_[top.rank] == top.generation) wake(top.rank);
  }
  return true;
}

void World::arrive(uint64_t key) {
  if (receive_cpu_ns_ > 0) {
    const auto it = in_flight_.find(key);
    if (it != in_flight_.end() && is_fragment(it->second)) {
      const int64_t done = charge(rank_host_.at(it->second.dst), receive_cpu_ns_);
      cpu_queue_.push(CpuDone{done, ++cpu_seq_, false, key, Message{}});
      return;
    }
  }
  deliver(key);
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
