// Describes the tcp driver to the plug-in registry: name, options and what
// it can do (query). Its library half (probe, create) is tcp_entry.cpp
// (plugin_entry.hpp).
#include "drivers/api/registry.hpp"
#include "drivers/tcp/tcp_driver.hpp"
#include "drivers/tcp/tcp_options.hpp"

namespace evb {

namespace {

// TcpDriver::capabilities(), which no option changes.
Capabilities query_tcp(const Config&) {
  Capabilities c;
  c.rdma_write = false;
  c.ordered_per_peer = true;
  c.zero_copy_send = true;
  c.can_block = true;
  c.max_message = tcp::ConnectionLimits{}.max_message;
  c.max_segments = tcp::TcpDriver::kMaxSegments;
  c.survives_peer_loss = true;  // a lost peer: peer_event + failed completions
  c.descriptors_per_peer = 1;   // one connection per peer pair
  return c;
}

}  // namespace

void evb_register_driver_tcp(PluginRegistry& r) {
  DriverFactory f;
  f.name = "tcp";
  f.summary =
      "POSIX TCP sockets with epoll; one connection per peer pair, zero-copy gathered sends";
  f.options = tcp::tcp_option_specs();
  f.query = query_tcp;
  r.add_driver(std::move(f));
}

}  // namespace evb
