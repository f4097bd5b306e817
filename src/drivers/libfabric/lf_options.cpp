// The libfabric driver's options: one row each
// (drivers/common/option_table.hpp).
#include "drivers/libfabric/lf_options.hpp"

#include "drivers/common/chassis_options.hpp"
#include "drivers/common/option_table.hpp"

namespace evb::libfabric {

namespace {

const char* provider_name(const std::string& value) {
  return value.empty() || value.find_first_of(" \t\n") != std::string::npos ? "provider name"
                                                                            : nullptr;
}

using T = OptionTable<LfOptions>;

const T& table() {
  static const T rows(
      {
          T::text(
              "provider", &LfOptions::provider, "auto",
              "libfabric provider: auto, tcp (= tcp;ofi_rxm), shm, sockets, udp (= udp;ofi_rxd), "
              "verbs (= verbs;ofi_rxm), psm2, psm3, efa, cxi or a full name like tcp;ofi_rxm",
              provider_name),
          T::text("domain", &LfOptions::domain, "",
                  "fi_info domain name to use (e.g. mlx5_0, hfi1_0, cxi0, eth0); empty = the first "
                  "usable"),
          T::text("interface", &LfOptions::interface, "auto",
                  "source address for IP providers (tcp, sockets, udp); auto = 127.0.0.1 when all "
                  "ranks are local, else the provider's choice; any = the provider's choice"),
          T::integer("tx_queue_depth", &LfOptions::tx_queue_depth, "0", "ops", 0, 1048576,
                     "transmit queue size requested (tx_attr.size); 0 = provider default"),
          T::integer("rx_queue_depth", &LfOptions::rx_queue_depth, "0", "ops", 0, 1048576,
                     "receive queue size requested (rx_attr.size); 0 = provider default"),
          T::integer(
              "rxm_rx_buffers", &LfOptions::rxm_rx_buffers, "0", "buffers", 0, 1048576,
              "receive buffers of ofi_rxm's connections (FI_OFI_RXM_MSG_RX_SIZE; over tcp one "
              "shared receive context of that many 16 KiB buffers per rank); 0 = the "
              "library's 4096 (64 MiB) divided among the ranks on this host, at least 256; "
              "FI_OFI_RXM_MSG_RX_SIZE set in the environment wins"),
          T::choice(
              "progress", &LfOptions::progress, "manual",
              std::vector<std::pair<const char*, ProgressMode>>{{"manual", ProgressMode::manual},
                                                                {"auto", ProgressMode::automatic}},
              "data progress requested: manual = driven by poll()/wait() only, auto = provider "
              "threads may progress too"),
          T::choice(
              "write_immediate", &LfOptions::write_immediate, "auto",
              std::vector<std::pair<const char*, ImmediateMode>>{
                  {"auto", ImmediateMode::automatic},
                  {"native", ImmediateMode::native},
                  {"emulated", ImmediateMode::emulated}},
              "rdma_write immediates: native remote CQ data (auto when the provider has it) or "
              "an ordered tagged notification (emulated)"),
          T::boolean("inject", &LfOptions::inject, "true",
                     "send messages up to the provider's inject_size with fi_tinject (copied, "
                     "completed at post time)"),
          T::boolean(
              "source", &LfOptions::source, "true",
              "ask for FI_SOURCE so remote_write completions name the writer (falls back when "
              "the provider lacks it)"),
          T::duration("keepalive_timeout", &LfOptions::keepalive_timeout, "4s",
                      "a peer this rank waits on that answers no keepalive for this long is lost "
                      "(pings go to peers quiet for a quarter of it); 0 = off"),
      },
      chassis_rows<LfOptions>(
          {"how long connect() waits for the hello of every peer before failing",
           "how long shutdown() waits to deliver its goodbyes and cancel receives"}));
  return rows;
}

}  // namespace

const std::vector<KeySpec>& lf_option_specs() {
  return table().specs();
}

LfOptions parse_lf_options(const Config* config) {
  LfOptions o = table().parse(config);
  o.exclude_lost_peers = config != nullptr && config->on_failure == OnFailure::exclude;
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
