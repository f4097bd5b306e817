#include "drivers/libfabric/lf_options.hpp"

#include <cmath>

#include "core/config_loader.hpp"
#include "core/error.hpp"

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
      {"keepalive_timeout",
       KeyType::duration,
       "4s",
       "s",
       0,
       INFINITY,
       {},
       "a peer this rank waits on that answers no keepalive for this long is lost (pings go "
       "to peers quiet for a quarter of it); 0 = off"},
      {"connect_timeout",
       KeyType::duration,
       "30s",
       "s",
       0,
       INFINITY,
       {},
       "how long connect() waits for the hello of every peer before failing"},
      {"shutdown_timeout",
       KeyType::duration,
       "10s",
       "s",
       0,
       INFINITY,
       {},
       "how long shutdown() waits to deliver its goodbyes and cancel receives"},
  };
  return specs;
}

namespace {

std::string where(const std::string& key) {
  return "driver_options." + key;
}

[[noreturn]] void bad(const std::string& key, const std::string& value, const std::string& what) {
  throw ConfigError(where(key) + ": bad " + what + " '" + value + "'");
}

size_t parse_depth(const std::string& key, const std::string& v) {
  size_t pos = 0;
  long long x = 0;
  try {
    x = std::stoll(v, &pos);
  } catch (const std::exception&) {
    bad(key, v, "queue depth (an integer 0..1048576)");
  }
  if (pos != v.size() || x < 0 || x > 1048576) bad(key, v, "queue depth (an integer 0..1048576)");
  return static_cast<size_t>(x);
}

std::chrono::milliseconds parse_ms(const std::string& key, const std::string& v) {
  const double s = parse_duration(v, where(key));
  if (!(s >= 0) || !std::isfinite(s)) bad(key, v, "duration");
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(s * 1000)));
}

}  // namespace

LfOptions parse_lf_options(const Config* config) {
  LfOptions o;
  if (!config) return o;
  for (const auto& [raw_key, value] : config->driver_options) {
    // Accept "provider" as well as "libfabric.provider" / "driver_options.provider".
    const size_t dot = raw_key.rfind('.');
    const std::string key = dot == std::string::npos ? raw_key : raw_key.substr(dot + 1);
    if (key == "provider") {
      if (value.empty() || value.find_first_of(" \t\n") != std::string::npos)
        bad(key, value, "provider name");
      o.provider = value;
    } else if (key == "domain") {
      o.domain = value;
    } else if (key == "interface") {
      o.interface = value.empty() ? "auto" : value;
    } else if (key == "tx_queue_depth") {
      o.tx_queue_depth = parse_depth(key, value);
    } else if (key == "rx_queue_depth") {
      o.rx_queue_depth = parse_depth(key, value);
    } else if (key == "progress") {
      if (value == "manual") {
        o.progress = ProgressMode::manual;
      } else if (value == "auto") {
        o.progress = ProgressMode::automatic;
      } else {
        bad(key, value, "progress (manual or auto)");
      }
    } else if (key == "write_immediate") {
      if (value == "auto") {
        o.write_immediate = ImmediateMode::automatic;
      } else if (value == "native") {
        o.write_immediate = ImmediateMode::native;
      } else if (value == "emulated") {
        o.write_immediate = ImmediateMode::emulated;
      } else {
        bad(key, value, "write_immediate (auto, native or emulated)");
      }
    } else if (key == "inject") {
      o.inject = parse_boolean(value, where(key));
    } else if (key == "source") {
      o.source = parse_boolean(value, where(key));
    } else if (key == "keepalive_timeout") {
      o.keepalive_timeout = parse_ms(key, value);
    } else if (key == "connect_timeout") {
      o.connect_timeout = parse_ms(key, value);
    } else if (key == "shutdown_timeout") {
      o.shutdown_timeout = parse_ms(key, value);
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
