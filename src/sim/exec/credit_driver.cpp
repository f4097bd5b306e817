#include "sim/exec/credit_driver.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "sim/exec/connections.hpp"

namespace evb::simexec {

namespace {

// A registration's key: where it lives in this process (ranks share it).
struct PackedKey {
  uint64_t base;
  uint64_t size;
};

class SimRegistration final : public Registration {
 public:
  SimRegistration(void* base, size_t size) : Registration(base, size) {
    const PackedKey k{reinterpret_cast<uint64_t>(base), size};
    packed_key_.resize(sizeof k);
    std::memcpy(packed_key_.data(), &k, sizeof k);
  }
};

class SimRemoteKey final : public RemoteKey {
 public:
  SimRemoteKey(PeerId peer, std::byte* base, size_t size) : RemoteKey(peer, size), base_(base) {}
  std::byte* base() const { return base_; }

 private:
  std::byte* base_;
};

// Polls at one instant without a completion before the rank lets time pass
// (a loop that polls without waiting would otherwise hold the clock still).
constexpr int kEmptyPollsPerInstant = 16;
constexpr int64_t kPollQuantumNs = 1000;

}  // namespace

CreditDriver::CreditDriver(World& world, const DriverContext& context)
    : world_(world), context_(context) {
  world_.attach(context_.rank, this);
}

CreditDriver::~CreditDriver() {
  world_.detach(context_.rank);
}

Capabilities CreditDriver::declared() {
  Capabilities c;
  c.max_segments = 64;
  c.max_message = 1ull << 30;
  c.inline_size = 0;
  c.tag_bits = 32;
  c.rdma_write = true;
  c.write_preferred = false;  // data_path auto: send (the network costs both alike)
  c.write_immediate = true;
  c.registration_required = false;
  c.packed_key_size = sizeof(PackedKey);
  c.ordered_per_peer = true;
  c.zero_copy_send = true;
  c.can_block = true;
  c.alltoall = true;
  c.survives_peer_loss = false;
  c.descriptors_per_peer = 0;
  return c;
}

Capabilities CreditDriver::capabilities() const {
  return declared();
}

std::string CreditDriver::local_address() {
  return "sim:" + std::to_string(context_.rank);
}

void CreditDriver::connect(const std::vector<std::string>& addresses,
                           const std::vector<PeerId>& peers) {
  if (static_cast<int>(addresses.size()) != world_.ranks())
    throw Error("sim/credit: " + std::to_string(addresses.size()) + " addresses for " +
                std::to_string(world_.ranks()) + " ranks");
  for (PeerId p : peers) check_peer(p, "connect");
}

RegistrationPtr CreditDriver::register_memory(void* base, size_t size) {
  return std::make_unique<SimRegistration>(base, size);
}

RemoteKeyPtr CreditDriver::unpack_key(PeerId peer, std::span<const std::byte> packed) {
  if (packed.size() != sizeof(PackedKey))
    throw Error("sim/credit: a remote key of " + std::to_string(packed.size()) +
                " bytes from rank " + std::to_string(peer));
  PackedKey k;
  std::memcpy(&k, packed.data(), sizeof k);
  return std::make_unique<SimRemoteKey>(peer, reinterpret_cast<std::byte*>(k.base),
                                        static_cast<size_t>(k.size));
}

void CreditDriver::check_peer(PeerId peer, const char* what) const {
  if (peer < 0 || peer >= world_.ranks() || peer == context_.rank)
    throw Error(std::string("sim/credit: ") + what + " to rank " + std::to_string(peer) +
                " (this rank is " + std::to_string(context_.rank) + " of " +
                std::to_string(world_.ranks()) + ")");
}

uint64_t CreditDriver::gather_head(std::span<const Segment> segments, Message& m, bool whole) {
  uint64_t total = 0;
  for (const Segment& s : segments) {
    const auto* bytes = static_cast<const std::byte*>(s.data);
    size_t take = 0;
    if (m.head_bytes < kCopiedHead && s.size > 0) {
      take = std::min<size_t>(s.size, kCopiedHead - m.head_bytes);
      std::memcpy(m.head.data() + m.head_bytes, bytes, take);
      m.head_bytes += static_cast<uint32_t>(take);
    }
    if (whole && take < s.size) m.rest.insert(m.rest.end(), bytes + take, bytes + s.size);
    total += s.size;
  }
  return total;
}

void CreditDriver::post_send(PeerId peer, Tag tag, std::span<const Segment> segments,
                             uint64_t cookie) {
  check_peer(peer, "send");
  Message m;
  m.kind = Message::Kind::send;
  m.src = context_.rank;
  m.dst = peer;
  m.tag = tag;
  m.cookie = cookie;
  // A command travels whole (a batch's list is longer than the head), data
  // only its head.
  m.bytes = gather_head(segments, m, Connections::stream(m) == 0);
  ++in_flight_;
  world_.transmit(m);
}

void CreditDriver::post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration*,
                             uint64_t cookie) {
  const PostedRecv r{peer, tag, static_cast<std::byte*>(buffer), size, cookie};
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (it->tag == tag && (peer == kAnyPeer || it->src == peer)) {
      const Message m = *it;
      unexpected_.erase(it);
      complete_recv(r, m);
      return;
    }
  }
  posted_.push_back(r);
}

