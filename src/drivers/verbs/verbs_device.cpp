#include "drivers/verbs/verbs_device.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace evb::verbs {

namespace {

// Completion-queue entries kept spare beyond the accounted maximum.
constexpr size_t kCqSlack = 64;

std::string errno_text(int e) {
  return std::strerror(e);
}

}  // namespace

VerbsDevice::VerbsDevice(const VerbsOptions& options, int ranks, const std::string& prefix)
    : options_(options), ranks_(ranks) {
  try {
    open(prefix);
    query_port(prefix);
    ibv_device_attr attr{};
    if (ibv_query_device(ctx_, &attr) != 0)
      throw Error(prefix + ": ibv_query_device(" + name_ + "): " + errno_text(errno));
    max_qp_wr_ = static_cast<size_t>(attr.max_qp_wr);
    max_sge_ = static_cast<size_t>(std::max(attr.max_sge, 1));
    max_inline_ = options_.max_inline;
    if (options_.send_queue_depth > max_qp_wr_)
      throw ConfigError(prefix + ": driver_options.send_queue_depth = " +
                        std::to_string(options_.send_queue_depth) + " exceeds " + name_ + "'s " +
                        std::to_string(max_qp_wr_) + " work requests per queue pair");
    const size_t peers = static_cast<size_t>(std::max(ranks_ - 1, 1));
    plan_ = plan_receives(options_.command_credits, peers,
                          DeviceLimits{max_qp_wr_, static_cast<size_t>(attr.max_srq),
                                       static_cast<size_t>(attr.max_srq_wr)});
    if (!plan_.error.empty()) throw ConfigError(prefix + ": " + name_ + ": " + plan_.error);

    pd_ = ibv_alloc_pd(ctx_);
    if (!pd_) throw Error(prefix + ": ibv_alloc_pd(" + name_ + "): " + errno_text(errno));
    channel_ = ibv_create_comp_channel(ctx_);
    if (!channel_)
      throw Error(prefix + ": ibv_create_comp_channel(" + name_ + "): " + errno_text(errno));
    // Every send slot and every receive buffer of every queue pair can
    // complete at once (a flush after an error does exactly that).
    const size_t cqe = peers * (options_.send_queue_depth + options_.command_credits) + kCqSlack;
    if (cqe > static_cast<size_t>(attr.max_cqe))
      throw ConfigError(prefix + ": " + std::to_string(ranks_) + " ranks x (send_queue_depth " +
                        std::to_string(options_.send_queue_depth) + " + command_credits " +
                        std::to_string(options_.command_credits) + ") completions exceed " + name_ +
                        "'s completion queue of " + std::to_string(attr.max_cqe) +
                        "; lower driver_options.send_queue_depth or command_credits");
    cq_ = ibv_create_cq(ctx_, static_cast<int>(cqe), nullptr, channel_, 0);
    if (!cq_) throw Error(prefix + ": ibv_create_cq(" + name_ + "): " + errno_text(errno));
    if (plan_.shared) {
      ibv_srq_init_attr sa{};
      sa.attr.max_wr = static_cast<uint32_t>(plan_.total);
      sa.attr.max_sge = 1;
      srq_ = ibv_create_srq(pd_, &sa);
      if (!srq_) {
        // The device announced shared receive queues but would not make
        // this one: per-queue-pair receive queues instead.
        plan_ = plan_receives(options_.command_credits, peers, DeviceLimits{max_qp_wr_, 0, 0});
        if (!plan_.error.empty()) throw ConfigError(prefix + ": " + name_ + ": " + plan_.error);
      }
    }
  } catch (...) {
    release();
    throw;
  }
}

VerbsDevice::~VerbsDevice() {
  release();
}

void VerbsDevice::release() noexcept {
  destroy_qps();
  if (srq_) ibv_destroy_srq(srq_);
  srq_ = nullptr;
  if (cq_) {
    if (unacked_events_ > 0) ibv_ack_cq_events(cq_, unacked_events_);
    unacked_events_ = 0;
    ibv_destroy_cq(cq_);
  }
  cq_ = nullptr;
  if (channel_) ibv_destroy_comp_channel(channel_);
  channel_ = nullptr;
  if (pd_) ibv_dealloc_pd(pd_);
  pd_ = nullptr;
  if (ctx_) ibv_close_device(ctx_);
  ctx_ = nullptr;
}

void VerbsDevice::open(const std::string& prefix) {
  int count = 0;
  ibv_device** list = ibv_get_device_list(&count);
  if (!list || count == 0) {
    if (list) ibv_free_device_list(list);
    throw Error(prefix + ": no RDMA device found (ibv_get_device_list)");
  }
  std::string seen;
  for (int i = 0; i < count && !ctx_; ++i) {
    const std::string dev = ibv_get_device_name(list[i]) ? ibv_get_device_name(list[i]) : "?";
    seen += (seen.empty() ? "" : ", ") + dev;
    if (options_.device != "auto" && options_.device != dev) continue;
    ibv_context* ctx = ibv_open_device(list[i]);
    if (!ctx) continue;
    ibv_port_attr pa{};
    const bool active = ibv_query_port(ctx, options_.port, &pa) == 0 && pa.state == IBV_PORT_ACTIVE;
    if (options_.device == "auto" && !active) {
      ibv_close_device(ctx);
      continue;
    }
    ctx_ = ctx;
    name_ = dev + ":" + std::to_string(options_.port);
  }
  ibv_free_device_list(list);
  if (!ctx_) {
    if (options_.device == "auto")
      throw Error(prefix + ": no device has port " + std::to_string(options_.port) +
                  " active (devices: " + seen + "); set driver_options.device / port");
    throw ConfigError(prefix + ": driver_options.device = '" + options_.device +
                      "' cannot be opened (devices: " + seen + ")");
  }
}

