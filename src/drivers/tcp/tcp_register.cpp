// Registers the tcp driver with the plug-in registry.
#include <sys/utsname.h>

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
  f.probe = [] {
    DriverProbe probe;
    probe.can_run = true;
    utsname u{};
    probe.library_version =
        ::uname(&u) == 0 ? std::string(u.sysname) + " " + u.release : std::string("kernel TCP");
    probe.details = "IPv4, non-blocking sockets + epoll, TCP_NODELAY";
    return probe;
  };
  f.create = [](const DriverContext& context) -> std::unique_ptr<Driver> {
    return tcp::make_tcp_driver(context, tcp::parse_tcp_options(context.config));
  };
  r.add_driver(std::move(f));
}

}  // namespace evb
