#include "drivers/tcp/tcp_driver.hpp"

#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>

#include "core/error.hpp"
#include "core/secret.hpp"
#include "drivers/common/hello_wait.hpp"
#include "drivers/common/peer_down.hpp"
#include "drivers/tcp/tcp_handshake.hpp"
#include "drivers/tcp/tcp_wire.hpp"

namespace evb::tcp {

using Clock = std::chrono::steady_clock;

TcpDriver::TcpDriver(const DriverContext& context, TcpOptions options)
    : context_(context), options_(std::move(options)) {}

TcpDriver::~TcpDriver() = default;  // without shutdown(): peers see EOF without BYE (lost)

Capabilities TcpDriver::capabilities() const {
  Capabilities c;
  c.rdma_write = false;
  c.ordered_per_peer = true;
  c.zero_copy_send = true;
  c.can_block = true;
  c.max_message = options_.limits.max_message;
  c.max_segments = kMaxSegments;
  c.survives_peer_loss = true;  // a lost peer: peer_event + failed completions
  c.descriptors_per_peer = 1;   // one connection per peer pair
  return c;
}

std::string TcpDriver::local_address() {
  if (!address_.empty()) return address_;
  std::string bind_host = options_.bind;
  std::string advertised = options_.bind;
  if (options_.bind == "auto") {
    bind_host = context_.all_local ? "127.0.0.1" : "0.0.0.0";
    advertised = context_.all_local ? "127.0.0.1" : primary_host_address();
  } else if (options_.bind == "0.0.0.0") {
    advertised = primary_host_address();
  }
  listener_ =
      make_listener(resolve_host(bind_host, options_.port), options_.socket, context_.size - 1);
  address_ = advertised + ":" + std::to_string(local_port(listener_.get())) + "#" + random_hex(8);
  return address_;
}

void TcpDriver::connect(const std::vector<std::string>& addresses,
                        const std::vector<PeerId>& peers) {
  if (connected_) throw Error("tcp: connect() called twice");
  if (context_.rank < 0 || context_.rank >= static_cast<int>(addresses.size())) {
    throw Error("tcp: rank " + std::to_string(context_.rank) + " has no entry among " +
                std::to_string(addresses.size()) + " addresses");
  }
  if (!listener_.valid()) local_address();
  SetupParams params;
  params.rank = context_.rank;
  params.run_id = run_id_of(addresses);
  for (const auto& a : addresses) params.addresses.push_back(endpoint_of(a));
  params.peers = peers;
  params.socket = options_.socket;
  params.timeout = options_.connect_timeout;
  std::vector<Fd> fds = establish_connections(listener_.get(), params);
  listener_.reset();  // later connection attempts are refused by the kernel

  epoll_ = Fd(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) throw Error("tcp: epoll_create1: " + errno_text(errno));
  peers_.resize(addresses.size());
  book_.resize(static_cast<int>(addresses.size()));
  FrameSink& sink = *this;
  for (PeerId p = 0; p < static_cast<PeerId>(fds.size()); ++p) {
    if (!fds[p].valid()) continue;
    Peer& peer = peers_[p];
    peer.address = params.addresses[p];
    int fd = fds[p].get();
    peer.conn = std::make_unique<Connection>(p, std::move(fds[p]), sink, options_.limits);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = static_cast<uint64_t>(p);
    if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
      throw Error("tcp: epoll_ctl(ADD): " + errno_text(errno));
    }
    book_.add(p);
  }
  connected_ = true;
}

bool TcpDriver::is_peer(PeerId peer) const {
  return book_.known(peer);
}

std::string TcpDriver::name_of(PeerId peer) const {
  std::string s = "rank " + std::to_string(peer);
  if (is_peer(peer)) s += " (" + peers_[peer].address + ")";
  return s;
}

void TcpDriver::post_send(PeerId peer, Tag tag, std::span<const Segment> segments,
                          uint64_t cookie) {
  // Error text is built only on the error paths (this is the data path).
  auto me = [this] { return "tcp: rank " + std::to_string(context_.rank) + ": "; };
  if (!is_peer(peer)) {
    return done_.fail(
        OpType::send, peer, tag, cookie, OpStatus::error,
        me() + "post_send to rank " + std::to_string(peer) + ": not a connected peer");
  }
  if (segments.size() > capabilities().max_segments) {
    return done_.fail(OpType::send, peer, tag, cookie, OpStatus::error,
                      me() + "post_send to " + name_of(peer) + ": " +
                          std::to_string(segments.size()) + " segments, at most " +
                          std::to_string(capabilities().max_segments));
  }
  uint64_t total = 0;
  for (const auto& s : segments) total += s.size;
  if (total > options_.limits.max_message) {
    return done_.fail(OpType::send, peer, tag, cookie, OpStatus::error,
                      me() + "post_send to " + name_of(peer) + ": message of " +
                          std::to_string(total) + " B exceeds max_message");
  }
  Peer& p = peers_[peer];
  if (!book_.is_open(peer))
    return done_.fail(OpType::send, peer, tag, cookie, book_.down_status(peer), {});
  p.conn->queue_send(tag, segments, cookie);
  if (!p.dirty && !p.want_out) {
    p.dirty = true;
    dirty_.push_back(peer);
  }
}

