// The tcp driver's entry: probe and create (plugin_entry.hpp).
#include <sys/utsname.h>

#include "drivers/api/plugin_entry.hpp"
#include "drivers/tcp/tcp_driver.hpp"
#include "drivers/tcp/tcp_options.hpp"

namespace evb {
namespace {

DriverProbe probe_tcp() {
  DriverProbe probe;
  probe.can_run = true;
  utsname u{};
  probe.library_version =
      ::uname(&u) == 0 ? std::string(u.sysname) + " " + u.release : std::string("kernel TCP");
  probe.details = "IPv4, non-blocking sockets + epoll, TCP_NODELAY";
  return probe;
}

std::unique_ptr<Driver> create_tcp(const DriverContext& context) {
  return tcp::make_tcp_driver(context, tcp::parse_tcp_options(context.config));
}

}  // namespace

const DriverEntry* evb_driver_entry_tcp() {
  static const DriverEntry entry{.probe = probe_tcp, .create = create_tcp};
  return &entry;
}

}  // namespace evb
