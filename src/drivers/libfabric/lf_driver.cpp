// Setup and teardown of the libfabric driver: provider choice, endpoint,
// connect (AV insert + hello), registration, shutdown.
#include "drivers/libfabric/lf_driver.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"
#include "drivers/common/hello_wait.hpp"
#include "drivers/common/rank_tags.hpp"

namespace evb::libfabric {

namespace {

// Internal receives kept posted; they share the receive queue with the
// caller's, so they take at most a quarter of it (the provider buffers control
// messages that arrive while all are busy).
constexpr size_t kControlReceives = 4;
constexpr size_t kCqDataReceives = 64;
constexpr size_t kMaxMessage = 1ull << 30;

std::string requested_node(const DriverContext& c, const LfOptions& o, const std::string& prov) {
  if (o.interface == "any") return {};
  if (o.interface != "auto") return o.interface;
  // Keep IP providers on loopback when every rank is on this host.
  if (c.all_local && (prov == "auto" || is_ip_provider(prov))) return "127.0.0.1";
  return {};
}

}  // namespace

std::string LfDriver::prefix() const {
  return name_ + ": rank " + std::to_string(context_.rank);
}

std::string LfDriver::rank_name(PeerId peer) const {
  return peer == kAnyPeer ? std::string("any rank") : "rank " + std::to_string(peer);
}

LfDriver::LfDriver(const DriverContext& context, LfOptions options)
    : context_(context), options_(std::move(options)) {
  const std::string prov = canonical_provider(options_.provider);
  name_ = "libfabric/" + prov;
  if (context_.size < 1 || context_.size > kMaxRanks || context_.rank < 0 ||
      context_.rank >= context_.size)
    throw ConfigError(prefix() + ": rank " + std::to_string(context_.rank) + " of " +
                      std::to_string(context_.size) + " is out of range (at most " +
                      std::to_string(kMaxRanks) + " ranks)");

  InfoRequest request;
  request.provider = prov;
  request.domain = options_.domain;
  request.node = requested_node(context_, options_, prov);
  request.tx_size = options_.tx_queue_depth;
  request.rx_size = options_.rx_queue_depth;
  request.manual_progress = options_.progress == ProgressMode::manual;
  // shm matches on exact tags and the source address (exact_tags_ below).
  const bool shm = prov == "shm";
  request.want_source = options_.source || shm;
  request.directed_recv = shm;
  std::string why;
  InfoPtr info = select_info(request, &why);
  if (info && !shm && std::string(info->fabric_attr->prov_name) == "shm") {
    // provider auto chose shm: ask again with what shm needs (and no IP
    // address: shm would take it as every rank's endpoint name).
    request.provider = "shm";
    request.node = requested_node(context_, options_, "shm");
    request.want_source = request.directed_recv = true;
    info = select_info(request, &why);
  }
  if (!info) {
    std::string wanted = "provider=" + options_.provider;
    if (!request.domain.empty()) wanted += " domain=" + request.domain;
    if (!request.node.empty()) wanted += " interface=" + request.node;
    throw Error(prefix() + ": no usable libfabric endpoint for " + wanted + ": " + why +
                " (`evbench drivers` lists the providers usable here)");
  }
  name_ = std::string("libfabric/") + info->fabric_attr->prov_name;
  source_ = (info->caps & FI_SOURCE) != 0;
  if (std::string(info->fabric_attr->prov_name) == "shm") {
    if (!source_ || !(info->caps & FI_DIRECTED_RECV))
      throw Error(prefix() +
                  ": provider shm without FI_SOURCE and FI_DIRECTED_RECV: the driver needs "
                  "both to match shm's unexpected messages exactly "
                  "(docs/drivers/libfabric.md, \"Exact tags on shm\")");
    exact_tags_ = true;
  }
  if (options_.exclude_lost_peers && !survives_peer_loss(info->fabric_attr->prov_name))
    throw ConfigError(prefix() + ": on_failure: exclude is not supported over provider " +
                      info->fabric_attr->prov_name +
                      " (a lost peer stalls the survivors or is never reported; "
                      "docs/drivers/libfabric.md, \"What it survives\"): use "
                      "driver_options.provider=tcp, or on_failure: abort");

  const bool has_cq_data = info->domain_attr->cq_data_size >= 4;
  if (options_.write_immediate == ImmediateMode::native && !has_cq_data)
    throw ConfigError(prefix() +
                      ": driver_options.write_immediate: native needs remote CQ data, "
                      "the provider has cq_data_size " +
                      std::to_string(info->domain_attr->cq_data_size) + " (use auto or emulated)");
  emulate_ = options_.write_immediate == ImmediateMode::emulated || !has_cq_data;
  wide_cq_data_ = info->domain_attr->cq_data_size >= 8;
  packing_ = CqDataPacking::for_ranks(static_cast<uint64_t>(context_.size));
  packed_max_ = packing_.max_bytes();
  emulate_ordered_ = (info->tx_attr->msg_order & FI_ORDER_SAW) != 0 &&
                     (info->rx_attr->msg_order & FI_ORDER_SAW) != 0;
  rx_cq_data_ =
      !emulate_ && ((info->mode & FI_RX_CQ_DATA) || (info->rx_attr->mode & FI_RX_CQ_DATA));

  fabric_ = std::make_unique<FabricSet>(std::move(info), prefix());
  try {
    open_endpoint();
  } catch (...) {
    teardown(false);  // receives may be posted already: close before freeing
    throw;
  }
}

void LfDriver::open_endpoint() {
  const fi_info& fi = fabric_->info();
  memory_ = std::make_unique<MemoryRegistrar>(fabric_->domain(), fabric_->ep(), fi);
  slots_ = std::make_unique<CtlSlots>(
      [this](void* base, size_t size, void** desc) -> std::shared_ptr<void> {
        std::shared_ptr<LfRegistration> reg =
            memory_->register_memory(base, size, prefix() + ": control buffers");
        *desc = reg->descriptor();
        return reg;
      },
      64);

  caps_.max_segments = std::max<size_t>(1, fi.tx_attr->iov_limit);
  caps_.max_message = std::min<size_t>(fi.ep_attr->max_msg_size, kMaxMessage);
  caps_.inline_size = options_.inject ? fi.tx_attr->inject_size : 0;
  caps_.tag_bits = 32;
  caps_.rdma_write = (fi.caps & FI_RMA) && (fi.caps & FI_WRITE) && fi.tx_attr->rma_iov_limit >= 1;
  caps_.write_preferred = caps_.rdma_write && writes_beat_sends(fi.fabric_attr->prov_name);
  caps_.write_immediate = caps_.rdma_write && !emulate_;
  caps_.registration_required = memory_->local();
  caps_.packed_key_size = memory_->packed_key_size();
  caps_.ordered_per_peer = (fi.tx_attr->msg_order & FI_ORDER_SAS) != 0;
  caps_.zero_copy_send = true;
  caps_.can_block = fabric_->wait_fd() >= 0;
  caps_.alltoall = false;
  caps_.survives_peer_loss = survives_peer_loss(fi.fabric_attr->prov_name);
  caps_.descriptors_per_peer = 2;  // tcp;ofi_rxm: a connection, two while both sides connect
  caps_.shared_memory_path = moves_by_memory_copy(fi.fabric_attr->prov_name);
  caps_.read_rendezvous_above = read_rendezvous_above(fi.fabric_attr->prov_name);
  inject_buf_.resize(caps_.inline_size);

  peers_.resize(context_.size);
  book_.resize(context_.size);
  tx_queue_.resize(static_cast<size_t>(context_.size));
  post_internal_receives();

  // The endpoint's own address (the port is chosen once it is enabled).
  std::string addr(256, '\0');
  size_t len = addr.size();
  int rc = fi_getname(&fabric_->ep()->fid, addr.data(), &len);
  if (rc == -FI_ETOOSMALL) {
    addr.resize(len);
    rc = fi_getname(&fabric_->ep()->fid, addr.data(), &len);
  }
  if (rc != 0) throw Error(prefix() + ": fi_getname failed: " + fi_error(rc));
  addr.resize(len);
  address_ = std::move(addr);

  // This rank in its own AV: sends to oneself, and the length probe.
  fi_addr_t self = FI_ADDR_NOTAVAIL;
  rc = fi_av_insert(fabric_->av(), address_.data(), 1, &self, 0, nullptr);
  if (rc != 1)
    throw Error(prefix() +
                ": fi_av_insert of its own address failed: " + fi_error(rc < 0 ? rc : -FI_EINVAL));
  peers_[context_.rank].addr = self;
  by_addr_[self] = context_.rank;

  if (caps_.rdma_write && !emulate_) probe_immediate_length();
}

void LfDriver::probe_immediate_length() {
  // Remote CQ data completions need not carry the write's length (the spec
  // promises `len` for receives only; tcp;ofi_rxm leaves it 0), but
  // remote_write.bytes must be right. One small write to this rank's own
  // memory tells; without the length, write_immediate: auto switches to the
  // emulated immediate, whose notification carries it, and native (forced)
  // on a provider with 64 bits of CQ data gets a second probe with the length
  // and writer packed into the upper 32 (lf_cq_data.hpp). Not under auto:
  // over tcp;ofi_rxm packed writes measured no faster than the notification
  // at window 32 and mostly slower at window 1 (docs/drivers/libfabric.md,
  // "Against bench/fi_rma_bw.c"). The probes' own completions never reach
  // the caller, even if they come late.
  probe_buf_.assign(64, std::byte{0});
  probe_reg_ =
      memory_->register_memory(probe_buf_.data(), probe_buf_.size(), prefix() + ": length probe");
  immediate_length_ = probe_once();
  if (!immediate_length_ && wide_cq_data_ && options_.write_immediate == ImmediateMode::native) {
    packed_ = true;
    packed_ = probe_once();
  }
  if (!immediate_length_ && !packed_ && options_.write_immediate == ImmediateMode::automatic) {
    emulate_ = true;
    caps_.write_immediate = false;
  }
}

bool LfDriver::probe_once() {
  auto key = memory_->unpack(context_.rank, probe_reg_->packed_key(), prefix());
  const Segment segment{probe_buf_.data(), kProbeBytes, probe_reg_.get()};
  probe_pending_ = true;
  probe_failed_ = false;
  probe_bytes_ = 0;
  write(context_.rank, {&segment, 1}, *key, 32, kProbeImmediate, 0, true);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (probe_pending_ && !probe_failed_ && std::chrono::steady_clock::now() < deadline)
    progress();
  done_.clear();  // a refused probe's completion; nothing of the caller's yet
  done_.forget_error();
  return !probe_pending_ && probe_bytes_ == kProbeBytes;
}

LfDriver::~LfDriver() {
  teardown(false);
}

void LfDriver::post_internal_receives() {
  auto post = [&](OpKind kind) {
    Op* op = ops_.acquire(kind);
    op->slot = slots_->acquire();
    op->fi_tag = kInternalBit | kControlTag;
    op->ignore = exact_tags_ ? 0 : kRankMask;
    internal_recvs_.push_back(op);
    submit_rx(op);
  };
  const size_t rx_size = fabric_->info().rx_attr->size;
  const size_t share = rx_size ? std::max<size_t>(1, rx_size / 4) : kCqDataReceives;
  for (size_t i = 0; i < std::min(kControlReceives, share); ++i) post(OpKind::ctl_recv);
  if (rx_cq_data_) {
    for (size_t i = 0; i < std::min(kCqDataReceives, share); ++i) post(OpKind::cqdata_recv);
  }
}

RegistrationPtr LfDriver::register_memory(void* base, size_t size) {
  if (shut_down_) throw Error(prefix() + ": register_memory after shutdown");
  return memory_->register_memory(base, size, prefix());
}

RemoteKeyPtr LfDriver::unpack_key(PeerId peer, std::span<const std::byte> packed) {
  if (!caps_.rdma_write) return Driver::unpack_key(peer, packed);
  if (!valid_rank(peer))
    throw Error(prefix() + ": unpack_key: rank " + std::to_string(peer) + " out of range");
  return memory_->unpack(peer, packed, prefix());
}

void LfDriver::shutdown() {
  if (shut_down_) return;
  teardown(true);
}

void LfDriver::teardown(bool graceful) noexcept {
  if (shut_down_ || !fabric_) return;
  try {
    using clock = std::chrono::steady_clock;
    if (graceful) {
      const auto deadline = clock::now() + options_.shutdown_timeout;
      // Goodbye to every peer still open, after everything already queued;
      // goodbyes that already arrived are taken in first.
      progress();
      if (connected_) {
        CtlMessage bye;
        bye.kind = CtlKind::bye;
        bye.rank = static_cast<uint32_t>(context_.rank);
        bye.size = static_cast<uint32_t>(context_.size);
        for (PeerId r = 0; r < context_.size; ++r) {
          if (book_.is_open(r)) submit_tx(make_control(r, bye));
        }
      }
      // Wait for the goodbyes, except to peers that said goodbye meanwhile
      // (their endpoints may be gone).
      auto goodbyes_pending = [&] {
        for (Op* op : ops_.live_ops()) {
          if (op->kind == OpKind::ctl_send && static_cast<CtlKind>(op->tag) == CtlKind::bye &&
              book_.is_open(op->peer))
            return true;
        }
        return false;
      };
      while ((!tx_queue_.empty() || goodbyes_pending()) && clock::now() < deadline) progress();
      if (!tx_queue_.empty() || goodbyes_pending()) {
        // The deadline passed: say for whom (one line), then close anyway.
        std::vector<PeerId> waiting;
        for (Op* op : ops_.live_ops())
          if (op->kind == OpKind::ctl_send && static_cast<CtlKind>(op->tag) == CtlKind::bye &&
              book_.is_open(op->peer))
            waiting.push_back(op->peer);
        std::sort(waiting.begin(), waiting.end());
        char waited[32];
        std::snprintf(waited, sizeof waited, "%.1f", options_.shutdown_timeout.count() / 1000.0);
        std::fputs(("evbench: " + prefix() + ": shutdown waited " + waited +
                    " s (driver_options.shutdown_timeout) for its goodbyes" +
                    (waiting.empty() ? std::string(" (still queued by the provider)")
                                     : " to rank(s) " + rank_list(waiting)) +
                    " to be delivered; closing without them\n")
                       .c_str(),
                   stderr);
      }
      // Cancel the receives still posted and collect the cancellations.
      closing_ = true;
      const std::string reason = prefix() + ": receive cancelled by shutdown()";
      for (Op* op : ops_.live_ops()) {
        if (op->kind == OpKind::recv || op->kind == OpKind::ctl_recv ||
            op->kind == OpKind::cqdata_recv) {
          if (op->in_flight) cancel(op, OpStatus::error, reason);
        }
      }
      const auto cancel_deadline =
          std::min(deadline, clock::now() + std::chrono::milliseconds(500));
      auto receives_in_flight = [&] {
        for (Op* op : ops_.live_ops()) {
          if (op->in_flight && op->kind != OpKind::send && op->kind != OpKind::write &&
              op->kind != OpKind::ctl_send)
            return true;
        }
        return false;
      };
      while (receives_in_flight() && clock::now() < cancel_deadline) progress();
    }
    closing_ = true;
    shut_down_ = true;
    // Whatever is left never completes through libfabric (the endpoint closes
    // next): user operations complete here with an error, exactly once;
    // internal ones are dropped.
    const std::string why = prefix() + ": shut down before the operation completed";
    const std::vector<Op*> left = ops_.live_ops();
    for (Op* op : left) op->in_flight = false;
    for (Op* op : left) {
      if (!op->live) continue;  // released as part of another one
      if (op->reported || op->abandoned) {
        retire(op);
        continue;
      }
      switch (op->kind) {
        case OpKind::send:
        case OpKind::recv:
          finish_user(op, OpStatus::error, 0, op->peer, op->tag, why);
          break;
        case OpKind::write:
          if (Op* note = std::exchange(op->follow_up, nullptr)) retire(note);
          op->parts = 1;
          write_part_done(op, OpStatus::error, why);
          break;
        case OpKind::ctl_send:
          if (Op* parent = std::exchange(op->parent, nullptr))
            write_part_done(parent, OpStatus::error, why);
          retire(op);
          break;
        case OpKind::ctl_recv:
        case OpKind::cqdata_recv:
          retire(op);
          break;
      }
    }
    tx_queue_.clear();
    rx_queue_.clear();
    user_recvs_.clear();
    internal_recvs_.clear();
  } catch (...) {
    // Teardown never throws; the objects are closed below regardless.
  }
  shut_down_ = true;
  closing_ = true;
  // Close order: endpoint, AV, CQ, then the driver's own MRs; the domain and
  // fabric close with fabric_ (after the caller's registrations are gone).
  fabric_->close_endpoint();
  if (memory_) memory_->set_endpoint(nullptr);
  probe_reg_.reset();
  if (slots_) slots_->clear();
}

std::unique_ptr<Driver> make_lf_driver(const DriverContext& context, const LfOptions& options) {
  return std::make_unique<LfDriver>(context, options);
}

}  // namespace evb::libfabric
