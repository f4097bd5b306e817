// Describes the tcp driver to the plug-in registry: name, options, limits.
// Its library half (probe, create) is tcp_entry.cpp (plugin_entry.hpp).
#include "drivers/api/registry.hpp"
#include "drivers/tcp/tcp_driver.hpp"
#include "drivers/tcp/tcp_options.hpp"

namespace evb {

void evb_register_driver_tcp(PluginRegistry& r) {
  DriverFactory f;
  f.name = "tcp";
  f.survives_peer_loss = true;  // a lost peer: peer_event + failed completions
  f.summary =
      "POSIX TCP sockets with epoll; one connection per peer pair, zero-copy gathered sends";
  f.options = tcp::tcp_option_specs();
  f.max_segments = tcp::TcpDriver::kMaxSegments;
  r.add_driver(std::move(f));
}

}  // namespace evb
