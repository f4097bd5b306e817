#include "drivers/libfabric/lf_options.hpp"

#include <cmath>

#include "core/config_loader.hpp"
#include "drivers/common/option_values.hpp"

namespace evb::libfabric {

const std::vector<KeySpec>& lf_option_specs() {
  static const std::vector<KeySpec> specs = {
      {"provider",
       KeyType::string,
       "auto",
       "",
       -INFINITY,
       INFINITY,
       {},
       "libfabric provider: auto, tcp (= tcp;ofi_rxm), shm, sockets, udp (= udp;ofi_rxd), verbs "
       "(= verbs;ofi_rxm), psm2, psm3, efa, cxi or a full name like tcp;ofi_rxm"},
      {"domain",
       KeyType::string,
       "",
       "",
       -INFINITY,
       INFINITY,
       {},
       "fi_info domain name to use (e.g. mlx5_0, hfi1_0, cxi0, eth0); empty = the first usable"},
      {"interface",
       KeyType::string,
       "auto",
       "",
       -INFINITY,
       INFINITY,
       {},
       "source address for IP providers (tcp, sockets, udp); auto = 127.0.0.1 when all ranks "
       "are local, else the provider's choice; any = the provider's choice"},
      {"tx_queue_depth",
       KeyType::integer,
       "0",
       "ops",
       0,
       1048576,
       {},
       "transmit queue size requested (tx_attr.size); 0 = provider default"},
      {"rx_queue_depth",
       KeyType::integer,
       "0",
       "ops",
       0,
       1048576,
       {},
       "receive queue size requested (rx_attr.size); 0 = provider default"},
      {"progress",
       KeyType::choice,
       "manual",
       "",
       -INFINITY,
       INFINITY,
       {"manual", "auto"},
       "data progress requested: manual = driven by poll()/wait() only, auto = provider threads "
       "may progress too"},
      {"write_immediate",
       KeyType::choice,
       "auto",
       "",
       -INFINITY,
       INFINITY,
       {"auto", "native", "emulated"},
       "rdma_write immediates: native remote CQ data (auto when the provider has it) or an "
       "ordered tagged notification (emulated)"},
      {"inject",
       KeyType::boolean,
       "true",
       "",
       -INFINITY,
       INFINITY,
       {},
       "send messages up to the provider's inject_size with fi_tinject (copied, completed at "
       "post time)"},
      {"source",
       KeyType::boolean,
       "true",
       "",
       -INFINITY,
       INFINITY,
       {},
       "ask for FI_SOURCE so remote_write completions name the writer (falls back when the "
       "provider lacks it)"},
      duration_option(
          "keepalive_timeout", "4s",
          "a peer this rank waits on that answers no keepalive for this long is lost (pings go "
          "to peers quiet for a quarter of it); 0 = off"),
      duration_option("connect_timeout", "30s",
                      "how long connect() waits for the hello of every peer before failing"),
      duration_option("shutdown_timeout", "10s",
                      "how long shutdown() waits to deliver its goodbyes and cancel receives"),
  };
  return specs;
}

LfOptions parse_lf_options(const Config* config) {
  LfOptions o;
  if (!config) return o;
  o.exclude_lost_peers = config->on_failure == OnFailure::exclude;
  for (const auto& [raw_key, value] : config->driver_options) {
    // Accept "provider" as well as "libfabric.provider" / "driver_options.provider".
    const std::string key = option_key(raw_key);
    if (key == "provider") {
      if (value.empty() || value.find_first_of(" \t\n") != std::string::npos)
        bad_option(key, value, "provider name");
      o.provider = value;
    } else if (key == "domain") {
      o.domain = value;
    } else if (key == "interface") {
      o.interface = value.empty() ? "auto" : value;
    } else if (key == "tx_queue_depth") {
      o.tx_queue_depth = option_size(key, value, 1048576, "queue depth");
    } else if (key == "rx_queue_depth") {
      o.rx_queue_depth = option_size(key, value, 1048576, "queue depth");
    } else if (key == "progress") {
      if (value == "manual") {
        o.progress = ProgressMode::manual;
      } else if (value == "auto") {
        o.progress = ProgressMode::automatic;
      } else {
        bad_option(key, value, "progress (manual or auto)");
      }
    } else if (key == "write_immediate") {
      if (value == "auto") {
        o.write_immediate = ImmediateMode::automatic;
      } else if (value == "native") {
        o.write_immediate = ImmediateMode::native;
      } else if (value == "emulated") {
        o.write_immediate = ImmediateMode::emulated;
      } else {
        bad_option(key, value, "write_immediate (auto, native or emulated)");
      }
    } else if (key == "inject") {
      o.inject = parse_boolean(value, "driver_options." + key);
    } else if (key == "source") {
      o.source = parse_boolean(value, "driver_options." + key);
    } else if (key == "keepalive_timeout") {
      o.keepalive_timeout = option_ms(key, value);
    } else if (key == "connect_timeout") {
      o.connect_timeout = option_ms(key, value);
    } else if (key == "shutdown_timeout") {
      o.shutdown_timeout = option_ms(key, value);
    }
    // Other drivers' keys may share the map; the config validator rejects typos.
  }
  return o;
}

const char* to_string(ImmediateMode mode) {
  switch (mode) {
    case ImmediateMode::automatic:
      return "auto";
    case ImmediateMode::native:
      return "native";
    case ImmediateMode::emulated:
      return "emulated";
  }
  return "?";
}

const char* to_string(ProgressMode mode) {
  return mode == ProgressMode::manual ? "manual" : "auto";
}

}  // namespace evb::libfabric
