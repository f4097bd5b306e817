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
  if (p.virtual_lanes < 1 || p.virtual_lanes > topo::kMaxVirtualLanes)
    throw ConfigError(where + ": network.virtual_lanes: " + std::to_string(p.virtual_lanes) +
                      " is outside 1 .. " + std::to_string(topo::kMaxVirtualLanes));
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

uint8_t Engine::vl_of(int dst, Traffic traffic) const {
  const int n = params_.virtual_lanes;
  if (n == 1) return 0;
  if (params_.vl_map == topo::VlMap::destination) return static_cast<uint8_t>(dst % n);
  return traffic == Traffic::command ? 0 : static_cast<uint8_t>(1 + dst % (n - 1));
}

uint64_t Engine::send(int src, int dst, uint64_t bytes, int64_t now_ns, int lane, Traffic traffic) {
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
  messages_[m] =
      Message{id, bytes, kNone, src, dst, static_cast<uint32_t>(lane), bytes, vl_of(dst, traffic)};
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
  int bit = 0;    // its input port (its bit in the VL's arbiter)
  int vl = 0;
  uint32_t c = kNone;
  uint32_t m = kNone;  // from a host: the message the chunk is cut from
  if (l.from_host) {
    if (nics_.idle(l.host)) return;
    // With several VLs a queue pair whose VL has no room is passed over; the
    // first of a VL stands for the rest of it.
    for (uint32_t blocked = 0;;) {
      m = nics_.front(l.host, messages_, blocked);
      if (m == kNone) {  // every queue pair at its window or on a full VL
        if (blocked != 0 && l.wait_since < 0) l.wait_since = now_ps_;
        return;  // a delivery or a credit restarts it
      }
      bytes = std::min(messages_[m].left, params_.chunk_bytes);
      vl = messages_[m].vl;
      if (fabric_.vls == 1 || !l.limited ||
          fabric_.input(out, vl).credits >= static_cast<int64_t>(bytes))
        break;
      blocked |= 1u << vl;
    }
  } else if (fair_) {
    c = fair_->head(out);
    if (c == kNone) return;  // no credit wait with infinite buffers
    from = chunks_[c].hop[0];
    bytes = chunks_[c].bytes;
  } else {
    bit = pick(out, l, vl);
    if (bit < 0) {
      stop_waiting(l);
      return;
    }
    from = fabric_.in_link(l.from_node, bit);
    c = head_at(from, vl, l.from_port);
    bytes = chunks_[c].bytes;
  }
  if (l.limited && fabric_.input(out, vl).credits < static_cast<int64_t>(bytes)) {
    if (l.wait_since < 0) l.wait_since = now_ps_;
    return;
  }
  stop_waiting(l);

  if (l.from_host) {
    Message& msg = messages_[m];
    c = chunks_.acquire();
    Chunk& ch = chunks_[c];
    ch.hop = platform_.route_begin(msg.src, msg.dst);
    ch.bytes = bytes;
    ch.message = m;
    ch.vl = msg.vl;
    msg.left -= bytes;
    ch.last = msg.left == 0;
    nics_.served(l.host, ch.last, messages_);
  } else if (fair_) {
    fair_->pop(out, chunks_);
    ++chunks_[c].hop;
  } else {
    if (fabric_.per_output_queues) {
      Queue& q = fabric_.voq(fabric_.links[from], vl, l.from_port);
      q.pop(chunks_);
      if (q.empty()) Fabric::clear_bit(fabric_.mask(l, vl), bit);
    } else {
      // The next head asks for its output once this chunk has left (tx_end).
      InputVl& in = fabric_.input(from, vl);
      in.fifo.pop(chunks_);
      in.feeding = true;
      Fabric::clear_bit(fabric_.mask(l, vl), bit);
    }
    fabric_.input(out, vl).rr = bit;
    l.rr = vl;
    ++chunks_[c].hop;
  }
  if (l.limited) fabric_.input(out, vl).credits -= static_cast<int64_t>(bytes);

  const int64_t ser = fabric_.serialisation_ps(l, bytes);
  l.busy = true;
  l.tx_from = from;
  l.tx_bytes = bytes;
  l.tx_vl = vl;
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

uint32_t Engine::head_at(int in, int vl, int out_port) {
  return fabric_.per_output_queues ? fabric_.voq(fabric_.links[in], vl, out_port).head
                                   : fabric_.input(in, vl).fifo.head;
}

int Engine::pick(int out, LinkState& l, int& vl) {
  const int words = fabric_.words[l.from_node];
  const int vls = fabric_.vls;
  if (vls == 1) {
    vl = 0;
    return Fabric::next_port(fabric_.mask(l, 0), words, fabric_.input(out, 0).rr);
  }
  // The VLs in turn after the one served last; in each, its own round robin
  // over the input ports. A VL with no room beyond the link is passed over;
  // when every VL with a chunk waiting is, the first of them waits.
  int first = -1, first_vl = 0;
  for (int k = 1; k <= vls; ++k) {
    const int v = (l.rr + k) % vls;
    const int port = Fabric::next_port(fabric_.mask(l, v), words, fabric_.input(out, v).rr);
    if (port < 0) continue;
    const uint32_t c = head_at(fabric_.in_link(l.from_node, port), v, l.from_port);
    if (!l.limited || fabric_.input(out, v).credits >= static_cast<int64_t>(chunks_[c].bytes)) {
      vl = v;
      return port;
    }
    if (first < 0) {
      first = port;
      first_vl = v;
    }
  }
  vl = first_vl;
  return first;
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
  const int vl = ch.vl;
  if (fabric_.per_output_queues) {
    Queue& q = fabric_.voq(l, vl, nl.from_port);
    const bool was_empty = q.empty();
    q.push(chunks_, c);
    if (!was_empty) return;
  } else {
    InputVl& in = fabric_.input(link, vl);
    const bool was_empty = in.fifo.empty();
    in.fifo.push(chunks_, c);
    if (!was_empty || in.feeding) return;  // not the head, or asks once the head has left
  }
  Fabric::set_bit(fabric_.mask(nl, vl), l.to_port);
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
  // The chunk's tail has left the input buffer of `from` (its VL's); in a
  // FIFO the next chunk becomes the head.
  const LinkState& in = fabric_.links[from];
  const int vl = l.tx_vl;
  InputVl& buffer = fabric_.input(from, vl);
  int head_wants = -1;
  if (buffer.feeding) {
    buffer.feeding = false;
    if (!buffer.fifo.empty()) {
      head_wants = chunks_[buffer.fifo.head].hop[1];
      Fabric::set_bit(fabric_.mask(fabric_.links[head_wants], vl), in.to_port);
    }
  }
  try_start(link);
  if (head_wants >= 0) try_start(head_wants);
  if (in.limited) {
    buffer.credits += bytes;
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
