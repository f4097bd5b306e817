// The barrel-shift all-to-all workload.
#include "sim/credit/all_to_all.hpp"

#include <climits>
#include <vector>

#include "core/error.hpp"

namespace evb::simnet {

AllToAllResult run_all_to_all(CreditNetwork& net, int hosts, const AllToAll& w) {
  if (hosts < 2 || w.rounds < 1 || w.in_flight < 1 || w.message_bytes < 1)
    throw Error("simnet all-to-all: needs 2 hosts, a round, a message in flight and a byte");
  const uint64_t per_host = static_cast<uint64_t>(hosts - 1) * static_cast<uint64_t>(w.rounds);
  std::vector<uint64_t> sent(static_cast<size_t>(hosts), 0);
  std::vector<int> src_of{-1};  // message id -> source host (ids count from 1)
  src_of.reserve(per_host * hosts + 1);
  const auto send_next = [&](int h, int64_t now) {
    if (sent[h] == per_host) return;
    const int shift = static_cast<int>(sent[h] % (hosts - 1)) + 1;
    ++sent[h];
    const uint64_t id = net.send(h, (h + shift) % hosts, w.message_bytes, now);
    if (id >= src_of.size()) src_of.resize(id + 1, -1);
    src_of[id] = h;
  };
  for (int h = 0; h < hosts; ++h)
    for (int k = 0; k < w.in_flight; ++k) send_next(h, 0);

  AllToAllResult r;
  std::vector<Delivery> delivered;
  while (net.in_flight() > 0) {
    const int64_t t = net.next_event_ns();
    if (t == INT64_MAX) {
      r.stuck = true;
      break;
    }
    delivered.clear();
    net.advance(t, delivered);
    for (const Delivery& d : delivered) {
      send_next(src_of[d.message], t);
      r.end_ns = d.time_ns;
    }
    r.delivered += delivered.size();
  }
  if (r.end_ns > 0)
    r.per_host_gbps = static_cast<double>(per_host * w.message_bytes) * 8 /
                      (static_cast<double>(r.end_ns) * 1e-9) / 1e9;
  return r;
}

}  // namespace evb::simnet