void TcpDriver::post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration*,
                          uint64_t cookie) {
  if (peer != kAnyPeer && !is_peer(peer)) {
    return done_.fail(OpType::recv, peer, tag, cookie, OpStatus::error,
                      "tcp: rank " + std::to_string(context_.rank) + ": post_recv from rank " +
                          std::to_string(peer) + ": not a connected peer");
  }
  auto* into = static_cast<std::byte*>(buffer);
  const PostedRecv r{.peer = peer, .tag = tag, .buffer = into, .size = size, .cookie = cookie};
  if (matcher_.match_unexpected(r)) return;
  if (peer != kAnyPeer && !book_.is_open(peer))
    return done_.fail(OpType::recv, peer, tag, cookie, book_.down_status(peer), {});
  // Every peer gone: nothing can match. A run of one rank has no peers to
  // lose: its any-peer receive stays posted (only loopback reaches it).
  if (peer == kAnyPeer && book_.open_count() == 0 && context_.size > 1) {
    const OpStatus gone = connected_ ? book_.any_status() : OpStatus::peer_lost;
    return done_.fail(OpType::recv, peer, tag, cookie, gone, {});
  }
  matcher_.add_posted(r);
}

RecvTarget TcpDriver::begin_message(PeerId peer, Tag tag, uint64_t length) {
  return matcher_.begin_message(peer, tag, length);
}

void TcpDriver::end_message(PeerId peer, Tag tag, const RecvTarget& target, uint64_t length,
                            OpStatus status) {
  matcher_.end_message(peer, tag, target, length, status);
}

void TcpDriver::send_done(PeerId peer, Tag tag, uint64_t cookie, size_t bytes, OpStatus status) {
  done_.push(Completion{cookie, OpType::send, status, peer, tag, bytes, 0});
}

void TcpDriver::set_out_interest(PeerId peer, bool on) {
  Peer& p = peers_[peer];
  if (p.want_out == on || !p.conn) return;
  epoll_event ev{};
  ev.events = EPOLLIN | (on ? EPOLLOUT : 0u);
  ev.data.u64 = static_cast<uint64_t>(peer);
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, p.conn->fd(), &ev);
  p.want_out = on;
}

void TcpDriver::flush_peer(PeerId peer) {
  Peer& p = peers_[peer];
  if (!book_.is_open(peer)) return;
  if (p.conn->flush() == IoResult::failed) {
    return peer_down(peer, OpStatus::peer_lost, "send failed: " + errno_text(p.conn->error()));
  }
  set_out_interest(peer, p.conn->send_pending());
}

void TcpDriver::flush_dirty() {
  if (dirty_.empty()) return;
  // Swapped with a kept vector: flushing may mark peers dirty again.
  flushing_.swap(dirty_);
  for (PeerId peer : flushing_) {
    peers_[peer].dirty = false;
    flush_peer(peer);
  }
  flushing_.clear();
}

void TcpDriver::on_event(PeerId peer, uint32_t events) {
  if (!book_.is_open(peer)) return;
  Connection& c = *peers_[peer].conn;
  if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
    switch (c.on_readable()) {
      case IoResult::ok:
        break;
      case IoResult::bye:
        return peer_down(peer, OpStatus::peer_closed, "shut down (BYE)");
      case IoResult::eof:
        return peer_down(peer, OpStatus::peer_lost, "connection closed without BYE");
      case IoResult::failed:
        return peer_down(peer, OpStatus::peer_lost, errno_text(c.error()));
      case IoResult::protocol:
        return peer_down(peer, OpStatus::peer_lost,
                         std::string("protocol error: ") + c.protocol_error());
    }
  }
  if (events & EPOLLOUT) flush_peer(peer);
}

void TcpDriver::peer_down(PeerId peer, OpStatus status, const std::string& reason) {
  const bool lost = status == OpStatus::peer_lost;
  take_peer_down(
      book_, done_, peer, status,
      "tcp: rank " + std::to_string(context_.rank) + ": peer " + name_of(peer) +
          (lost ? " lost: " : " closed: ") + reason,
      LateLoss::ignored,
      [this](PeerId p, OpStatus st, const std::string&) {
        Peer& gone = peers_[p];
        ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, gone.conn->fd(), nullptr);
        gone.conn->fail(st);
        gone.conn.reset();
        gone.want_out = false;
        matcher_.fail_peer(p, st);
      },
      [this](OpStatus st, const std::string&) { matcher_.fail_any(st); });
  // Not printed: the engine's error carries last_error() to the one report
  // of a failed run (docs/USER_GUIDE.md, "When a run fails").
}

