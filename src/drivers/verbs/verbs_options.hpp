#pragma once
// The verbs driver's run-time parameters (driver_options.*): the KeySpecs for
// validation and docs, and the struct the same table fills.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"
#include "drivers/common/chassis_options.hpp"

namespace evb::verbs {

// Filled by parse_verbs_options(): the option table (verbs_options.cpp)
// holds every default; a VerbsOptions{} does not (parse_verbs_options(nullptr)
// does).
struct VerbsOptions : ChassisOptions {
  std::string device;  // ibv device name; auto = the first with an active port
  uint8_t port = 0;    // port number on the device (1-based, as in ibv_query_port)
  int gid_index = 0;   // -1: LID addressing on InfiniBand, GID 0 on Ethernet (RoCE)
  size_t send_queue_depth = 0;
  size_t command_credits = 0;  // receive buffers kept posted per peer
  size_t signal_interval = 0;  // at most this many unsignalled internal sends in a row
  size_t max_inline = 0;       // bytes copied into the work request (IBV_SEND_INLINE)
  uint8_t timeout = 0;         // local ACK timeout exponent: 4.096 us x 2^timeout
  uint8_t retry_count = 0;     // transport retries before IBV_WC_RETRY_EXC_ERR
  uint8_t rnr_retry = 0;       // receiver-not-ready retries (credits make RNR impossible)
  std::chrono::milliseconds keepalive_interval{};  // 0: no probing of idle peers
};

const std::vector<KeySpec>& verbs_option_specs();

// The defaults, then config.driver_options (keys as in verbs_option_specs());
// throws ConfigError naming the key on a bad value or a bad combination
// (signal_interval above send_queue_depth). `config` may be null.
VerbsOptions parse_verbs_options(const Config* config);

}  // namespace evb::verbs
