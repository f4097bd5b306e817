#pragma once
// The verbs driver's run-time parameters (driver_options.*): one table of
// KeySpecs for validation and docs, and the parsed values.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"

namespace evb::verbs {

struct VerbsOptions {
  std::string device = "auto";  // ibv device name; auto = the first with an active port
  uint8_t port = 1;             // port number on the device (1-based, as in ibv_query_port)
  int gid_index = -1;           // -1: LID addressing on InfiniBand, GID 0 on Ethernet (RoCE)
  size_t send_queue_depth = 256;
  size_t command_credits = 64;  // receive buffers kept posted per peer
  size_t signal_interval = 16;  // at most this many unsignalled internal sends in a row
  size_t max_inline = 64;       // bytes copied into the work request (IBV_SEND_INLINE)
  uint8_t timeout = 14;         // local ACK timeout exponent: 4.096 us x 2^timeout
  uint8_t retry_count = 7;      // transport retries before IBV_WC_RETRY_EXC_ERR
  uint8_t rnr_retry = 0;        // receiver-not-ready retries (credits make RNR impossible)
  std::chrono::milliseconds keepalive_interval{1000};  // 0: no probing of idle peers
  std::chrono::milliseconds connect_timeout{30000};
  std::chrono::milliseconds shutdown_timeout{10000};
};

const std::vector<KeySpec>& verbs_option_specs();

// Reads config.driver_options (keys as in verbs_option_specs()); throws
// ConfigError naming the key on a bad value or a bad combination
// (signal_interval above send_queue_depth). `config` may be null (defaults).
VerbsOptions parse_verbs_options(const Config* config);

}  // namespace evb::verbs