void VerbsDevice::query_port(const std::string& prefix) {
  ibv_port_attr pa{};
  if (ibv_query_port(ctx_, options_.port, &pa) != 0)
    throw ConfigError(prefix + ": driver_options.port = " + std::to_string(options_.port) + ": " +
                      name_ + " has no such port");
  if (pa.state != IBV_PORT_ACTIVE)
    throw Error(prefix + ": " + name_ + " is not active (state " + ibv_port_state_str(pa.state) +
                "); set driver_options.device / port");
  const bool ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
  port_.port = options_.port;
  port_.mtu = static_cast<uint8_t>(pa.active_mtu);
  port_.use_gid = ethernet || options_.gid_index >= 0;
  port_.gid_index = static_cast<uint8_t>(std::max(options_.gid_index, 0));
  lid_ = pa.lid;
  max_message_ = pa.max_msg_sz;
  if (!port_.use_gid && lid_ == 0)
    throw ConfigError(prefix + ": " + name_ +
                      " has no LID (subnet manager not running?); set "
                      "driver_options.gid_index to address by GID");
  if (port_.use_gid) {
    if (port_.gid_index >= pa.gid_tbl_len)
      throw ConfigError(prefix + ": driver_options.gid_index = " + std::to_string(port_.gid_index) +
                        " is beyond " + name_ + "'s GID table of " +
                        std::to_string(pa.gid_tbl_len));
    ibv_gid gid{};
    if (ibv_query_gid(ctx_, options_.port, port_.gid_index, &gid) != 0)
      throw Error(prefix + ": ibv_query_gid(" + name_ + ", " + std::to_string(port_.gid_index) +
                  "): " + errno_text(errno));
    std::copy(std::begin(gid.raw), std::end(gid.raw), gid_.begin());
    if (gid_ == std::array<uint8_t, 16>{})
      throw ConfigError(prefix + ": driver_options.gid_index = " + std::to_string(port_.gid_index) +
                        ": that GID of " + name_ + " is empty (show_gids lists the valid ones)");
  }
}

ibv_qp* VerbsDevice::create_qp() {
  ibv_qp_init_attr ia{};
  ia.send_cq = cq_;
  ia.recv_cq = cq_;
  ia.srq = srq_;
  ia.qp_type = IBV_QPT_RC;
  ia.sq_sig_all = 0;  // selective signalling
  // Devices bound the work-request size, so the largest gather list and
  // inline size may not both fit: fewer segments, then no inline data,
  // until the device takes the queue pair.
  ibv_qp* qp = nullptr;
  int err = 0;
  for (size_t sge = max_sge_; !qp && sge >= 1; sge /= 2) {
    for (size_t inl : {std::min(options_.max_inline, max_inline_), size_t{0}}) {
      ia.cap.max_send_wr = static_cast<uint32_t>(options_.send_queue_depth);
      ia.cap.max_recv_wr = srq_ ? 0 : static_cast<uint32_t>(plan_.per_qp);
      ia.cap.max_recv_sge = 1;
      ia.cap.max_send_sge = static_cast<uint32_t>(sge);
      ia.cap.max_inline_data = static_cast<uint32_t>(inl);
      qp = ibv_create_qp(pd_, &ia);
      if (qp) break;
      err = errno;
    }
  }
  if (!qp)
    throw Error("verbs: ibv_create_qp(" + name_ + ", send_queue_depth " +
                std::to_string(options_.send_queue_depth) + "): " + errno_text(err));
  // The device may grant more than asked (never less): keep what every
  // queue pair has, so one gather list and inline size fit them all.
  max_inline_ = std::min<size_t>({max_inline_, ia.cap.max_inline_data, options_.max_inline});
  max_sge_ = std::min<size_t>(max_sge_, ia.cap.max_send_sge);
  const QpTransition init = init_transition(port_);
  const std::string bad = modify(qp, init, "INIT");
  if (!bad.empty()) {
    ibv_destroy_qp(qp);
    throw Error("verbs: " + name_ + ": " + bad);
  }
  qps_.push_back(qp);
  return qp;
}

std::string VerbsDevice::modify(ibv_qp* qp, const QpTransition& t, const char* state) {
  if (!t.error.empty()) return t.error;
  ibv_qp_attr attr = t.attr;
  const int rc = ibv_modify_qp(qp, &attr, t.mask);
  if (rc != 0) return std::string("ibv_modify_qp to ") + state + ": " + errno_text(rc);
  return {};
}

void VerbsDevice::destroy_qps() noexcept {
  for (ibv_qp* qp : qps_) ibv_destroy_qp(qp);
  qps_.clear();
}

}  // namespace evb::verbs
