#include "drivers/verbs/verbs_options.hpp"

#include <cmath>

#include "core/error.hpp"
#include "drivers/common/option_values.hpp"

namespace evb::verbs {

namespace {
constexpr size_t kMaxQueueDepth = 32768;
constexpr size_t kMaxCredits = 4096;
}  // namespace

const std::vector<KeySpec>& verbs_option_specs() {
  static const std::vector<KeySpec> specs = {
      {"device",
       KeyType::string,
       "auto",
       "",
       -INFINITY,
       INFINITY,
       {},
       "RDMA device (ibv_devices lists them: mlx5_0, hfi1_0, rxe0); auto = the first device "
       "with an active port"},
      {"port", KeyType::integer, "1", "", 1, 255, {}, "port of the device (1-based)"},
      {"gid_index",
       KeyType::integer,
       "-1",
       "",
       -1,
       255,
       {},
       "GID table index for RoCE and routed InfiniBand (show_gids lists them); -1 = LID "
       "addressing on InfiniBand ports, GID 0 on Ethernet (RoCE) ports"},
      {"send_queue_depth",
       KeyType::integer,
       "256",
       "WRs",
       16,
       static_cast<double>(kMaxQueueDepth),
       {},
       "send work requests in flight per queue pair; a full queue holds further posts back "
       "(back-pressure) instead of overflowing"},
      {"command_credits",
       KeyType::integer,
       "64",
       "messages",
       1,
       static_cast<double>(kMaxCredits),
       {},
       "receive buffers kept posted for each peer (its send credits): a peer never sends "
       "without a posted buffer, so receiver-not-ready retries cannot happen"},
      {"signal_interval",
       KeyType::integer,
       "16",
       "WRs",
       1,
       static_cast<double>(kMaxQueueDepth),
       {},
       "at most this many internal (credit, notify) sends in a row go unsignalled; every "
       "user operation is signalled; must not exceed send_queue_depth"},
      {"max_inline",
       KeyType::size,
       "64",
       "B",
       0,
       1024,
       {},
       "sends up to this size are copied into the work request (IBV_SEND_INLINE); capped by "
       "what the device grants"},
      {"timeout",
       KeyType::integer,
       "14",
       "",
       0,
       31,
       {},
       "local ACK timeout exponent (4.096 us x 2^timeout; 14 = 67 ms; 0 = infinite)"},
      {"retry_count",
       KeyType::integer,
       "7",
       "",
       0,
       7,
       {},
       "transport retries after an ACK timeout before the peer is declared lost"},
      {"rnr_retry",
       KeyType::integer,
       "0",
       "",
       0,
       7,
       {},
       "receiver-not-ready retries (7 = infinite); 0 turns an RNR, which the credits rule "
       "out, into an immediate error"},
      duration_option(
          "keepalive_interval", "1s",
          "how often an idle connection is probed (the credit word rewritten by an RDMA WRITE): a "
          "killed peer is reported within this plus timeout x (retry_count + 1); 0 = never (a "
          "dead peer is then noticed only when something is sent to it)"),
      duration_option("connect_timeout", "30s",
                      "how long connect() waits for every peer's queue pair to be ready"),
      duration_option("shutdown_timeout", "10s",
                      "how long shutdown() waits for outstanding sends to drain"),
  };
  return specs;
}

namespace {

size_t bounded(const std::string& key, const std::string& value, size_t lo, size_t hi,
               const std::string& what) {
  const size_t x = option_size(key, value, hi, what);
  if (x < lo)
    bad_option(key, value,
               what + " (an integer " + std::to_string(lo) + ".." + std::to_string(hi) + ")");
  return x;
}

}  // namespace

VerbsOptions parse_verbs_options(const Config* config) {
  VerbsOptions o;
  if (!config) return o;
  for (const auto& [raw_key, value] : config->driver_options) {
    const std::string key = option_key(raw_key);
    if (key == "device") {
      if (value.empty() || value.find_first_of(" \t\n/") != std::string::npos)
        bad_option(key, value, "device name");
      o.device = value;
    } else if (key == "port") {
      o.port = static_cast<uint8_t>(bounded(key, value, 1, 255, "port"));
    } else if (key == "gid_index") {
      o.gid_index = value == "-1" ? -1 : static_cast<int>(option_size(key, value, 255, "index"));
    } else if (key == "send_queue_depth") {
      o.send_queue_depth = bounded(key, value, 16, kMaxQueueDepth, "depth");
    } else if (key == "command_credits") {
      o.command_credits = bounded(key, value, 1, kMaxCredits, "count");
    } else if (key == "signal_interval") {
      o.signal_interval = bounded(key, value, 1, kMaxQueueDepth, "count");
    } else if (key == "max_inline") {
      o.max_inline = option_size(key, value, 1024, "size");
    } else if (key == "timeout") {
      o.timeout = static_cast<uint8_t>(option_size(key, value, 31, "exponent"));
    } else if (key == "retry_count") {
      o.retry_count = static_cast<uint8_t>(option_size(key, value, 7, "count"));
    } else if (key == "rnr_retry") {
      o.rnr_retry = static_cast<uint8_t>(option_size(key, value, 7, "count"));
    } else if (key == "keepalive_interval") {
      o.keepalive_interval = option_ms(key, value);
    } else if (key == "connect_timeout") {
      o.connect_timeout = option_ms(key, value);
    } else if (key == "shutdown_timeout") {
      o.shutdown_timeout = option_ms(key, value);
    }
    // Other drivers' keys may share the map; the config validator rejects typos.
  }
  if (o.signal_interval > o.send_queue_depth)
    throw ConfigError("driver_options.signal_interval (" + std::to_string(o.signal_interval) +
                      ") must not exceed driver_options.send_queue_depth (" +
                      std::to_string(o.send_queue_depth) + ")");
  return o;
}

}  // namespace evb::verbs
