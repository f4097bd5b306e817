// The verbs driver's options: one row each (drivers/common/option_table.hpp).
#include "drivers/verbs/verbs_options.hpp"

#include "core/error.hpp"
#include "drivers/common/chassis_options.hpp"
#include "drivers/common/option_table.hpp"

namespace evb::verbs {

namespace {

constexpr double kMaxQueueDepth = 32768;
constexpr double kMaxCredits = 4096;

const char* device_name(const std::string& value) {
  return value.empty() || value.find_first_of(" \t\n/") != std::string::npos ? "device name"
                                                                             : nullptr;
}

using T = OptionTable<VerbsOptions>;

const T& table() {
  static const T rows(
      {
          T::text("device", &VerbsOptions::device, "auto",
                  "RDMA device (ibv_devices lists them: mlx5_0, hfi1_0, rxe0); auto = the first "
                  "device with an active port",
                  device_name),
          T::integer("port", &VerbsOptions::port, "1", "", 1, 255, "port of the device (1-based)"),
          T::integer(
              "gid_index", &VerbsOptions::gid_index, "-1", "", -1, 255,
              "GID table index for RoCE and routed InfiniBand (show_gids lists them); -1 = LID "
              "addressing on InfiniBand ports, GID 0 on Ethernet (RoCE) ports"),
          T::integer(
              "send_queue_depth", &VerbsOptions::send_queue_depth, "256", "WRs", 16, kMaxQueueDepth,
              "send work requests in flight per queue pair; a full queue holds further posts "
              "back (back-pressure) instead of overflowing"),
          T::integer("command_credits", &VerbsOptions::command_credits, "64", "messages", 1,
                     kMaxCredits,
                     "receive buffers kept posted for each peer (its send credits): a peer never "
                     "sends without a posted buffer, so receiver-not-ready retries cannot happen"),
          T::integer("signal_interval", &VerbsOptions::signal_interval, "16", "WRs", 1,
                     kMaxQueueDepth,
                     "at most this many internal (credit, notify) sends in a row go unsignalled; "
                     "every user operation is signalled; must not exceed send_queue_depth"),
          T::size(
              "max_inline", &VerbsOptions::max_inline, "64", 0, 1024,
              "sends up to this size are copied into the work request (IBV_SEND_INLINE); capped "
              "by what the device grants"),
          T::integer("timeout", &VerbsOptions::timeout, "14", "", 0, 31,
                     "local ACK timeout exponent (4.096 us x 2^timeout; 14 = 67 ms; 0 = infinite)"),
          T::integer("retry_count", &VerbsOptions::retry_count, "7", "", 0, 7,
                     "transport retries after an ACK timeout before the peer is declared lost"),
          T::integer("rnr_retry", &VerbsOptions::rnr_retry, "0", "", 0, 7,
                     "receiver-not-ready retries (7 = infinite); 0 turns an RNR, which the credits "
                     "rule out, into an immediate error"),
          T::duration(
              "keepalive_interval", &VerbsOptions::keepalive_interval, "1s",
              "how often an idle connection is probed (the credit word rewritten by an RDMA "
              "WRITE): a "
              "killed peer is reported within this plus timeout x (retry_count + 1); 0 = never (a "
              "dead peer is then noticed only when something is sent to it)"),
      },
      chassis_rows<VerbsOptions>(
          {"how long connect() waits for every peer's queue pair to be ready",
           "how long shutdown() waits for outstanding sends to drain"}));
  return rows;
}

}  // namespace

const std::vector<KeySpec>& verbs_option_specs() {
  return table().specs();
}

VerbsOptions parse_verbs_options(const Config* config) {
  VerbsOptions o = table().parse(config);
  if (o.signal_interval > o.send_queue_depth)
    throw ConfigError("driver_options.signal_interval (" + std::to_string(o.signal_interval) +
                      ") must not exceed driver_options.send_queue_depth (" +
                      std::to_string(o.send_queue_depth) + ")");
  return o;
}

}  // namespace evb::verbs
