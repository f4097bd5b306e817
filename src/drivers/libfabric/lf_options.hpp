#pragma once
// The libfabric driver's run-time parameters (driver_options.*): the KeySpecs
// for validation and docs, and the struct the same table fills.
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"
#include "drivers/common/chassis_options.hpp"

namespace evb::libfabric {

// How the 32-bit immediate of rdma_write reaches the target.
enum class ImmediateMode {
  automatic,  // remote CQ data when the provider has it, else a notification
  native,     // remote CQ data; refuse providers without it
  emulated,   // always an ordered tagged notification (tests, debugging)
};

// FI_PROGRESS_* requested for data progress.
enum class ProgressMode { manual, automatic };

// Filled by parse_lf_options(): the option table (lf_options.cpp) holds
// every default; an LfOptions{} does not (parse_lf_options(nullptr) does).
struct LfOptions : ChassisOptions {
  std::string provider;       // "auto", a short name ("tcp") or "tcp;ofi_rxm"
  std::string domain;         // fi_info domain name ("" = any), e.g. "mlx5_0", "eth0"
  std::string interface;      // "auto", "any" or a source address / host name
  size_t tx_queue_depth = 0;  // tx_attr->size; 0 = provider default
  size_t rx_queue_depth = 0;  // rx_attr->size; 0 = provider default
  size_t rxm_rx_buffers = 0;  // FI_OFI_RXM_MSG_RX_SIZE; 0 = shared among this host's ranks
  ProgressMode progress = ProgressMode::manual;
  ImmediateMode write_immediate = ImmediateMode::automatic;
  bool inject = false;  // small sends with fi_tinject (completed at post time)
  bool source = false;  // ask for FI_SOURCE (writer rank of remote writes)
  std::chrono::milliseconds keepalive_timeout{};  // 0 = no keepalive
  bool exclude_lost_peers = false;  // on_failure: exclude (the provider must survive it)
};

const std::vector<KeySpec>& lf_option_specs();

// The defaults, then config.driver_options (keys as in lf_option_specs()) and
// on_failure; throws ConfigError naming the key on a bad value. `config` may
// be null.
LfOptions parse_lf_options(const Config* config);

const char* to_string(ImmediateMode mode);
const char* to_string(ProgressMode mode);

}  // namespace evb::libfabric
