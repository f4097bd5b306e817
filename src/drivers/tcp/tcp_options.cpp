#include "drivers/tcp/tcp_options.hpp"

#include <cctype>
#include <cmath>

#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "drivers/common/option_values.hpp"

namespace evb::tcp {

const std::vector<KeySpec>& tcp_option_specs() {
  static const std::vector<KeySpec> specs = {
      {"bind",
       KeyType::string,
       "auto",
       "",
       -INFINITY,
       INFINITY,
       {},
       "listen address; auto = 127.0.0.1 when all ranks are local, else 0.0.0.0 advertising "
       "the host's primary address"},
      {"port", KeyType::integer, "0", "", 0, 65535, {}, "listen port; 0 = ephemeral"},
      {"sndbuf",
       KeyType::size,
       "0",
       "B",
       0,
       2147483647.0,
       {},
       "SO_SNDBUF per connection; 0 = kernel default (autotuning)"},
      {"rcvbuf",
       KeyType::size,
       "0",
       "B",
       0,
       2147483647.0,
       {},
       "SO_RCVBUF per connection; 0 = kernel default (autotuning)"},
      {"nodelay",
       KeyType::boolean,
       "true",
       "",
       -INFINITY,
       INFINITY,
       {},
       "TCP_NODELAY (disable Nagle) on every connection"},
      {"rcvlowat",
       KeyType::boolean,
       "true",
       "",
       -INFINITY,
       INFINITY,
       {},
       "while a large payload is half read, SO_RCVLOWAT = the bytes still missing (capped by "
       "the kernel at half the receive buffer): a waiting rank is woken once per message, not "
       "once per segment"},
      duration_option("connect_timeout", "30s",
                      "how long connect() waits for all peers before failing"),
      duration_option("shutdown_timeout", "10s",
                      "how long shutdown() waits to flush queued sends and the BYE"),
      {"unexpected_bytes",
       KeyType::size,
       "256MiB",
       "B",
       0,
       1073741824.0,
       {},
       "most bytes buffered for messages whose receive is not posted yet (all peers); a peer "
       "that sends past it is dropped as broken"},
      {"unexpected_messages",
       KeyType::integer,
       "65536",
       "",
       0,
       1e9,
       {},
       "most messages buffered before their receive is posted (all peers)"},
  };
  return specs;
}

namespace {

[[noreturn]] void bad(const std::string& key, const std::string& value, const char* what) {
  throw ConfigError("driver_options." + key + ": bad " + what + " '" + value + "'");
}

// Splits "1.5MiB" into 1.5 and "MiB"; throws on a missing number.
std::pair<double, std::string> number_and_unit(const std::string& key, const std::string& v,
                                               const char* what) {
  size_t pos = 0;
  double x = 0;
  try {
    x = std::stod(v, &pos);
  } catch (const std::exception&) {
    bad(key, v, what);
  }
  std::string unit = v.substr(pos);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.erase(0, 1);
  if (x < 0 || !std::isfinite(x)) bad(key, v, what);
  return {x, unit};
}

// Values arrive normalised by the config loader (bytes, seconds, true/false);
// the core parsers also accept units for callers that bypass it.
size_t parse_bytes(const std::string& key, const std::string& v) {
  const uint64_t bytes = parse_size(v, "driver_options." + key);
  if (bytes > 2147483647ull) bad(key, v, "size (at most 2 GiB)");
  return static_cast<size_t>(bytes);
}

std::chrono::milliseconds parse_ms(const std::string& key, const std::string& v) {
  const double s = parse_duration(v, "driver_options." + key);
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(s * 1000)));
}

bool parse_flag(const std::string& key, const std::string& v) {
  return parse_boolean(v, "driver_options." + key);
}

}  // namespace

TcpOptions parse_tcp_options(const Config* config) {
  TcpOptions o;
  if (!config) return o;
  for (const auto& [raw_key, value] : config->driver_options) {
    // Accept "sndbuf" as well as "tcp.sndbuf" / "driver_options.sndbuf".
    std::string key =
        raw_key.substr(raw_key.rfind('.') == std::string::npos ? 0 : raw_key.rfind('.') + 1);
    if (key == "bind") {
      o.bind = value.empty() ? "auto" : value;
    } else if (key == "port") {
      auto [x, unit] = number_and_unit(key, value, "port");
      if (!unit.empty() || x > 65535 || x != std::floor(x)) bad(key, value, "port");
      o.port = static_cast<int>(x);
    } else if (key == "sndbuf") {
      o.socket.sndbuf = parse_bytes(key, value);
    } else if (key == "rcvbuf") {
      o.socket.rcvbuf = parse_bytes(key, value);
    } else if (key == "nodelay") {
      o.socket.nodelay = parse_flag(key, value);
    } else if (key == "rcvlowat") {
      o.limits.rcvlowat = parse_flag(key, value) ? kRcvLowatCap : 0;
    } else if (key == "connect_timeout") {
      o.connect_timeout = parse_ms(key, value);
    } else if (key == "shutdown_timeout") {
      o.shutdown_timeout = parse_ms(key, value);
    } else if (key == "unexpected_bytes") {
      o.unexpected.bytes = parse_size(value, "driver_options." + key);
    } else if (key == "unexpected_messages") {
      auto [x, unit] = number_and_unit(key, value, "count");
      if (!unit.empty() || x != std::floor(x)) bad(key, value, "count");
      o.unexpected.messages = static_cast<size_t>(x);
    }
    // Other drivers' keys may share the map; the config validator rejects typos.
  }
  return o;
}

}  // namespace evb::tcp
