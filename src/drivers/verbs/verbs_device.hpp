#pragma once
// The libibverbs objects one verbs driver instance owns, opened in order and
// released in reverse: device context, protection domain, completion channel
// and one completion queue for every queue pair (sends and receives), a
// shared receive queue when the device has one big enough, and one
// reliable-connected queue pair per other rank, taken to INIT at once so
// that its number can go into the bootstrap address.
#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "drivers/verbs/verbs_address.hpp"
#include "drivers/verbs/verbs_options.hpp"
#include "drivers/verbs/verbs_qp_attr.hpp"
#include "drivers/verbs/verbs_wire.hpp"

namespace evb::verbs {

class VerbsDevice {
 public:
  // Opens options.device (or the first device whose options.port is
  // active) and creates everything but the queue pairs. `ranks` sizes the
  // completion and shared receive queues. Throws evb::Error naming the
  // device, port and the option to change.
  VerbsDevice(const VerbsOptions& options, int ranks, const std::string& prefix);
  ~VerbsDevice();
  VerbsDevice(const VerbsDevice&) = delete;
  VerbsDevice& operator=(const VerbsDevice&) = delete;

  // A reliable-connected queue pair in INIT (throws evb::Error).
  ibv_qp* create_qp();
  // Applies one transition; an empty string on success, else why not.
  std::string modify(ibv_qp* qp, const QpTransition& t, const char* state);
  // Destroys every queue pair (their work requests are gone with them, and
  // the HCA touches none of their buffers any more). release() does it too.
  void destroy_qps() noexcept;

  const std::string& name() const { return name_; }  // "mlx5_0:1"
  ibv_context* context() const { return ctx_; }
  ibv_pd* pd() const { return pd_; }
  ibv_cq* cq() const { return cq_; }
  ibv_comp_channel* channel() const { return channel_; }
  ibv_srq* srq() const { return srq_; }  // null: receive queue per queue pair
  const LocalPort& port() const { return port_; }
  const ReceivePlan& receives() const { return plan_; }
  uint16_t lid() const { return lid_; }
  const std::array<uint8_t, 16>& gid() const { return gid_; }
  size_t max_sge() const { return max_sge_; }
  size_t max_inline() const { return max_inline_; }  // what every queue pair really got
  uint64_t max_message() const { return max_message_; }

  // Counts a completion event taken with ibv_get_cq_event; they are
  // acknowledged in batches (acknowledging takes a lock) and at the end.
  void event_taken() {
    if (++unacked_events_ >= kAckBatch) {
      ibv_ack_cq_events(cq_, unacked_events_);
      unacked_events_ = 0;
    }
  }
  static constexpr unsigned kAckBatch = 256;

 private:
  void open(const std::string& prefix);
  void release() noexcept;
  void query_port(const std::string& prefix);

  const VerbsOptions& options_;
  int ranks_;
  std::string name_;
  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_comp_channel* channel_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_srq* srq_ = nullptr;
  LocalPort port_;
  ReceivePlan plan_;
  uint16_t lid_ = 0;
  std::array<uint8_t, 16> gid_{};
  size_t max_sge_ = 1;
  size_t max_inline_ = 0;
  uint64_t max_message_ = 0;
  size_t max_qp_wr_ = 0;
  unsigned unacked_events_ = 0;
  std::vector<ibv_qp*> qps_;  // created by create_qp, owned here
};

}  // namespace evb::verbs
