#pragma once
// Platforms built in code and small drivers for the credit model's tests.
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/credit/network.hpp"
#include "topo/platform.hpp"
#include "topo/routing.hpp"

namespace evb::simnet::test {

inline constexpr double kGbit = 1e9;

// `hosts` hosts h0, h1, ... on one switch (host i on port i + 1).
inline topo::Platform star(int hosts, double bandwidth = 100 * kGbit, double latency = 100e-9) {
  topo::Platform p;
  p.name = "star";
  const int sw = p.add_switch("sw", 1);
  for (int i = 0; i < hosts; ++i)
    p.connect(p.add_host("h" + std::to_string(i)), 1, sw, i + 1, bandwidth, latency);
  topo::fill_shortest_tables(p);
  p.finish();
  return p;
}

// Host a - s1 - s2 - ... - sN - host b, cable i with bandwidth[i] (N + 1
// cables, host a's first); latency per cable.
inline topo::Platform chain(const std::vector<double>& bandwidth, double latency = 100e-9) {
  topo::Platform p;
  p.name = "chain";
  const int a = p.add_host("a");
  const int b = p.add_host("b");
  int prev = a;
  int prev_port = 1;
  for (size_t i = 0; i + 1 < bandwidth.size(); ++i) {
    const int s = p.add_switch("s" + std::to_string(i + 1), 0);
    p.connect(prev, prev_port, s, 1, bandwidth[i], latency);
    prev = s;
    prev_port = 2;
  }
  p.connect(prev, prev_port, b, 1, bandwidth.back(), latency);
  topo::fill_shortest_tables(p);
  p.finish();
  return p;
}

// Runs the network until nothing is in flight; every delivery, in order.
inline std::vector<Delivery> drain(CreditNetwork& net) {
  std::vector<Delivery> out;
  for (int64_t t = net.next_event_ns(); t != INT64_MAX; t = net.next_event_ns())
    net.advance(t, out);
  return out;
}

// `base` in each of the model's modes: fifo, voq, store-and-forward and
// infinite buffers (every other setting as `base` has it).
inline std::vector<NetworkParams> every_mode(const NetworkParams& base = {}) {
  NetworkParams voq = base;
  voq.queueing = Queueing::voq;
  NetworkParams store = base;
  store.switching = Switching::store_and_forward;
  NetworkParams inf = base;
  inf.infinite_buffers = true;
  return {base, voq, store, inf};
}

// Bytes per second as a fraction of `bandwidth` bit/s.
inline double line_fraction(double bytes, double seconds, double bandwidth) {
  return bytes * 8 / seconds / bandwidth;
}

}  // namespace evb::simnet::test
