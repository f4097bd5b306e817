#pragma once
// The ucx driver's run-time parameters (driver_options.*): the KeySpecs for
// validation and docs, and the struct the same table fills.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"
#include "drivers/common/chassis_options.hpp"

namespace evb::ucx {

// Filled by parse_ucx_options(): the option table (ucx_options.cpp) holds
// every default; a UcxOptions{} does not (parse_ucx_options(nullptr) does).
// How UCX learns of a dead peer: peer = UCP_ERR_HANDLING_MODE_PEER
// (keepalive, failed completions); none = no failure handling, which lets
// UCX use the transports that cannot report one (CMA, TCP zero-copy put).
enum class ErrorHandling { peer, none };

struct UcxOptions : ChassisOptions {
  std::string tls;      // UCX_TLS value; "auto" = UCX_TLS from the environment or all
  std::string devices;  // UCX_NET_DEVICES; "auto" = lo when all ranks are local
  std::chrono::milliseconds keepalive_interval{};  // 0 = UCX's own default
  ErrorHandling error_handling = ErrorHandling::peer;
  // ns a rank that waits for a stream of large messages spins before each
  // ucp_worker_progress where tcp alone carries the data
  // (UcxDriver::poll_pause(), paced()); 0 = off.
  int64_t tcp_poll_pause_ns = 0;
  // The key was set: its value applies across hosts too, where the default
  // does not (measured on one host only: UcxDriver's constructor).
  bool tcp_poll_pause_set = false;
};

const std::vector<KeySpec>& ucx_option_specs();

// The defaults, then config.driver_options (keys as in ucx_option_specs());
// throws ConfigError naming the key on a bad value. `config` may be null.
UcxOptions parse_ucx_options(const Config* config);

}  // namespace evb::ucx
