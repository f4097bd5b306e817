#include "drivers/psm2/psm2_driver.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/error.hpp"
#include "drivers/common/hello_wait.hpp"
#include "drivers/common/rank_tags.hpp"

namespace evb::psm2 {

namespace {

// Every evbench run uses the same job key: endpoints of different runs never
// connect to each other because their ids come from their own bootstrap.
constexpr psm2_uuid_t kJobKey = {'e', 'v', 'b', 'e', 'n', 'c', 'h', '-',
                                 'p', 's', 'm', '2', '-', 'v', '1', 0};
constexpr size_t kControlSize = 8;  // magic, sender rank

int64_t ns(std::chrono::milliseconds ms) {
  return static_cast<int64_t>(ms.count()) * 1000000;
}

}  // namespace

Psm2Driver::Psm2Driver(const DriverContext& context, Psm2Options options)
    : context_(context), options_(options), library_(Library::acquire()) {
  if (context.size < 1 || context.size > kMaxRanks)
    throw Error(prefix() + ": bad run size " + std::to_string(context.size));
  psm2_ep_open_opts opts{};
  psm2_error_t e = psm2_ep_open_opts_get_defaults(&opts);
  if (e == PSM2_OK) e = psm2_ep_open(kJobKey, &opts, &ep_, &epid_);
  if (e != PSM2_OK) throw Error(prefix() + ": psm2_ep_open failed: " + error_text(e));
  e = psm2_mq_init(ep_, PSM2_MQ_ORDERMASK_ALL, nullptr, 0, &mq_);
  if (e != PSM2_OK) {
    psm2_ep_close(ep_, PSM2_EP_CLOSE_FORCE, 0);
    throw Error(prefix() + ": psm2_mq_init failed: " + error_text(e));
  }
  addrs_.assign(static_cast<size_t>(context.size), nullptr);
  book_.resize(context.size);
  post_control_recv();
}

Psm2Driver::~Psm2Driver() {
  if (mq_) psm2_mq_finalize(mq_);
  if (ep_) psm2_ep_close(ep_, PSM2_EP_CLOSE_FORCE, 0);
}

Capabilities Psm2Driver::capabilities() const {
  Capabilities c;
  c.max_segments = kMaxSegments;
  c.max_message = 1ull << 30;  // MQ lengths are 32-bit
  c.tag_bits = 32;
  c.ordered_per_peer = true;  // PSM2_MQ_ORDERMASK_ALL
  c.zero_copy_send = false;   // gathered sends are copied into one buffer
  c.can_block = false;
  c.survives_peer_loss = false;  // runs under mpirun: a dead rank ends the job
  c.descriptors_per_peer = 0;    // endpoints in the HFI context or shared memory
  return c;
}

std::string Psm2Driver::local_address() {
  char buf[32];
  std::snprintf(buf, sizeof buf, "psm2:%016" PRIx64, static_cast<uint64_t>(epid_));
  return buf;
}

void Psm2Driver::connect(const std::vector<std::string>& addresses,
                         const std::vector<PeerId>& peers) {
  book_.begin(prefix(), addresses);
  std::vector<psm2_epid_t> ids;
  std::vector<PeerId> ranks;
  for (PeerId p : peers) {
    if (!valid_rank(p) || p == context_.rank)
      throw Error(prefix() + ": cannot connect to rank " + std::to_string(p));
    const std::string& a = addresses[static_cast<size_t>(p)];
    unsigned long long id = 0;
    char tail = 0;
    if (a.size() != 21 || std::sscanf(a.c_str(), "psm2:%16llx%c", &id, &tail) != 1 || id == 0)
      throw Error(prefix() + ": address of rank " + std::to_string(p) +
                  " is not a psm2 "
                  "endpoint id ('" +
                  a + "'; is every rank running driver=psm2?)");
    ids.push_back(static_cast<psm2_epid_t>(id));
    ranks.push_back(p);
  }
  if (ids.empty()) return;
  std::vector<psm2_error_t> errors(ids.size(), PSM2_OK);
  std::vector<psm2_epaddr_t> out(ids.size(), nullptr);
  const psm2_error_t e = psm2_ep_connect(ep_, static_cast<int>(ids.size()), ids.data(), nullptr,
                                         errors.data(), out.data(), ns(options_.connect_timeout));
  for (size_t i = 0; i < ids.size(); ++i) {
    if (errors[i] != PSM2_OK || e != PSM2_OK)
      throw Error(prefix() + ": psm2_ep_connect to rank " + std::to_string(ranks[i]) +
                  " failed: " + error_text(errors[i] != PSM2_OK ? errors[i] : e));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    const auto r = static_cast<size_t>(ranks[i]);
    addrs_[r] = out[i];
    book_.add(ranks[i]);
  }
  for (PeerId p : ranks) send_control(p, kHelloMagic);
  const HelloWait w = await_hellos(
      book_, ranks, std::chrono::steady_clock::now() + options_.connect_timeout,
      [this] {
        progress();
        std::this_thread::yield();
      },
      [](PeerId) { return true; });
  if (!w.ok())
    throw hello_failure(w, {.who = prefix(),
                            .timeout_tail = " (driver_options.connect_timeout)",
                            .timeout = options_.connect_timeout});
}

Op* Psm2Driver::new_op() {
  if (free_ops_.empty()) {
    all_ops_.push_back(std::make_unique<Op>());
    free_ops_.push_back(all_ops_.back().get());
  }
  Op* op = free_ops_.back();
  free_ops_.pop_back();
  *op = Op{};
  ++live_;
  return op;
}

void Psm2Driver::free_op(Op* op) {
  op->staging.clear();
  free_ops_.push_back(op);
  --live_;
}

void Psm2Driver::post_send(PeerId peer, Tag tag, std::span<const Segment> segments,
                           uint64_t cookie) {
  if (!valid_rank(peer) || !book_.known(peer) || shut_down_)
    return done_.fail(OpType::send, peer, tag, cookie, OpStatus::error,
                      prefix() + ": send to rank " + std::to_string(peer) + ", not connected");
  if (book_.state(peer) == PeerState::closed)
    return done_.fail(OpType::send, peer, tag, cookie, OpStatus::peer_closed, "");
  if (segments.size() > kMaxSegments)
    return done_.fail(OpType::send, peer, tag, cookie, OpStatus::error,
                      prefix() + ": " + std::to_string(segments.size()) + " segments, at most " +
                          std::to_string(kMaxSegments));
  size_t total = 0;
  for (const Segment& s : segments) {
    if (s.size > capabilities().max_message - total)
      return done_.fail(
          OpType::send, peer, tag, cookie, OpStatus::error,
          prefix() + ": send longer than " + std::to_string(capabilities().max_message) + " bytes");
    total += s.size;
  }
  Op* op = new_op();
  *op = Op{cookie, OpType::send, peer, tag, total, false, nullptr, {}};
  const void* data = segments.empty() ? nullptr : segments[0].data;
  if (segments.size() > 1) {
    op->staging.resize(total);
    size_t at = 0;
    for (const Segment& s : segments) {
      if (s.size) std::memcpy(op->staging.data() + at, s.data, s.size);
      at += s.size;
    }
    data = op->staging.data();
  }
  psm2_mq_tag_t t{};
  t.tag0 = tag;
  t.tag1 = static_cast<uint32_t>(context_.rank);
  t.tag2 = 0;
  const psm2_error_t e = psm2_mq_isend2(mq_, addrs_[static_cast<size_t>(peer)], 0, &t, data,
                                        static_cast<uint32_t>(total), op, &op->req);
  if (e != PSM2_OK) {
    free_op(op);
    done_.fail(
        OpType::send, peer, tag, cookie, OpStatus::error,
        prefix() + ": psm2_mq_isend2 to rank " + std::to_string(peer) + ": " + error_text(e));
  }
}

void Psm2Driver::post_recv(PeerId peer, Tag tag, void* buffer, size_t size,
                           const Registration* /*reg*/, uint64_t cookie) {
  if (peer != kAnyPeer && (!valid_rank(peer) || !book_.known(peer)))
    return done_.fail(OpType::recv, peer, tag, cookie, OpStatus::error,
                      prefix() + ": receive from rank " + std::to_string(peer) + ", not connected");
  if (peer != kAnyPeer && book_.state(peer) == PeerState::closed)
    return done_.fail(OpType::recv, peer, tag, cookie, OpStatus::peer_closed, "");
  if (peer == kAnyPeer && book_.all_down())
    return done_.fail(OpType::recv, kAnyPeer, tag, cookie, OpStatus::peer_closed, "");
  if (size > capabilities().max_message) size = capabilities().max_message;
  Op* op = new_op();
  *op = Op{cookie, OpType::recv, peer, tag, size, false, nullptr, {}};
  psm2_mq_tag_t t{};
  psm2_mq_tag_t sel{};
  t.tag0 = tag;
  sel.tag0 = 0xFFFFFFFFu;
  t.tag1 = peer == kAnyPeer ? 0 : static_cast<uint32_t>(peer);
  sel.tag1 = peer == kAnyPeer ? 0 : 0xFFFFFFFFu;
  t.tag2 = 0;
  sel.tag2 = 0xFFFFFFFFu;
  const psm2_error_t e = psm2_mq_irecv2(mq_, PSM2_MQ_ANY_ADDR, &t, &sel, 0, buffer,
                                        static_cast<uint32_t>(size), op, &op->req);
  if (e != PSM2_OK) {
    free_op(op);
    return done_.fail(OpType::recv, peer, tag, cookie, OpStatus::error,
                      prefix() + ": psm2_mq_irecv2: " + error_text(e));
  }
  posted_recvs_.insert(op);
}

void Psm2Driver::post_control_recv() {
  Op* op = new_op();
  op->type = OpType::recv;
  op->control = true;
  op->staging.resize(kControlSize);
  psm2_mq_tag_t t{};
  psm2_mq_tag_t sel{};
  t.tag0 = kControlTag;
  sel.tag0 = 0xFFFFFFFFu;
  t.tag2 = 1;
  sel.tag2 = 0xFFFFFFFFu;
  const psm2_error_t e = psm2_mq_irecv2(mq_, PSM2_MQ_ANY_ADDR, &t, &sel, 0, op->staging.data(),
                                        kControlSize, op, &op->req);
  if (e != PSM2_OK) {
    free_op(op);
    throw Error(prefix() + ": psm2_mq_irecv2 (control): " + error_text(e));
  }
  control_recv_ = op;
}

void Psm2Driver::send_control(PeerId peer, uint32_t magic) {
  Op* op = new_op();
  op->type = OpType::send;
  op->peer = peer;
  op->control = true;
  op->staging.resize(kControlSize);
  const uint32_t words[2] = {magic, static_cast<uint32_t>(context_.rank)};
  std::memcpy(op->staging.data(), words, kControlSize);
  psm2_mq_tag_t t{};
  t.tag0 = kControlTag;
  t.tag1 = static_cast<uint32_t>(context_.rank);
  t.tag2 = 1;
  if (psm2_mq_isend2(mq_, addrs_[static_cast<size_t>(peer)], 0, &t, op->staging.data(),
                     kControlSize, op, &op->req) != PSM2_OK) {
    free_op(op);
    return;
  }
  ++control_sends_;
}

void Psm2Driver::shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  for (PeerId p = 0; p < context_.size; ++p)
    if (book_.is_open(p)) send_control(p, kByeMagic);
  const auto deadline = std::chrono::steady_clock::now() + options_.shutdown_timeout;
  while (control_sends_ > 0 && std::chrono::steady_clock::now() < deadline) {
    progress();
    if (control_sends_ > 0) std::this_thread::yield();
  }
  closing_ = true;
  if (control_recv_) {
    Op* op = control_recv_;
    control_recv_ = nullptr;
    if (psm2_mq_cancel(&op->req) == PSM2_OK) {
      psm2_mq_status2_t st{};
      psm2_mq_test2(&op->req, &st);
      free_op(op);
    }
  }
  progress();
  // Graceful close: PSM2 lets peers drain what is addressed to them.
  psm2_mq_finalize(mq_);
  mq_ = nullptr;
  psm2_ep_close(ep_, PSM2_EP_CLOSE_GRACEFUL, ns(options_.shutdown_timeout));
  ep_ = nullptr;
}

}  // namespace evb::psm2
