#include "drivers/ucx/ucx_options.hpp"

#include <cmath>

#include "drivers/common/option_values.hpp"

namespace evb::ucx {

const std::vector<KeySpec>& ucx_option_specs() {
  static const std::vector<KeySpec> specs = {
      {"tls",
       KeyType::string,
       "auto",
       "",
       -INFINITY,
       INFINITY,
       {},
       "UCX transports, with UCX_TLS semantics: tcp, sm (= posix,sysv,cma), rc, ud, dc, "
       "self, a list (sm,tcp) or an exclusion (^tcp); auto = UCX_TLS from the environment, "
       "else every transport UCX finds"},
      {"devices",
       KeyType::string,
       "auto",
       "",
       -INFINITY,
       INFINITY,
       {},
       "network devices, with UCX_NET_DEVICES semantics (lo, eth0, mlx5_0:1, a list); auto = "
       "lo when all ranks are on this host, else UCX_NET_DEVICES or all; any = UCX's choice"},
      duration_option(
          "keepalive_interval", "1s",
          "how often UCX checks that peers are alive (UCX_KEEPALIVE_INTERVAL): a killed peer is "
          "reported within about this long on transports without a connection to break (shared "
          "memory); 0 = UCX's default (20 s)"),
      duration_option("connect_timeout", "30s",
                      "how long connect() waits for the hello of every peer before failing"),
      duration_option("shutdown_timeout", "10s",
                      "how long shutdown() waits to deliver its goodbyes and close its endpoints"),
  };
  return specs;
}

namespace {

// A UCX list value: no blanks, no empty string, nothing UCX's parser would
// take for a second assignment.
std::string ucx_list(const std::string& key, const std::string& value) {
  if (value.empty() || value.find_first_of(" \t\n=;") != std::string::npos)
    bad_option(key, value, "UCX list (comma-separated names, no blanks)");
  return value;
}

}  // namespace

UcxOptions parse_ucx_options(const Config* config) {
  UcxOptions o;
  if (!config) return o;
  for (const auto& [raw_key, value] : config->driver_options) {
    const std::string key = option_key(raw_key);
    if (key == "tls") {
      o.tls = ucx_list(key, value);
    } else if (key == "devices") {
      o.devices = ucx_list(key, value);
    } else if (key == "keepalive_interval") {
      o.keepalive_interval = option_ms(key, value);
    } else if (key == "connect_timeout") {
      o.connect_timeout = option_ms(key, value);
    } else if (key == "shutdown_timeout") {
      o.shutdown_timeout = option_ms(key, value);
    }
    // Other drivers' keys may share the map; the config validator rejects typos.
  }
  return o;
}

}  // namespace evb::ucx
