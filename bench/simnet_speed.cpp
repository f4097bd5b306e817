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
// The workload is src/sim/credit/all_to_all.cpp's. Exits 1 when the fabric
// stops with messages undelivered (a deadlock).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "sim/credit/all_to_all.hpp"
#include "sim/credit/network.hpp"
#include "topo/platform_loader.hpp"

namespace {

struct Options {
  std::string platform = std::string(EVBENCH_SOURCE_DIR) + "/configs/platforms/fat-tree-512.yaml";
  evb::simnet::AllToAll work{512 * 1024, 3, 16};
};

int run(const Options& o, const evb::simnet::NetworkParams& params) {
  const evb::topo::Platform p = evb::topo::load_platform(o.platform);
  const int n = p.host_count();
  evb::simnet::CreditNetwork net(p, params);
  const auto wall0 = std::chrono::steady_clock::now();
  const evb::simnet::AllToAllResult r = evb::simnet::run_all_to_all(net, n, o.work);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double events = static_cast<double>(net.events_processed());

  std::printf("# simnet_speed: %s, %d hosts, all-to-all in barrel-shift order, %llu B messages,\n",
              o.platform.c_str(), n, static_cast<unsigned long long>(o.work.message_bytes));
  std::printf(
      "# %d rounds, at most %d undelivered per host; chunk %llu B, buffer %llu B, %s, %s%s\n",
      o.work.rounds, o.work.in_flight, static_cast<unsigned long long>(params.chunk_bytes),
      static_cast<unsigned long long>(params.buffer_bytes),
      evb::topo::queueing_name(params.queueing), evb::topo::switching_name(params.switching),
      params.infinite_buffers ? ", infinite buffers" : "");
  std::printf("# %10s %12s %10s %10s %12s %14s\n", "messages", "events", "wall_s", "sim_ms",
              "Mevents/s", "per_host_Gb/s");
  std::printf("  %10llu %12.0f %10.2f %10.3f %12.2f %14.2f\n",
              static_cast<unsigned long long>(r.delivered), events, wall,
              static_cast<double>(r.end_ns) * 1e-6, events / wall / 1e6, r.per_host_gbps);
  const uint64_t expected = static_cast<uint64_t>(n) * (n - 1) * o.work.rounds;
  if (r.stuck)
    std::printf("# FAILED: %llu messages undelivered and nothing moves (deadlock)\n",
                static_cast<unsigned long long>(net.in_flight()));
  else
    std::printf("# %s\n", r.delivered == expected ? "OK" : "FAILED: messages lost");
  return !r.stuck && r.delivered == expected ? 0 : 1;
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
      o.work.rounds = std::atoi(value().c_str());
    } else if (a == "--in-flight") {
      o.work.in_flight = std::atoi(value().c_str());
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
  if (o.work.rounds < 1 || o.work.in_flight < 1) {
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
