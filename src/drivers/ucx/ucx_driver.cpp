// Setup and teardown of the ucx driver: worker, control receives, connect
// (endpoints + hello), registration and remote keys, shutdown.
#include "drivers/ucx/ucx_driver.hpp"

#include <stdio.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "drivers/common/hello_wait.hpp"
#include "drivers/common/rank_tags.hpp"
#include "drivers/common/step_until.hpp"
#include "drivers/ucx/ucx_memory.hpp"
#include "drivers/ucx/ucx_probe.hpp"

namespace evb::ucx {

namespace {

// Internal receives kept posted for control messages (UCX buffers the ones
// that arrive while all are busy).
constexpr size_t kControlReceives = 8;
constexpr size_t kMaxMessage = 1ull << 30;

using Clock = std::chrono::steady_clock;

}  // namespace

std::string UcxDriver::prefix() const {
  return name_ + ": rank " + std::to_string(context_.rank);
}

std::string UcxDriver::rank_name(PeerId peer) const {
  return peer == kAnyPeer ? std::string("any rank") : "rank " + std::to_string(peer);
}

UcxDriver::UcxDriver(const DriverContext& context, UcxOptions options)
    : context_(context), options_(std::move(options)), ops_(this) {
  name_ = options_.tls == "auto" ? std::string("ucx") : "ucx/" + options_.tls;
  if (context_.size < 1 || context_.size > kMaxRanks || context_.rank < 0 ||
      context_.rank >= context_.size)
    throw ConfigError(prefix() + ": rank " + std::to_string(context_.rank) + " of " +
                      std::to_string(context_.size) + " is out of range");
  worker_ = std::make_unique<UcxWorker>(options_, context_.all_local, prefix());

  peers_.resize(context_.size);
  book_.resize(context_.size);
  for (int i = 0; i < context_.size; ++i) {
    peers_[i].handle = PeerHandle{this, i};
  }

  // A packed key's size depends on the memory domains UCX registers with;
  // measure it once on a scratch page and leave room for larger ones.
  std::vector<std::byte> scratch(4096);
  UcxRegistration probe(worker_->context(), scratch.data(), scratch.size(), prefix());
  caps_.max_segments = kMaxSegments;
  caps_.max_message = kMaxMessage;
  caps_.inline_size = 0;
  caps_.tag_bits = 32;
  caps_.rdma_write = true;
  const std::vector<std::string> found = resources(worker_->context());
  caps_.write_preferred = puts_beat_sends(found, context_.all_local);
  caps_.write_immediate = false;  // emulated: flush, then a notify message
  caps_.registration_required = false;
  caps_.packed_key_size = 2 * probe.packed_key().size() + 64;
  caps_.ordered_per_peer = true;
  caps_.zero_copy_send = true;
  caps_.can_block = worker_->event_fd() >= 0;
  caps_.alltoall = false;
  // Only peer-failure mode turns a dead peer into peer_event + failed completions.
  caps_.survives_peer_loss = options_.error_handling == ErrorHandling::peer;
  caps_.descriptors_per_peer = 2;  // tcp: a connection per endpoint, two while both connect
  caps_.shared_memory_path = shares_memory(found, context_.all_local);
  // Measured with error_handling none only: under peer, UCX 1.13 moves
  // large tcp messages without zero-copy, and a paced receiver halved ucx/tcp
  // send at window 32 (docs/drivers/ucx.md). And over the loopback only:
  // across hosts the default is off, a value the user set applies.
  if (!caps_.shared_memory_path && tcp_alone(found) &&
      options_.error_handling == ErrorHandling::none &&
      (context_.all_local || options_.tcp_poll_pause_set))
    poll_pause_ = std::chrono::nanoseconds(options_.tcp_poll_pause_ns);

  for (size_t i = 0; i < kControlReceives; ++i) post_control_recv();
}

UcxDriver::~UcxDriver() {
  if (!shut_down_) {
    closing_ = true;
    // Not shut down (an exception, a test): no goodbyes, endpoints forced shut.
    close_endpoints(Clock::now() + std::chrono::seconds(1));
  }
  // Whatever UCX still holds completes (cancelled) before the Ops go away.
  std::vector<Op*> held(control_recvs_.begin(), control_recvs_.end());
  for (Op* op = posted_.head(); op; op = op->next) held.push_back(op);
  cancel(held, OpStatus::peer_closed);
  for (int i = 0; i < 100 && ucp_worker_progress(worker_->worker()) != 0; ++i) {
  }
  // Peers' goodbyes that arrived after the control receives went: received
  // and dropped here, so that UCX does not report them as lost messages
  // (a caller's message left unreceived is still reported).
  for (;;) {
    ucp_tag_recv_info_t info{};
    ucp_tag_message_h m = ucp_tag_probe_nb(worker_->worker(), control_tag(0), ~kRankMask, 1, &info);
    if (!m) break;
    std::byte scratch[kControlBytes];
    ucp_request_param_t param{};
    ucs_status_ptr_t r =
        ucp_tag_msg_recv_nbx(worker_->worker(), scratch, sizeof scratch, m, &param);
    if (UCS_PTR_IS_PTR(r)) {
      while (ucp_request_check_status(r) == UCS_INPROGRESS) ucp_worker_progress(worker_->worker());
      ucp_request_free(r);
    }
  }
  worker_.reset();
}

void UcxDriver::create_endpoint(PeerId peer, const std::string& address) {
  Peer& p = peers_[peer];
  if (address.empty())
    throw Error(prefix() + ": the bootstrap gave no address for " + rank_name(peer));
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER;
  params.address = reinterpret_cast<const ucp_address_t*>(address.data());
  params.err_mode = options_.error_handling == ErrorHandling::peer ? UCP_ERR_HANDLING_MODE_PEER
                                                                   : UCP_ERR_HANDLING_MODE_NONE;
  params.err_handler.cb = endpoint_error;
  params.err_handler.arg = &p.handle;
  ucs_status_t st = ucp_ep_create(worker_->worker(), &params, &p.ep);
  if (st != UCS_OK)
    throw Error(prefix() + ": cannot reach " + rank_name(peer) + " (" + worker_->settings() +
                "): ucp_ep_create: " + status_text(st) +
                "; `evbench drivers` lists the transports UCX finds here");
  book_.add(peer);
}

void UcxDriver::connect(const std::vector<std::string>& addresses,
                        const std::vector<PeerId>& peers) {
  if (connected_) throw Error(prefix() + ": connect() called twice");
  book_.begin(prefix(), addresses);
  for (PeerId peer : peers) {
    if (!valid_rank(peer)) throw Error(prefix() + ": peer " + std::to_string(peer) + " is no rank");
    if (book_.known(peer)) continue;  // listed twice
    create_endpoint(peer, addresses[peer]);
  }
  for (PeerId peer : peers) {
    Op* op = ops_.get(OpKind::ctl_send);
    post_control(peer,
                 CtlMessage{.kind = CtlKind::hello,
                            .rank = static_cast<uint32_t>(context_.rank),
                            .size = static_cast<uint32_t>(context_.size),
                            .a = book_.run()},
                 op);
  }
  const HelloWait w = await_hellos(
      book_, peers, Clock::now() + options_.connect_timeout, [this] { progress(); },
      [this](PeerId) { return control_sends_ == 0; });
  if (!w.ok()) throw hello_failure(w, hello_words());
  // Lanes as UCX chose them for the remote worker address it was given (its
  // final configuration: the endpoints were created from that address).
  for (PeerId peer : peers) peers_[peer].one_lane = lanes_to(peer) == 1;
  connected_ = true;
}

HelloWords UcxDriver::hello_words() const {
  const std::string& last = done_.last_error();
  return {.who = prefix(),
          .last_error = last,
          .timeout_tail = " (" + worker_->settings() + (last.empty() ? "" : "; " + last) + ")",
          .timeout = options_.connect_timeout};
}

RegistrationPtr UcxDriver::checked_key(RegistrationPtr reg) const {
  if (reg->packed_key().size() > caps_.packed_key_size)
    throw Error(prefix() + ": packed key of " + std::to_string(reg->packed_key().size()) +
                " bytes exceeds the " + std::to_string(caps_.packed_key_size) +
                " announced in capabilities().packed_key_size");
  return reg;
}

RegistrationPtr UcxDriver::allocate_memory(size_t size, PageSize) {
  if (size == 0) throw Error(prefix() + ": allocate_memory of 0 bytes");
  return checked_key(
      std::make_unique<UcxRegistration>(worker_->context(), nullptr, size, prefix()));
}

RegistrationPtr UcxDriver::register_memory(void* base, size_t size) {
  if (!base) throw Error(prefix() + ": register_memory of a null address");
  return checked_key(std::make_unique<UcxRegistration>(worker_->context(), base, size, prefix()));
}

RemoteKeyPtr UcxDriver::unpack_key(PeerId peer, std::span<const std::byte> packed) {
  if (!valid_rank(peer) || !peers_[peer].ep)
    throw Error(prefix() + ": unpack_key for " + rank_name(peer) + ", which is not connected");
  KeyRecord record;
  const std::string bad = parse_key(packed, &record);
  if (!bad.empty()) throw Error(prefix() + ": key from " + rank_name(peer) + ": " + bad);
  ucp_rkey_h rkey = nullptr;
  ucs_status_t st = ucp_ep_rkey_unpack(peers_[peer].ep, record.rkey.data(), &rkey);
  if (st != UCS_OK)
    throw Error(prefix() + ": key from " + rank_name(peer) +
                ": ucp_ep_rkey_unpack: " + status_text(st));
  return std::make_unique<UcxRemoteKey>(peer, record, rkey);
}

namespace {

// What ucp_ep_print_info says of an endpoint ("" when it cannot say).
std::string endpoint_info(ucp_ep_h ep) {
  if (!ep) return {};
  char* text = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (!f) return {};
  ucp_ep_print_info(ep, f);
  fclose(f);
  std::string all(text, len);
  free(text);
  return all;
}

}  // namespace

size_t UcxDriver::lanes_to(PeerId peer) const {
  if (!valid_rank(peer)) return 0;
  const std::string all = endpoint_info(peers_[peer].ep);
  size_t n = 0;
  for (size_t pos = 0; (pos = all.find("lane[", pos)) != std::string::npos; ++pos) ++n;
  return n;
}

std::string UcxDriver::transports_to(PeerId peer) const {
  if (!valid_rank(peer)) return {};
  // Lane lines: "#  lane[0]:  1:tcp/lo.0 md[0] -> ..." -> "tcp/lo".
  std::string out;
  const std::string all = endpoint_info(peers_[peer].ep);
  size_t pos = 0;
  while ((pos = all.find("lane[", pos)) != std::string::npos) {
    const size_t colon = all.find(':', all.find("]:", pos) + 2);
    const size_t end = all.find_first_of(" .\n", colon + 1);
    if (colon == std::string::npos || end == std::string::npos) break;
    const std::string tl = all.substr(colon + 1, end - colon - 1);
    if (out.find(tl) == std::string::npos) out += (out.empty() ? "" : ",") + tl;
    pos = end;
  }
  return out;
}

std::string UcxDriver::picked_transports() const {
  for (int i = 1; i < context_.size; ++i) {
    std::istringstream lanes(transports_to((context_.rank + i) % context_.size));
    std::vector<std::string> names;  // "tcp/lo,cma/memory" -> tcp, cma
    for (std::string lane; std::getline(lanes, lane, ',');) {
      const std::string tl = lane.substr(0, lane.find('/'));
      if (std::find(names.begin(), names.end(), tl) == names.end()) names.push_back(tl);
    }
    std::string out;
    for (const std::string& tl : names) out += (out.empty() ? "" : ",") + tl;
    if (!out.empty()) return out;
  }
  return {};
}

std::string UcxDriver::variant() const {
  if (options_.tls != "auto") return name_;
  const std::string t = picked_.empty() ? picked_transports() : picked_;
  return t.empty() ? name_ : name_ + "/auto(" + t + ")";
}

std::string UcxDriver::applied_settings() const {
  if (poll_pause_.count() == 0) return {};
  return "tcp_poll_pause " + std::to_string(poll_pause_.count()) + " ns";
}

void UcxDriver::close_endpoints(Clock::time_point deadline) noexcept {
  std::vector<void*> closing;
  for (Peer& p : peers_) {
    if (!p.ep) continue;
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    // A peer still open gets its last messages flushed; a lost or departed
    // one is dropped (a flush to it could only time out).
    param.flags = book_.is_open(p.handle.rank) ? 0 : UCP_EP_CLOSE_FLAG_FORCE;
    ucs_status_ptr_t r = ucp_ep_close_nbx(p.ep, &param);
    p.ep = nullptr;
    if (UCS_PTR_IS_PTR(r)) closing.push_back(r);
  }
  for (void* r : closing) {
    while (ucp_request_check_status(r) == UCS_INPROGRESS && Clock::now() < deadline)
      ucp_worker_progress(worker_->worker());
    ucp_request_free(r);
  }
}

void UcxDriver::shutdown() {
  if (shut_down_) return;
  if (options_.tls == "auto") picked_ = picked_transports();  // the report asks after this
  const auto deadline = Clock::now() + options_.shutdown_timeout;
  auto step = [this] {
    progress();
    nap(std::chrono::milliseconds(1));
  };
  // Writes already reported complete whose flush or notify is still under
  // way go out first: a notify posted before the goodbye arrives before it.
  if (background_writes_ != 0)
    step_until(
        step, [this] { return background_writes_ == 0; }, deadline);
  for (Peer& p : peers_) {
    if (!book_.is_open(p.handle.rank)) continue;
    post_control(p.handle.rank,
                 CtlMessage{.kind = CtlKind::bye,
                            .rank = static_cast<uint32_t>(context_.rank),
                            .size = static_cast<uint32_t>(context_.size)},
                 ops_.get(OpKind::ctl_send));
  }
  // Every peer's goodbye too, not only ours delivered: a rank destroys its
  // worker only once all goodbyes are in, so no endpoint below is closed
  // towards a worker that is gone (a flushing close to one waits for the
  // keepalive or the deadline: 48 ranks over sm sat out the whole 10 s
  // shutdown_timeout before). With every goodbye in, nothing is in flight
  // either way, and the endpoints close without a flush.
  auto all_said_bye = [this] {
    if (control_sends_ != 0) return false;
    for (const Peer& p : peers_)
      if (book_.is_open(p.handle.rank)) return false;
    return true;
  };
  if (!step_until(step, all_said_bye, deadline)) report_slow_shutdown();
  closing_ = true;
  shut_down_ = true;
  close_endpoints(deadline);
  connected_ = false;
}

void UcxDriver::report_slow_shutdown() const {
  std::vector<PeerId> silent;
  for (const Peer& p : peers_)
    if (book_.is_open(p.handle.rank)) silent.push_back(p.handle.rank);
  char waited[32];
  std::snprintf(waited, sizeof waited, "%.1f", options_.shutdown_timeout.count() / 1000.0);
  std::vector<std::string> waits;
  if (background_writes_ != 0)
    waits.push_back("for " + std::to_string(background_writes_) +
                    " write(s) to be flushed and announced");
  if (control_sends_ != 0)
    waits.push_back("for " + std::to_string(control_sends_) + " of its goodbyes to be delivered");
  if (!silent.empty()) waits.push_back("for the goodbyes of rank(s) " + rank_list(silent));
  std::string line =
      prefix() + ": shutdown waited " + waited + " s (driver_options.shutdown_timeout) ";
  for (size_t i = 0; i < waits.size(); ++i) line += (i ? " and " : "") + waits[i];
  line += "; closing without them\n";
  std::fputs(("evbench: " + line).c_str(), stderr);
}

std::unique_ptr<Driver> make_ucx_driver(const DriverContext& context, const UcxOptions& options) {
  return std::make_unique<UcxDriver>(context, options);
}

}  // namespace evb::ucx
