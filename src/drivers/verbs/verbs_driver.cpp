// Setup and teardown of the verbs driver: device and queue pairs, the
// bootstrap address, connect (RTR/RTS + hello), registration, remote keys,
// shutdown (bye, drain).
#include "drivers/verbs/verbs_driver.hpp"

#include <algorithm>
#include <cstring>
#include <random>

#include "core/error.hpp"
#include "drivers/common/control_message.hpp"
#include "drivers/common/step_until.hpp"
#include "drivers/verbs/verbs_qp_attr.hpp"

namespace evb::verbs {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

std::string VerbsDriver::prefix() const {
  return "verbs: rank " + std::to_string(context_.rank);
}

std::string VerbsDriver::rank_name(PeerId peer) const {
  return peer == kAnyPeer ? std::string("any rank") : "rank " + std::to_string(peer);
}

VerbsDriver::VerbsDriver(const DriverContext& context, VerbsOptions options)
    : context_(context), options_(std::move(options)) {
  if (context_.size < 1 || context_.rank < 0 || context_.rank >= context_.size)
    throw ConfigError(prefix() + ": rank " + std::to_string(context_.rank) + " of " +
                      std::to_string(context_.size) + " is out of range");
  device_ = std::make_unique<VerbsDevice>(options_, context_.size, prefix());
  peers_.resize(static_cast<size_t>(context_.size));
  book_.resize(context_.size);

  // One queue pair per other rank, before the address exchange. Initial
  // PSNs are random (a stale packet of an earlier run is then rejected).
  std::random_device rd;
  std::mt19937 gen(rd());
  for (PeerId r = 0; r < context_.size; ++r) {
    if (r == context_.rank) continue;
    Peer& p = peers_[r];
    p.qp = device_->create_qp();
    p.psn = gen() & kMax24;
    qp_peer_[p.qp->qp_num] = r;
  }

  const size_t ranks = static_cast<size_t>(context_.size);
  credit_words_ = std::make_unique<uint32_t[]>(2 * ranks);
  credit_mr_ = std::make_unique<VerbsRegistration>(device_->pd(), credit_words_.get(),
                                                   2 * ranks * sizeof(uint32_t), prefix());
  const size_t sends = options_.send_queue_depth;
  send_slab_ = std::make_unique<std::byte[]>(sends * kBufferBytes);
  send_mr_ = std::make_unique<VerbsRegistration>(device_->pd(), send_slab_.get(),
                                                 sends * kBufferBytes, prefix());
  for (size_t i = sends; i-- > 0;) free_send_.push_back(static_cast<int32_t>(i));
  sges_.resize(device_->max_sge());

  caps_.max_segments = device_->max_sge();
  caps_.max_message =
      static_cast<size_t>(std::min<uint64_t>(kMaxTaggedMessage, device_->max_message()));
  caps_.inline_size = 0;
  caps_.tag_bits = 32;
  caps_.rdma_write = true;
  caps_.write_preferred = true;  // RDMA write with immediate: the NIC's one-sided path
  caps_.write_immediate = true;
  caps_.registration_required = true;
  caps_.packed_key_size = kPackedRegionSize;
  caps_.ordered_per_peer = true;
  caps_.zero_copy_send = false;  // tagged messages are copied into send buffers
  caps_.can_block = true;
  caps_.alltoall = false;
  caps_.survives_peer_loss = false;  // not declared until its failure path has met hardware
  caps_.descriptors_per_peer = 0;    // queue pairs, not descriptors
}

VerbsDriver::~VerbsDriver() {
  // Queue pairs first: once destroyed, the HCA touches none of the buffers.
  device_->destroy_qps();
  for (Peer& p : peers_) p.qp = nullptr;
  recv_mr_.reset();
  send_mr_.reset();
  credit_mr_.reset();
  device_.reset();
}

std::string VerbsDriver::local_address() {
  VerbsAddress a;
  a.lid = device_->lid();
  a.gid = device_->gid();
  a.use_gid = device_->port().use_gid;
  a.gid_index = device_->port().gid_index;
  a.mtu = device_->port().mtu;
  a.qps.resize(static_cast<size_t>(context_.size));
  for (PeerId r = 0; r < context_.size; ++r) {
    if (peers_[r].qp) a.qps[r] = QpEndpoint{peers_[r].qp->qp_num, peers_[r].psn};
  }
  return encode_address(a);
}

void VerbsDriver::stock_receives(const std::vector<PeerId>& peers) {
  const ReceivePlan& plan = device_->receives();
  if (peers.empty()) return;
  const size_t count = options_.command_credits * std::max<size_t>(peers.size(), 1);
  recv_slab_ = std::make_unique<std::byte[]>(count * kBufferBytes);
  recv_mr_ = std::make_unique<VerbsRegistration>(device_->pd(), recv_slab_.get(),
                                                 count * kBufferBytes, prefix());
  recv_owner_.assign(count, kAnyPeer);
  for (size_t i = 0; i < count; ++i) {
    const PeerId owner = plan.shared ? kAnyPeer : peers[i / options_.command_credits];
    recv_owner_[i] = owner;
    repost(owner, static_cast<uint32_t>(i));
  }
}

std::string VerbsDriver::go_live(PeerId peer, uint32_t received) {
  Peer& p = peers_[peer];
  const QpEndpoint remote{p.remote_qp.qpn, (p.remote_qp.psn + received) & kMax24};
  std::string bad =
      device_->modify(p.qp, rtr_transition(device_->port(), p.remote_port, remote), "RTR");
  if (bad.empty()) bad = device_->modify(p.qp, rts_transition(options_, p.psn), "RTS");
  return bad;
}

void VerbsDriver::bring_up(PeerId peer, const VerbsAddress& address) {
  Peer& p = peers_[peer];
  p.remote_qp = address.qps[static_cast<size_t>(context_.rank)];
  p.remote_port = address;
  p.remote_port.qps.clear();
  const std::string bad = go_live(peer, 0);
  if (!bad.empty())
    throw Error(prefix() + ": queue pair to " + rank_name(peer) + " on " + device_->name() + ": " +
                bad);
  p.sq.emplace(options_.send_queue_depth, options_.signal_interval);
  p.credits.emplace(options_.command_credits);
  p.returns.emplace(options_.command_credits);
  book_.add(peer, PeerState::connecting);
}

bool VerbsDriver::may_rearm(PeerId peer, ibv_wc_status status) const {
  return !connected_ && book_.state(peer) == PeerState::connecting &&
         status == IBV_WC_RETRY_EXC_ERR && Clock::now() < connect_deadline_;
}

// Only the hello (and maybe a credit return) was ever sent on this queue
// pair, and none of it was acknowledged, so this rank's PSN starts again
// where it did; the peer sends nothing but its hello before it has this
// rank's, so the PSN expected from it is its initial one, plus one if its
// hello got here. progress() calls this after emptying the completion
// queue, so no completion of the old queue pair's receives is left but
// flushes, which are ignored while connecting.
void VerbsDriver::rearm(PeerId peer) {
  Peer& p = peers_[peer];
  p.rearm = false;
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RESET;
  std::string bad;
  if (const int rc = ibv_modify_qp(p.qp, &attr, IBV_QP_STATE); rc != 0)
    bad = std::string("ibv_modify_qp to RESET: ") + std::strerror(rc);
  if (bad.empty()) bad = device_->modify(p.qp, init_transition(device_->port()), "INIT");
  if (bad.empty() && !device_->srq()) {
    // RESET dropped this queue pair's receive buffers: post them again.
    for (size_t i = 0; i < recv_owner_.size(); ++i) {
      if (recv_owner_[i] == peer) repost(peer, static_cast<uint32_t>(i));
    }
  }
  if (bad.empty()) bad = go_live(peer, book_.hello_in(peer) ? 1 : 0);
  if (!bad.empty()) {
    peer_down(peer, OpStatus::peer_lost,
              prefix() + ": queue pair to " + rank_name(peer) + " could not be reset: " + bad);
    return;
  }
  p.sq.emplace(options_.send_queue_depth, options_.signal_interval);
  p.credits.emplace(options_.command_credits);
  Held h;
  h.kind = Held::Kind::hello;
  p.held.push_front(std::move(h));
}

void VerbsDriver::connect(const std::vector<std::string>& addresses,
                          const std::vector<PeerId>& peers) {
  if (connected_) throw Error(prefix() + ": connect() called twice");
  book_.begin(prefix(), addresses);
  connect_deadline_ = Clock::now() + options_.connect_timeout;
  std::vector<PeerId> unique;
  for (PeerId peer : peers) {
    if (!valid_rank(peer) || peer == context_.rank)
      throw Error(prefix() + ": peer " + std::to_string(peer) + " is not another rank");
    if (std::find(unique.begin(), unique.end(), peer) == unique.end()) unique.push_back(peer);
  }
  std::vector<VerbsAddress> decoded;
  for (PeerId peer : unique)
    decoded.push_back(decode_address(addresses[peer], peer, context_.size));
  // Receive buffers first: the hello may arrive as soon as RTR is reached.
  stock_receives(unique);
  for (size_t i = 0; i < unique.size(); ++i) bring_up(unique[i], decoded[i]);
  active_ = unique;
  for (PeerId peer : unique) {
    Held h;
    h.kind = Held::Kind::hello;
    hold(peer, std::move(h));
  }
  const HelloWait w = await_hellos(
      book_, unique, connect_deadline_, [this] { progress(); },
      [this](PeerId) { return control_sends_ == 0; });
  if (!w.ok()) throw hello_failure(w, hello_words());
  for (PeerId peer : unique) {
    book_.set_open(peer);
  }
  connected_ = true;
}

HelloWords VerbsDriver::hello_words() const {
  const std::string& last = done_.last_error();
  return {.who = prefix(),
          .last_error = last,
          .lost_hint =
              " (every rank must reach connect within "
              "driver_options.timeout x retry_count of the others)",
          .timeout_tail = " on " + device_->name() + (last.empty() ? "" : " (" + last + ")"),
          .timeout = options_.connect_timeout};
}

RegistrationPtr VerbsDriver::register_memory(void* base, size_t size) {
  return std::make_unique<VerbsRegistration>(device_->pd(), base, size, prefix());
}

RemoteKeyPtr VerbsDriver::unpack_key(PeerId peer, std::span<const std::byte> packed) {
  if (!valid_rank(peer) || book_.state(peer) == PeerState::none)
    throw Error(prefix() + ": unpack_key for " + rank_name(peer) + ", which is not connected");
  const std::optional<RemoteRegion> region = unpack_region(packed);
  if (!region)
    throw Error(prefix() + ": key from " + rank_name(peer) + " is not a verbs memory key (" +
                std::to_string(packed.size()) + " bytes)");
  return std::make_unique<VerbsRemoteKey>(peer, *region);
}

void VerbsDriver::shutdown() {
  if (shut_down_) return;
  const auto deadline = Clock::now() + options_.shutdown_timeout;
  for (PeerId peer : active_) {
    // A peer that said bye already still waits for this rank's.
    if (book_.state(peer) != PeerState::open && book_.state(peer) != PeerState::closed) continue;
    Held h;
    h.kind = Held::Kind::bye;
    hold(peer, std::move(h));
  }
  // Done when this rank's byes are acknowledged and every peer's bye has
  // arrived (or the peer is gone): then no peer still sends here.
  step_until([this] { progress(); },
             [&] {
               if (control_sends_ != 0) return false;
               for (PeerId peer : active_) {
                 const Peer& p = peers_[peer];
                 if (book_.up(peer)) return false;
                 if (!p.held.empty() && book_.state(peer) != PeerState::lost) return false;
               }
               return true;
             },
             deadline);
  shut_down_ = true;
  connected_ = false;
}

std::unique_ptr<Driver> make_verbs_driver(const DriverContext& context,
                                          const VerbsOptions& options) {
  return std::make_unique<VerbsDriver>(context, options);
}

}  // namespace evb::verbs
