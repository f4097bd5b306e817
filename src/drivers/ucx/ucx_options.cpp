// The ucx driver's options: one row each (drivers/common/option_table.hpp).
#include "drivers/ucx/ucx_options.hpp"

#include "drivers/common/chassis_options.hpp"
#include "drivers/common/option_table.hpp"

namespace evb::ucx {

namespace {

// A UCX list value: no blanks, no empty string, nothing UCX's parser would
// take for a second assignment.
const char* ucx_list(const std::string& value) {
  if (value.empty() || value.find_first_of(" \t\n=;") != std::string::npos)
    return "UCX list (comma-separated names, no blanks)";
  return nullptr;
}

using T = OptionTable<UcxOptions>;

const T& table() {
  static const T rows(
      {
          T::text(
              "tls", &UcxOptions::tls, "auto",
              "UCX transports, with UCX_TLS semantics: tcp, sm (= posix,sysv,cma), rc, ud, dc, "
              "self, a list (sm,tcp) or an exclusion (^tcp); auto = UCX_TLS from the environment, "
              "else every transport UCX finds",
              ucx_list),
          T::text(
              "devices", &UcxOptions::devices, "auto",
              "network devices, with UCX_NET_DEVICES semantics (lo, eth0, mlx5_0:1, a list); auto "
              "= lo when all ranks are on this host, else UCX_NET_DEVICES or all; any = UCX's "
              "choice",
              ucx_list),
          T::duration(
              "keepalive_interval", &UcxOptions::keepalive_interval, "1s",
              "how often UCX checks that peers are alive (UCX_KEEPALIVE_INTERVAL): a killed peer "
              "is "
              "reported within about this long on transports without a connection to break (shared "
              "memory); 0 = UCX's default (20 s)"),
          T::choice(
              "error_handling", &UcxOptions::error_handling, "peer",
              std::vector<std::pair<const char*, ErrorHandling>>{{"peer", ErrorHandling::peer},
                                                                 {"none", ErrorHandling::none}},
              "peer: UCX reports a killed or lost peer (UCP_ERR_HANDLING_MODE_PEER, keepalive); "
              "UCX 1.13 then leaves out the transports that cannot, so sm moves large "
              "messages without CMA and tcp without zero-copy put (docs/drivers/ucx.md); "
              "none: what ucx_perftest does, those transports are used, but UCX reports no "
              "dead peer (the launcher or peer_timeout ends the run; on_failure exclude is "
              "refused)"),
          T::integer("tcp_poll_pause", &UcxOptions::tcp_poll_pause_ns, "5000", "ns", 0, 50000,
                     "with error_handling none, where tcp alone carries the data (no "
                     "shared-memory or RDMA transport between the ranks), a rank with 16 or "
                     "more receives of 64 KiB or more posted and no send or write of its own "
                     "in flight spins this long before each ucp_worker_progress: one that "
                     "reads the socket as soon as bytes arrive reads each message while the "
                     "sender still copies it in, which slows the sender over the loopback "
                     "(ucx/tcp send at window 32: about 0.85 -> 1.0 of ucx_perftest tag_bw); "
                     "not under peer, where it halved that (docs/drivers/ucx.md); the default "
                     "only where every rank is on this host (the case measured), a value set "
                     "across hosts too; 0 = off"),
      },
      chassis_rows<UcxOptions>(
          {"how long connect() waits for the hello of every peer before failing",
           "how long shutdown() waits to deliver its goodbyes and close its endpoints"}));
  return rows;
}

}  // namespace

const std::vector<KeySpec>& ucx_option_specs() {
  return table().specs();
}

UcxOptions parse_ucx_options(const Config* config) {
  UcxOptions o = table().parse(config);
  o.tcp_poll_pause_set = config && config->driver_options.count("tcp_poll_pause") > 0;
  return o;
}

}  // namespace evb::ucx