void CreditDriver::rdma_write(PeerId peer, std::span<const Segment> local, const RemoteKey& key,
                              uint64_t offset, std::optional<uint32_t> immediate, uint64_t cookie) {
  check_peer(peer, "write");
  const auto& k = static_cast<const SimRemoteKey&>(key);
  Message m;
  m.kind = Message::Kind::write;
  m.src = context_.rank;
  m.dst = peer;
  m.cookie = cookie;
  m.bytes = gather_head(local, m, false);
  if (offset > k.size() || m.bytes > k.size() - offset)
    throw Error("sim/credit: a write of " + std::to_string(m.bytes) + " bytes at offset " +
                std::to_string(offset) + " past the end of rank " + std::to_string(peer) + "'s " +
                std::to_string(k.size()) + "-byte region");
  m.target = k.base() + offset;
  m.has_immediate = immediate.has_value();
  m.immediate = immediate.value_or(0);
  ++in_flight_;
  world_.transmit(m);
}

void CreditDriver::complete_recv(const PostedRecv& r, const Message& m) {
  Completion c;
  c.cookie = r.cookie;
  c.type = OpType::recv;
  c.peer = m.src;
  c.tag = m.tag;
  c.bytes = static_cast<size_t>(m.bytes);
  c.status = m.bytes > r.size ? OpStatus::truncated : OpStatus::ok;
  std::memcpy(r.buffer, m.head.data(), std::min<size_t>(m.head_bytes, r.size));
  if (!m.rest.empty() && r.size > m.head_bytes)
    std::memcpy(r.buffer + m.head_bytes, m.rest.data(),
                std::min<size_t>(m.rest.size(), r.size - m.head_bytes));
  done_.push_back(c);
}

void CreditDriver::on_arrival(const Message& m) {
  if (m.kind == Message::Kind::write) {
    std::memcpy(m.target, m.head.data(), m.head_bytes);
    if (m.has_immediate) {
      Completion c;
      c.type = OpType::remote_write;
      c.peer = m.src;
      c.bytes = static_cast<size_t>(m.bytes);
      c.immediate = m.immediate;
      done_.push_back(c);
    }
    return;
  }
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (it->tag == m.tag && (it->peer == kAnyPeer || it->peer == m.src)) {
      const PostedRecv r = *it;
      posted_.erase(it);
      complete_recv(r, m);
      return;
    }
  }
  unexpected_.push_back(m);
}

