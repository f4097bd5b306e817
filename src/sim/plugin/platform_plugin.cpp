// SimGrid platform plug-in: smpirun's -platform option loads this shared
// object and calls load_platform(). It builds one full zone from the routes
// file named by EVBENCH_SIM_ROUTES: every host, every directed link, and one
// explicit route per host pair (the topology model's forwarding decisions),
// plus a loopback route per host for ranks sharing a host. Far smaller and
// faster to load than the same platform as XML.
#include <cstdio>
#include <cstdlib>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/routes_file.hpp"

namespace sg4 = simgrid::s4u;

extern "C" void load_platform(const sg4::Engine& engine);

void load_platform(const sg4::Engine& /*engine*/) {
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
