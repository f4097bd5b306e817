#pragma once
// The libfabric driver's run-time parameters (driver_options.*): one table of
// KeySpecs for validation and docs, and the parsed values.
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"

namespace evb::libfabric {

// How the 32-bit immediate of rdma_write reaches the target.
enum class ImmediateMode {
  automatic,  // remote CQ data when the provider has it, else a notification
  native,     // remote CQ data; refuse providers without it
  emulated,   // always an ordered tagged notification (tests, debugging)
};

// FI_PROGRESS_* requested for data progress.
enum class ProgressMode { manual, automatic };

struct LfOptions {
  std::string provider = "auto";   // "auto", a short name ("tcp") or "tcp;ofi_rxm"
  std::string domain;              // fi_info domain name ("" = any), e.g. "mlx5_0", "eth0"
  std::string interface = "auto";  // "auto", "any" or a source address / host name
  size_t tx_queue_depth = 0;       // tx_attr->size; 0 = provider default
  size_t rx_queue_depth = 0;       // rx_attr->size; 0 = provider default
  ProgressMode progress = ProgressMode::manual;
  ImmediateMode write_immediate = ImmediateMode::automatic;
  bool inject = true;  // small sends with fi_tinject (completed at post time)
  bool source = true;  // ask for FI_SOURCE (writer rank of remote writes)
  std::chrono::milliseconds keepalive_timeout{4000};  // 0 = no keepalive
  std::chrono::milliseconds connect_timeout{30000};
  std::chrono::milliseconds shutdown_timeout{10000};
  bool exclude_lost_peers = false;  // on_failure: exclude (the provider must survive it)
};

const std::vector<KeySpec>& lf_option_specs();

// Reads config.driver_options (keys as in lf_option_specs()); throws
// ConfigError naming the key on a bad value. `config` may be null (defaults).
LfOptions parse_lf_options(const Config* config);

const char* to_string(ImmediateMode mode);
const char* to_string(ProgressMode mode);

}  // namespace evb::libfabric
