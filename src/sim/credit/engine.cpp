// The credit model's event loop: chunk transmission, arrival and credits.
#include "sim/credit/engine.hpp"

#include <algorithm>
#include <climits>
#include <string>

#include "core/error.hpp"

namespace evb::simnet {
namespace {

int64_t ceil_ns(int64_t ps) {
  return ps / 1000 + (ps % 1000 > 0 ? 1 : 0);
}

int64_t to_ps(int64_t ns) {
  return ns > INT64_MAX / 1000 ? INT64_MAX : ns * 1000;
}

NetworkParams checked(const topo::Platform& platform, const NetworkParams& p) {
  const std::string where = platform.source.empty() ? platform.name : platform.source;
  if (p.chunk_bytes < 1 || p.chunk_bytes > (uint64_t{1} << 30))
    throw ConfigError(where + ": network.chunk: " + std::to_string(p.chunk_bytes) +
                      " bytes is outside 1 B .. 1 GiB");
  if (!p.infinite_buffers && p.buffer_bytes < p.chunk_bytes)
    throw ConfigError(where + ": network.buffer: " + std::to_string(p.buffer_bytes) +
                      " bytes holds no chunk of " + std::to_string(p.chunk_bytes) + " bytes");
  if (p.flow_window > topo::kMaxFlowWindow)
    throw ConfigError(where + ": network.flow_window: " + std::to_string(p.flow_window) +
                      " chunks is more than " + std::to_string(topo::kMaxFlowWindow));
  if (platform.host_count() < 2) throw ConfigError(where + ": the credit model needs 2 hosts");
  return p;
}

int checked_lanes(const topo::Platform& platform, int lanes) {
  const uint64_t hosts = static_cast<uint64_t>(platform.host_count());
  if (lanes < 1) throw Error("simnet: " + std::to_string(lanes) + " lanes: at least 1 is needed");
  // The queue pairs of a host and the flows of the fair queues are indexed in 32 bits.
  if (hosts * static_cast<uint64_t>(lanes) >= kNone ||
      static_cast<uint64_t>(
          platform.route_end(platform.host_count() - 1, platform.host_count() - 1) -
          platform.route_begin(0, 0)) *
              static_cast<uint64_t>(lanes) >=
          kNone)
    throw Error("simnet: " + std::to_string(lanes) + " lanes per host pair on " +
                std::to_string(hosts) + " hosts need more than 32-bit queue indices");
  return lanes;
}

}  // namespace

Engine::Engine(const topo::Platform& platform, const NetworkParams& params, int lanes)
    : platform_(platform),
      params_(checked(platform, params)),
      fabric_(platform, params_),
      nics_(platform.host_count(), params.mtu_bytes, checked_lanes(platform, lanes),
            params.flow_window),
      queue_(static_cast<uint32_t>(platform.links.size() * 2)),
      lanes_(lanes) {
  if (params_.infinite_buffers) fair_.emplace(platform, lanes_);
}

uint64_t Engine::send(int src, int dst, uint64_t bytes, int64_t now_ns, int lane) {
  const int hosts = platform_.host_count();
  const auto fail = [&](const std::string& why) {
    throw Error("simnet: send(" + std::to_string(src) + " -> " + std::to_string(dst) + ", " +
                std::to_string(bytes) + " B, at " + std::to_string(now_ns) + " ns): " + why);
  };
  if (src < 0 || src >= hosts || dst < 0 || dst >= hosts)
    fail("no such host (" + std::to_string(hosts) + " hosts)");
  if (src == dst) fail("a message to itself");
  if (lane < 0 || lane >= lanes_)
    fail("no lane " + std::to_string(lane) + " (" + std::to_string(lanes_) + " lanes)");
  if (bytes == 0) fail("an empty message");
  const int64_t now_ps = to_ps(now_ns);
  if (now_ps < now_ps_)
    fail("before the network's time, " + std::to_string(now_ps_ / 1000) + " ns");
  if (now_ps > now_ps_) {
    // Events between the last advance() and now first; what they deliver
    // goes out with the next advance().
    out_ = &early_;
    run(now_ps - 1);
    now_ps_ = now_ps;
  }
  const uint32_t m = messages_.acquire();
  const uint64_t id = next_id_++;
  messages_[m] = Message{id, bytes, kNone, src, dst, static_cast<uint32_t>(lane), bytes};
  nics_.enqueue(src, m, messages_);
  ++in_flight_;
  try_start(platform_.host(src).uplink);
  return id;
}

int64_t Engine::next_event_ns() const {
  if (!early_.empty()) return ceil_ns(now_ps_);
  return queue_.empty() ? INT64_MAX : ceil_ns(queue_.top_time());
}

void Engine::advance(int64_t t_ns, std::vector<Delivery>& delivered) {
  const int64_t limit = to_ps(t_ns);
  if (limit < now_ps_)
    throw Error("simnet: advance(" + std::to_string(t_ns) + " ns) before the network's time, " +
                std::to_string(now_ps_ / 1000) + " ns");
  delivered.insert(delivered.end(), early_.begin(), early_.end());
  early_.clear();
  out_ = &delivered;
  run(limit);
  now_ps_ = limit;
}

void Engine::run(int64_t limit_ps) {
  while (!queue_.empty() && queue_.top_time() <= limit_ps) {
    const uint32_t event = queue_.pop(now_ps_);
    ++events_;
    if (event & kArrive)
      arrive(static_cast<int>(event >> 1));
    else
      tx_end(static_cast<int>(event >> 1));
  }
}

void Engine::try_start(int out) {
  LinkState& l = fabric_.links[out];
  if (l.busy) return;
  uint64_t bytes = 0;
  int from = -1;  // the input link whose buffer the chunk leaves (-1: the NIC)
  int port = 0;
  uint32_t c = kNone;
  if (l.from_host) {
    if (nics_.idle(l.host)) return;
    const uint32_t m = nics_.front(l.host, messages_);
    if (m == kNone) return;  // every queue pair at its window: a delivery restarts it
    bytes = std::min(messages_[m].left, params_.chunk_bytes);
  } else if (fair_) {
    c = fair_->head(out);
    if (c == kNone) return;  // no credit wait with infinite buffers
    from = chunks_[c].hop[0];
    bytes = chunks_[c].bytes;
  } else {
    port = Fabric::next_port(fabric_.mask(l), fabric_.words[l.from_node], l.rr);
    if (port < 0) {
      stop_waiting(l);
      return;
    }
    from = fabric_.in_link(l.from_node, port);
    LinkState& in = fabric_.links[from];
    c = fabric_.per_output_queues ? fabric_.voq(in, l.from_port).head : in.fifo.head;
    bytes = chunks_[c].bytes;
  }
  if (l.limited && l.credits < static_cast<int64_t>(bytes)) {
    if (l.wait_since < 0) l.wait_since = now_ps_;
    return;
  }
  stop_waiting(l);

  if (l.from_host) {
    const uint32_t m = nics_.front(l.host, messages_);
    Message& msg = messages_[m];
    c = chunks_.acquire();
    Chunk& ch = chunks_[c];
    ch.hop = platform_.route_begin(msg.src, msg.dst);
    ch.bytes = bytes;
    ch.message = m;
    msg.left -= bytes;
    ch.last = msg.left == 0;
    nics_.served(l.host, ch.last, messages_);
  } else if (fair_) {
    fair_->pop(out, chunks_);
    ++chunks_[c].hop;
  } else {
    LinkState& in = fabric_.links[from];
    if (fabric_.per_output_queues) {
      Queue& q = fabric_.voq(in, l.from_port);
      q.pop(chunks_);
      if (q.empty()) Fabric::clear_bit(fabric_.mask(l), port);
    } else {
      // The next head asks for its output once this chunk has left (tx_end).
      in.fifo.pop(chunks_);
      in.feeding = true;
      Fabric::clear_bit(fabric_.mask(l), port);
    }
    l.rr = port;
    ++chunks_[c].hop;
  }
  if (l.limited) l.credits -= static_cast<int64_t>(bytes);

  const int64_t ser = fabric_.serialisation_ps(l, bytes);
  l.busy = true;
  l.tx_from = from;
  l.tx_bytes = bytes;
  l.bytes += bytes;
  l.busy_ps += ser;
  queue_.push(now_ps_ + ser, static_cast<uint32_t>(out) * 2 + kTxEnd);
  int64_t ready = now_ps_ + l.latency_ps;
  if (l.to_host || params_.switching == Switching::store_and_forward) {
    ready += ser;
  } else {
    // Cut-through onto a faster link waits until the tail cannot fall behind.
    const int64_t next_ser = fabric_.serialisation_ps(fabric_.links[chunks_[c].hop[1]], bytes);
    if (ser > next_ser) ready += ser - next_ser;
  }
  l.wire.push(chunks_, c);
  queue_.push(ready, static_cast<uint32_t>(out) * 2 + kArrive);
}

void Engine::stop_waiting(LinkState& l) {
  if (l.wait_since < 0) return;
  l.credit_wait_ps += now_ps_ - l.wait_since;
  l.wait_since = -1;
}

void Engine::arrive(int link) {
  LinkState& l = fabric_.links[link];
  const uint32_t c = l.wire.pop(chunks_);
  Chunk& ch = chunks_[c];
  if (l.to_host) {
    const int src = messages_[ch.message].src;
    const bool held = nics_.delivered(src, nics_.pair_of(messages_[ch.message]));
    if (ch.last) {
      out_->push_back(Delivery{messages_[ch.message].id, ceil_ns(now_ps_)});
      messages_.release(ch.message);
      --in_flight_;
    }
    chunks_.release(c);
    if (held) try_start(platform_.host(src).uplink);
    return;
  }
  const int next = ch.hop[1];
  if (fair_) {
    fair_->push(next, ch.hop + 1, messages_[ch.message].lane, c, chunks_);
    try_start(next);
    return;
  }
  LinkState& nl = fabric_.links[next];
  if (fabric_.per_output_queues) {
    Queue& q = fabric_.voq(l, nl.from_port);
    const bool was_empty = q.empty();
    q.push(chunks_, c);
    if (!was_empty) return;
    Fabric::set_bit(fabric_.mask(nl), l.to_port);
  } else {
    const bool was_empty = l.fifo.empty();
    l.fifo.push(chunks_, c);
    if (!was_empty || l.feeding) return;  // not the head, or asks once the head has left
    Fabric::set_bit(fabric_.mask(nl), l.to_port);
  }
  try_start(next);
}

void Engine::tx_end(int link) {
  LinkState& l = fabric_.links[link];
  const int from = l.tx_from;
  const int64_t bytes = static_cast<int64_t>(l.tx_bytes);
  l.busy = false;
  if (from < 0) {  // from the NIC
    try_start(link);
    return;
  }
  // The chunk's tail has left the input buffer of `from`; in a FIFO the next
  // chunk becomes the head.
  LinkState& in = fabric_.links[from];
  int head_wants = -1;
  if (in.feeding) {
    in.feeding = false;
    if (!in.fifo.empty()) {
      head_wants = chunks_[in.fifo.head].hop[1];
      Fabric::set_bit(fabric_.mask(fabric_.links[head_wants]), in.to_port);
    }
  }
  try_start(link);
  if (head_wants >= 0) try_start(head_wants);
  if (in.limited) {
    in.credits += bytes;
    try_start(from);
  }
}

uint64_t Engine::queued_at_nic(int src) const {
  if (src < 0 || src >= platform_.host_count())
    throw Error("simnet: queued_at_nic(" + std::to_string(src) + "): no such host");
  return nics_.queued(src);
}

const std::vector<LinkStats>& Engine::link_stats() const {
  stats_.resize(fabric_.links.size());
  for (size_t i = 0; i < stats_.size(); ++i) {
    const LinkState& l = fabric_.links[i];
    const int64_t waiting = l.wait_since >= 0 ? now_ps_ - l.wait_since : 0;
    stats_[i] =
        LinkStats{l.bytes, (l.busy_ps + 500) / 1000, (l.credit_wait_ps + waiting + 500) / 1000};
  }
  return stats_;
}

}  // namespace evb::simnet
