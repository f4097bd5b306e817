// SimGrid platform plug-in: smpirun's -platform option loads this shared
// object and calls load_platform(). It builds one full zone from the routes
// file named by EVBENCH_SIM_ROUTES: every host, every directed link, and one
// explicit route per host pair (the topology model's forwarding decisions),
// plus a loopback route per host for ranks sharing a host. Far smaller and
// faster to load than the same platform as XML.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/routes_file.hpp"

namespace sg4 = simgrid::s4u;

extern "C" void load_platform(const sg4::Engine& engine);

namespace {

// Progress for `evbench sim` (docs/SCALE.md, "Progress"): when
// EVBENCH_SIM_PROGRESS names a file, the simulated clock is written to it
// (one line, overwritten in place) at most every 200 ms of wall time, as the
// simulation advances; evbench sim reads it and prints the progress line.
void report_progress_to(const char* path) {
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;  // no progress, the simulation runs the same
  auto next = std::make_shared<std::chrono::steady_clock::time_point>();
  sg4::Engine::on_time_advance_cb([fd, next](double) {
    const auto wall = std::chrono::steady_clock::now();
    if (wall < *next) return;
    *next = wall + std::chrono::milliseconds(200);
    char line[64];
    const int n = std::snprintf(line, sizeof line, "%.9f\n", sg4::Engine::get_clock());
    if (n > 0 && ::pwrite(fd, line, static_cast<size_t>(n), 0) < 0) {
      // best effort: the simulation does not depend on it
    }
  });
  sg4::Engine::on_simulation_end_cb([fd] { ::close(fd); });
}

}  // namespace

void load_platform(const sg4::Engine& /*engine*/) {
  if (const char* progress = std::getenv("EVBENCH_SIM_PROGRESS"); progress && *progress)
    report_progress_to(progress);
  const char* path = std::getenv("EVBENCH_SIM_ROUTES");
  if (path == nullptr || *path == '\0')
    throw std::runtime_error(
        "evbench platform plug-in: EVBENCH_SIM_ROUTES is not set (run it through `evbench sim`)");
  const evb::sim::SimPlatform p = evb::sim::read_routes_file(path);
  auto* zone = sg4::create_full_zone("evbench");
  std::vector<sg4::Host*> hosts;
  hosts.reserve(p.hosts.size());
  for (const auto& name : p.hosts) hosts.push_back(zone->create_host(name, 1e9));
  std::vector<sg4::Link*> links;
  links.reserve(p.links.size());
  for (const auto& l : p.links)
    links.push_back(zone->create_link(l.name, l.bandwidth)->set_latency(l.latency)->seal());
  std::vector<bool> has_loopback(p.hosts.size(), false);
  for (const auto& r : p.routes) {
    std::vector<sg4::LinkInRoute> route;
    route.reserve(r.links.size());
    for (int l : r.links) route.emplace_back(links[l]);
    zone->add_route(hosts[r.src]->get_netpoint(), hosts[r.dst]->get_netpoint(), nullptr, nullptr,
                    route, false);
    if (r.src == r.dst) has_loopback[r.src] = true;
  }
  // Ranks on one host talk over a loopback that never limits them.
  for (size_t h = 0; h < hosts.size(); ++h) {
    if (has_loopback[h]) continue;
    sg4::Link* lo = zone->create_link(p.hosts[h] + "_lo", 1e12)
                        ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                        ->seal();
    zone->add_route(hosts[h]->get_netpoint(), hosts[h]->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(lo)}, false);
  }
  zone->seal();
}