void TcpDriver::progress(std::chrono::nanoseconds timeout) {
  flush_dirty();
  if (!epoll_.valid()) return;
  if (!done_.empty()) timeout = std::chrono::nanoseconds(0);
  epoll_event events[64];
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(timeout.count() / 1000000000);
  ts.tv_nsec = static_cast<long>(timeout.count() % 1000000000);
  int n = -1;
  if (pwait2_) {
    n = ::epoll_pwait2(epoll_.get(), events, 64, &ts, nullptr);
    if (n < 0 && errno == ENOSYS) pwait2_ = false;
  }
  if (!pwait2_) {
    // Kernels before 5.11 (and valgrind) have no epoll_pwait2: wait in whole
    // milliseconds, rounded up so that a short wait still sleeps.
    const int64_t ms = (timeout.count() + 999999) / 1000000;
    n = ::epoll_wait(epoll_.get(), events, 64, static_cast<int>(std::min<int64_t>(ms, 1 << 30)));
  }
  if (n < 0) {
    if (errno == EINTR) return;
    throw Error("tcp: rank " + std::to_string(context_.rank) +
                ": epoll wait: " + errno_text(errno));
  }
  for (int i = 0; i < n; ++i) on_event(static_cast<PeerId>(events[i].data.u64), events[i].events);
}

size_t TcpDriver::poll(std::span<Completion> out) {
  progress(std::chrono::nanoseconds(0));
  return done_.drain(out);
}

void TcpDriver::wait(std::chrono::microseconds timeout) {
  if (!done_.empty()) return;
  progress(timeout);
}

void TcpDriver::shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  if (!connected_) return;
  const auto deadline = Clock::now() + options_.shutdown_timeout;
  auto open_peers = [this](auto pred) {
    for (PeerId i = 0; i < static_cast<PeerId>(peers_.size()); ++i) {
      if (book_.is_open(i) && pred(i)) return true;
    }
    return false;
  };
  for (PeerId i = 0; i < static_cast<PeerId>(peers_.size()); ++i) {
    if (!book_.is_open(i)) continue;
    peers_[i].conn->queue_bye();
    flush_peer(i);
  }
  // Flush (reading meanwhile, so two ranks flushing to each other cannot stall).
  while (Clock::now() < deadline &&
         open_peers([this](PeerId i) { return peers_[i].conn->send_pending(); })) {
    progress(std::chrono::milliseconds(10));
  }
  for (PeerId i = 0; i < static_cast<PeerId>(peers_.size()); ++i) {
    if (book_.is_open(i)) ::shutdown(peers_[i].conn->fd(), SHUT_WR);
  }
  // Linger until the kernel has delivered our bytes (BYE included): closing
  // with unread input would reset the connection and could drop them.
  auto unacked = [this](PeerId i) {
    int outq = 0;
    return ::ioctl(peers_[i].conn->fd(), SIOCOUTQ, &outq) == 0 && outq > 0;
  };
  while (Clock::now() < deadline && open_peers(unacked)) {
    progress(std::chrono::milliseconds(10));
  }
  if (Clock::now() >= deadline) report_slow_shutdown(unacked);
  for (PeerId i = 0; i < static_cast<PeerId>(peers_.size()); ++i) {
    if (!book_.go_down(i, OpStatus::peer_closed)) continue;
    peers_[i].conn->fail(OpStatus::error);  // nothing should be left (shutdown's contract)
    peers_[i].conn.reset();
  }
  epoll_.reset();
}

void TcpDriver::report_slow_shutdown(const std::function<bool(PeerId)>& unacked) const {
  std::vector<PeerId> stuck;
  for (PeerId i = 0; i < static_cast<PeerId>(peers_.size()); ++i)
    if (book_.is_open(i) && (peers_[i].conn->send_pending() || unacked(i))) stuck.push_back(i);
  if (stuck.empty()) return;
  char waited[32];
  std::snprintf(waited, sizeof waited, "%.1f", options_.shutdown_timeout.count() / 1000.0);
  std::fputs(("evbench: tcp: rank " + std::to_string(context_.rank) + ": shutdown waited " +
              waited + " s (driver_options.shutdown_timeout) for rank(s) " + rank_list(stuck) +
              " to take its last bytes (goodbye included); closing without them\n")
                 .c_str(),
             stderr);
}

std::unique_ptr<Driver> make_tcp_driver(const DriverContext& context, const TcpOptions& options) {
  return std::make_unique<TcpDriver>(context, options);
}

}  // namespace evb::tcp
