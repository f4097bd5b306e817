// Speed of the credit model (src/sim/credit/network.hpp) on a 512-host fat
// tree: every host sends a 512 KiB message to every other host in
// barrel-shift order (step s: host h to host h + s), `rounds` times over,
// keeping at most `in_flight` messages undelivered per host and sending the
// next one the moment one is delivered. Prints the wall time, simulated
// time, internal events, events per second and the delivered rate per host.
// Not a test: the wall-clock figures depend on the machine and its load.
//
//   build/bin/evbench_simnet_speed [PLATFORM] [--rounds R] [--in-flight K]
//       [--chunk BYTES] [--buffer BYTES] [--voq] [--store-and-forward] [--infinite]
//   (default PLATFORM: configs/platforms/fat-tree-512.yaml of the source tree)
//
// Exits 1 when the fabric stops with messages undelivered (a deadlock).
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "sim/credit/network.hpp"
#include "topo/platform_loader.hpp"

namespace {

struct Options {
  std::string platform = std::string(EVBENCH_SOURCE_DIR) + "/configs/platforms/fat-tree-512.yaml";
  int rounds = 3;
  int in_flight = 16;
  uint64_t message = 512 * 1024;
};

int run(const Options& o, evb::simnet::NetworkParams params) {
  evb::topo::Platform p = evb::topo::load_platform(o.platform);
  const int n = p.host_count();
  evb::simnet::CreditNetwork net(p, params);
  const uint64_t per_host = static_cast<uint64_t>(n - 1) * o.rounds;
  std::vector<uint64_t> sent(n, 0);  // messages each host has sent
  std::vector<int> src_of;           // message id -> source host
  src_of.reserve(per_host * n + 1);
  src_of.push_back(-1);
  auto send_next = [&](int h, int64_t now) {
    if (sent[h] == per_host) return;
    const int shift = static_cast<int>(sent[h] % (n - 1)) + 1;
    ++sent[h];
    net.send(h, (h + shift) % n, o.message, now);
    src_of.push_back(h);
  };

  const auto wall0 = std::chrono::steady_clock::now();
  for (int h = 0; h < n; ++h)
    for (int k = 0; k < o.in_flight; ++k) send_next(h, 0);
  std::vector<evb::simnet::Delivery> delivered;
  uint64_t messages = 0;
  int64_t t = 0;
  while (net.in_flight() > 0) {
    t = net.next_event_ns();
    if (t == INT64_MAX) {
      std::fprintf(stderr, "simnet_speed: %llu messages undelivered and nothing moves\n",
                   static_cast<unsigned long long>(net.in_flight()));
      return 1;
    }
    delivered.clear();
    net.advance(t, delivered);
    for (const auto& d : delivered) send_next(src_of[d.message], t);
    messages += delivered.size();
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double sim_s = static_cast<double>(t) * 1e-9;
  const double events = static_cast<double>(net.events_processed());
  const double per_host_gbps =
      static_cast<double>(per_host) * static_cast<double>(o.message) * 8 / sim_s / 1e9;

  std::printf("# simnet_speed: %s, %d hosts, all-to-all in barrel-shift order, %llu B messages,\n",
              o.platform.c_str(), n, static_cast<unsigned long long>(o.message));
  std::printf(
      "# %d rounds, at most %d undelivered per host; chunk %llu B, buffer %llu B, %s, %s%s\n",
      o.rounds, o.in_flight, static_cast<unsigned long long>(params.chunk_bytes),
      static_cast<unsigned long long>(params.buffer_bytes),
      evb::topo::queueing_name(params.queueing), evb::topo::switching_name(params.switching),
      params.infinite_buffers ? ", infinite buffers" : "");
  std::printf("# %10s %12s %10s %10s %12s %14s\n", "messages", "events", "wall_s", "sim_ms",
              "Mevents/s", "per_host_Gb/s");
  std::printf("  %10llu %12.0f %10.2f %10.3f %12.2f %14.2f\n",
              static_cast<unsigned long long>(messages), events, wall, sim_s * 1e3,
              events / wall / 1e6, per_host_gbps);
  const bool ok = messages == per_host * n;
  std::printf("# %s\n", ok ? "OK" : "FAILED: messages lost");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  evb::simnet::NetworkParams params;
  bool platform_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "simnet_speed: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--rounds") {
      o.rounds = std::atoi(value().c_str());
    } else if (a == "--in-flight") {
      o.in_flight = std::atoi(value().c_str());
    } else if (a == "--chunk") {
      params.chunk_bytes = std::strtoull(value().c_str(), nullptr, 10);
    } else if (a == "--buffer") {
      params.buffer_bytes = std::strtoull(value().c_str(), nullptr, 10);
    } else if (a == "--voq") {
      params.queueing = evb::simnet::Queueing::voq;
    } else if (a == "--store-and-forward") {
      params.switching = evb::simnet::Switching::store_and_forward;
    } else if (a == "--infinite") {
      params.infinite_buffers = true;
    } else if (!platform_given && !a.empty() && a[0] != '-') {
      o.platform = a;
      platform_given = true;
    } else {
      std::fprintf(stderr, "simnet_speed: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (o.rounds < 1 || o.in_flight < 1) {
    std::fprintf(stderr, "simnet_speed: --rounds and --in-flight must be at least 1\n");
    return 2;
  }
  try {
    return run(o, params);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simnet_speed: %s\n", e.what());
    return 1;
  }
}