void CreditDriver::on_delivered(const Message& m) {
  --in_flight_;
  Completion c;
  c.cookie = m.cookie;
  c.type = m.kind == Message::Kind::write ? OpType::rdma_write : OpType::send;
  c.peer = m.dst;
  c.tag = m.tag;
  c.bytes = static_cast<size_t>(m.bytes);
  done_.push_back(c);
}

size_t CreditDriver::poll(std::span<Completion> out) {
  size_t n = 0;
  while (n < out.size() && !done_.empty()) {
    out[n++] = done_.front();
    done_.pop_front();
  }
  if (n > 0) return n;
  // Nothing: a rank that keeps polling at one instant lets time pass.
  if (empty_polls_at_ != world_.now_ns()) {
    empty_polls_at_ = world_.now_ns();
    empty_polls_ = 0;
  }
  if (++empty_polls_ >= kEmptyPollsPerInstant) world_.pause(kPollQuantumNs);
  return 0;
}

void CreditDriver::wait(std::chrono::microseconds timeout) {
  if (!done_.empty()) return;
  const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count();
  world_.block_until(ns > 0 ? world_.now_ns() + ns : world_.now_ns() + kPollQuantumNs);
}

void CreditDriver::alltoall(const void* send, void* recv, size_t block) {
  // Pairwise exchange (Open MPI's choice for large blocks): in step k every
  // rank sends to rank + k and receives from rank - k, then waits for both.
  // Each block's head travels (the micro-benchmark's header); the rest is
  // counted.
  const int n = world_.ranks();
  const int me = context_.rank;
  const auto* out = static_cast<const std::byte*>(send);
  auto* in = static_cast<std::byte*>(recv);
  std::memcpy(in + static_cast<size_t>(me) * block, out + static_cast<size_t>(me) * block,
              std::min(block, kCopiedHead));
  constexpr Tag kAlltoallTag = 0xA11A11u;
  constexpr uint64_t kCookie = std::numeric_limits<uint64_t>::max();
  for (int k = 1; k < n; ++k) {
    const PeerId to = (me + k) % n;
    const PeerId from = (me - k + n) % n;
    post_recv(from, kAlltoallTag, in + static_cast<size_t>(from) * block, block, nullptr, kCookie);
    const Segment seg{out + static_cast<size_t>(to) * block, block, nullptr};
    Message m;
    m.kind = Message::Kind::send;
    m.src = me;
    m.dst = to;
    m.tag = kAlltoallTag;
    m.cookie = kCookie;
    m.bytes = gather_head(std::span<const Segment>(&seg, 1), m, false);
    ++in_flight_;
    world_.transmit(m);
    // Both ends of this step: this rank's block delivered, and from's arrived.
    bool sent = false, got = false;
    while (!(sent && got)) {
      for (auto it = done_.begin(); it != done_.end();) {
        if (it->cookie == kCookie && it->tag == kAlltoallTag &&
            ((it->type == OpType::send && it->peer == to) ||
             (it->type == OpType::recv && it->peer == from))) {
          (it->type == OpType::send ? sent : got) = true;
          it = done_.erase(it);
        } else {
          ++it;
        }
      }
      if (!(sent && got)) world_.block_until(std::numeric_limits<int64_t>::max());
    }
  }
}

void CreditDriver::shutdown() {
  shut_down_ = true;
  posted_.clear();
}

DriverFactory credit_driver_factory(World* const* world) {
  DriverFactory f;
  f.name = "credit";
  f.summary =
      "the credit model's simulated network (evbench sim --model credit only): lossless, "
      "chunks and link-level credits between the platform's hosts";
  f.query = [](const Config&) { return CreditDriver::declared(); };
  f.probe = [] {
    DriverProbe p;
    p.can_run = true;
    p.library_version = "evbench credit model";
    return p;
  };
  f.create = [world](const DriverContext& context) -> std::unique_ptr<Driver> {
    if (*world == nullptr)
      throw Error("driver credit runs only under `evbench sim --model credit`");
    return std::make_unique<CreditDriver>(**world, context);
  };
  return f;
}

}  // namespace evb::simexec
