#include "drivers/tcp/tcp_handshake.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "core/error.hpp"
#include "drivers/tcp/tcp_wire.hpp"

namespace evb::tcp {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kListenerKey = 0;
constexpr uint64_t kOutgoingBit = 1ull << 62;
// Connects of this rank in flight at once: the peers' listen backlogs hold
// N - 1 each, but where net.core.somaxconn caps them lower a burst of
// connects from every rank would overflow them (a dropped SYN costs a 1 s
// retransmit); a window keeps a target's queue at about this many per wave.
constexpr size_t kConnectWindow = 32;

// This rank's side of a connection it initiates.
struct Outgoing {
  enum class State { idle, connecting, sending, awaiting, done };
  PeerId peer = -1;
  std::string endpoint;
  Fd fd;
  State state = State::idle;
  Handshake hello;
  size_t sent = 0;
  Handshake reply;
  size_t got = 0;
  Clock::time_point retry_at;
  std::chrono::milliseconds backoff{10};
  std::string last_error = "not tried yet";
};

// A socket accepted on the listener, not yet identified.
struct Incoming {
  Fd fd;
  std::string from;
  Handshake hello;
  size_t got = 0;
  Clock::time_point deadline;
};

class Setup {
 public:
  Setup(int listener, const SetupParams& p) : listener_(listener), p_(p) {
    epoll_ = Fd(::epoll_create1(EPOLL_CLOEXEC));
    if (!epoll_.valid()) throw Error("tcp: epoll_create1: " + errno_text(errno));
    result_.resize(p.addresses.size());
  }

  std::vector<Fd> run();

 private:
  void add(int fd, uint32_t events, uint64_t key);
  void modify(int fd, uint32_t events, uint64_t key);
  void remove(int fd) { ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr); }

  void start(Outgoing& o);
  void retry(Outgoing& o, std::string reason);
  void on_outgoing(Outgoing& o, uint32_t events);
  void accept_all();
  void on_incoming(uint64_t id);
  void refuse(uint64_t id, RefuseReason reason, const std::string& text);
  [[noreturn]] void timed_out();

  int listener_;
  const SetupParams& p_;
  Fd epoll_;
  std::vector<std::unique_ptr<Outgoing>> outgoing_;
  std::map<PeerId, Outgoing*> outgoing_by_peer_;
  size_t in_flight_ = 0;  // outgoing connections not idle and not done
  std::map<uint64_t, Incoming> incoming_;
  uint64_t next_incoming_ = 1;
  std::set<PeerId> expect_incoming_;
  std::vector<Fd> result_;
  size_t missing_ = 0;
};

void Setup::add(int fd, uint32_t events, uint64_t key) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = key;
  if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
    throw Error("tcp: epoll_ctl(ADD): " + errno_text(errno));
  }
}

void Setup::modify(int fd, uint32_t events, uint64_t key) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = key;
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, fd, &ev);
}

void Setup::start(Outgoing& o) {
  o.fd = Fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!o.fd.valid()) throw Error("tcp: socket(): " + errno_text(errno));
  configure_socket(o.fd.get(), p_.socket);  // buffer sizes before connect (window scale)
  sockaddr_in addr = resolve_endpoint(o.endpoint);
  o.sent = 0;
  o.got = 0;
  int rc = ::connect(o.fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  if (rc != 0 && errno != EINPROGRESS) {
    retry(o, "connect: " + errno_text(errno));
    return;
  }
  o.state = Outgoing::State::connecting;
  ++in_flight_;
  add(o.fd.get(), EPOLLOUT, kOutgoingBit | static_cast<uint64_t>(o.peer));
}

void Setup::retry(Outgoing& o, std::string reason) {
  if (o.state != Outgoing::State::idle) --in_flight_;
  if (o.fd.valid()) remove(o.fd.get());
  o.fd.reset();
  o.state = Outgoing::State::idle;
  o.last_error = std::move(reason);
  o.retry_at = Clock::now() + o.backoff;
  o.backoff = std::min(o.backoff * 2, std::chrono::milliseconds(500));
}

void Setup::on_outgoing(Outgoing& o, uint32_t events) {
  const uint64_t key = kOutgoingBit | static_cast<uint64_t>(o.peer);
  if (o.state == Outgoing::State::connecting) {
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(o.fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return retry(o, "connect: " + errno_text(err));
    if (!(events & EPOLLOUT)) return;
    o.state = Outgoing::State::sending;
  }
  if (o.state == Outgoing::State::sending) {
    auto* p = reinterpret_cast<const char*>(&o.hello);
    ssize_t w = ::send(o.fd.get(), p + o.sent, sizeof o.hello - o.sent, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EAGAIN || errno == EINTR) return;
      return retry(o, "sending hello: " + errno_text(errno));
    }
    o.sent += static_cast<size_t>(w);
    if (o.sent < sizeof o.hello) return;
    o.state = Outgoing::State::awaiting;
    modify(o.fd.get(), EPOLLIN, key);
    return;
  }
  if (o.state != Outgoing::State::awaiting) return;
  auto* p = reinterpret_cast<char*>(&o.reply);
  // Exactly the reply: data frames may follow on the same stream.
  ssize_t r = ::recv(o.fd.get(), p + o.got, sizeof o.reply - o.got, 0);
  if (r == 0) return retry(o, "peer closed the connection during the handshake");
  if (r < 0) {
    if (errno == EAGAIN || errno == EINTR) return;
    return retry(o, "awaiting handshake reply: " + errno_text(errno));
  }
  o.got += static_cast<size_t>(r);
  if (o.got < sizeof o.reply) return;
  const Handshake& h = o.reply;
  if (h.magic == kHandshakeMagic && h.kind == static_cast<uint16_t>(HandshakeKind::reject)) {
    return retry(o, std::string("refused: ") + to_string(static_cast<RefuseReason>(h.reason)));
  }
  if (h.magic != kHandshakeMagic || h.version != kProtocolVersion || h.run_id != p_.run_id ||
      h.from_rank != o.peer) {
    return retry(o, "bad handshake reply (not this run's rank " + std::to_string(o.peer) + ")");
  }
  if (h.kind != static_cast<uint16_t>(HandshakeKind::accept)) {
    return retry(o, "bad handshake reply kind");
  }
  remove(o.fd.get());
  result_[o.peer] = std::move(o.fd);
  o.state = Outgoing::State::done;
  --in_flight_;
  --missing_;
}

void Setup::accept_all() {
  for (;;) {
    int fd = ::accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN, or a transient error (EMFILE) retried on the next event
    }
    uint64_t id = next_incoming_++;
    Incoming in;
    in.fd = Fd(fd);
    in.from = peer_endpoint(fd);
    in.deadline = Clock::now() + p_.hello_timeout;
    add(fd, EPOLLIN, id);
    incoming_.emplace(id, std::move(in));
  }
}

void Setup::refuse(uint64_t id, RefuseReason reason, const std::string& text) {
  auto it = incoming_.find(id);
  if (it == incoming_.end()) return;
  Incoming& in = it->second;
  if (reason != RefuseReason::none) {
    Handshake reply;
    reply.kind = static_cast<uint16_t>(HandshakeKind::reject);
    reply.run_id = 0;  // a reject tells a stranger nothing it should have sent
    reply.from_rank = -1;
    reply.to_rank = -1;
    reply.reason = static_cast<uint32_t>(reason);
    (void)::send(in.fd.get(), &reply, sizeof reply, MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  std::cerr << "tcp: rank " << p_.rank << ": refused connection from " << in.from << ": " << text
            << "\n";
  remove(in.fd.get());
  incoming_.erase(it);
}

void Setup::on_incoming(uint64_t id) {
  Incoming& in = incoming_.at(id);
  auto* p = reinterpret_cast<char*>(&in.hello);
  ssize_t r = ::recv(in.fd.get(), p + in.got, sizeof in.hello - in.got, 0);
  if (r == 0) return refuse(id, RefuseReason::none, "closed before completing the handshake");
  if (r < 0) {
    if (errno == EAGAIN || errno == EINTR) return;
    return refuse(id, RefuseReason::none, "handshake: " + errno_text(errno));
  }
  in.got += static_cast<size_t>(r);
  const Handshake& h = in.hello;
  auto reason = RefuseReason::none;
  if (in.got >= sizeof h.magic && h.magic != kHandshakeMagic) {
    reason = RefuseReason::bad_magic;
  } else if (in.got < sizeof h) {
    return;
  } else if (h.version != kProtocolVersion ||
             h.kind != static_cast<uint16_t>(HandshakeKind::hello)) {
    reason = RefuseReason::bad_version;
  } else if (h.run_id != p_.run_id) {
    reason = RefuseReason::run_id_mismatch;
  } else if (h.to_rank != p_.rank) {
    reason = RefuseReason::wrong_target;
  } else if (!expect_incoming_.count(h.from_rank)) {
    reason = RefuseReason::not_a_peer;
  } else if (result_[h.from_rank].valid()) {
    reason = RefuseReason::duplicate;
  }
  if (reason != RefuseReason::none) return refuse(id, reason, to_string(reason));

  Handshake reply;
  reply.kind = static_cast<uint16_t>(HandshakeKind::accept);
  reply.run_id = p_.run_id;
  reply.from_rank = p_.rank;
  reply.to_rank = h.from_rank;
  ssize_t w = ::send(in.fd.get(), &reply, sizeof reply, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (w != static_cast<ssize_t>(sizeof reply)) {
    return refuse(id, RefuseReason::none, "could not send the handshake reply");
  }
  configure_socket(in.fd.get(), p_.socket);
  remove(in.fd.get());
  result_[h.from_rank] = std::move(in.fd);
  incoming_.erase(id);
  --missing_;
}

void Setup::timed_out() {
  std::string missing;
  PeerId first = -1;
  for (PeerId peer : p_.peers) {
    if (peer == p_.rank || result_[peer].valid()) continue;
    if (first < 0) first = peer;
    if (!missing.empty()) missing += ", ";
    missing += "rank " + std::to_string(peer) + " (" + p_.addresses[peer] + ": ";
    auto it = std::find_if(outgoing_.begin(), outgoing_.end(),
                           [peer](const auto& o) { return o->peer == peer; });
    missing += it != outgoing_.end() ? (*it)->last_error : "never connected to this rank";
    missing += ")";
  }
  auto secs = std::chrono::duration<double>(p_.timeout).count();
  throw PeerError(first, "tcp: rank " + std::to_string(p_.rank) + ": connect timed out after " +
                             std::to_string(secs).substr(0, std::to_string(secs).find('.') + 2) +
                             " s; still missing " + missing);
}

std::vector<Fd> Setup::run() {
  const auto deadline = Clock::now() + p_.timeout;
  for (PeerId peer : p_.peers) {
    if (peer == p_.rank) continue;
    if (peer < 0 || peer >= static_cast<PeerId>(p_.addresses.size())) {
      throw Error("tcp: rank " + std::to_string(p_.rank) + ": peer rank " + std::to_string(peer) +
                  " has no address");
    }
    if (result_[peer].valid()) continue;
    ++missing_;
    if (peer < p_.rank) {
      expect_incoming_.insert(peer);
      continue;
    }
    auto o = std::make_unique<Outgoing>();
    o->peer = peer;
    o->endpoint = p_.addresses[peer];
    o->hello.run_id = p_.run_id;
    o->hello.from_rank = p_.rank;
    o->hello.to_rank = peer;
    o->retry_at = Clock::now();
    outgoing_by_peer_[peer] = o.get();
    outgoing_.push_back(std::move(o));
  }
  add(listener_, EPOLLIN, kListenerKey);
  epoll_event events[64];
  while (missing_ > 0) {
    auto now = Clock::now();
    if (now >= deadline) timed_out();
    auto next = std::min(deadline, now + std::chrono::milliseconds(100));
    for (auto& o : outgoing_) {
      if (o->state != Outgoing::State::idle) continue;
      if (now >= o->retry_at && in_flight_ < kConnectWindow) start(*o);
      if (o->state == Outgoing::State::idle && in_flight_ < kConnectWindow)
        next = std::min(next, o->retry_at);
    }
    for (auto it = incoming_.begin(); it != incoming_.end();) {
      uint64_t id = (it++)->first;
      if (now >= incoming_.at(id).deadline) refuse(id, RefuseReason::none, "handshake timed out");
    }
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
    int n = ::epoll_wait(epoll_.get(), events, 64, static_cast<int>(std::max<int64_t>(wait, 0)));
    if (n < 0 && errno != EINTR) throw Error("tcp: epoll_wait: " + errno_text(errno));
    for (int i = 0; i < n; ++i) {
      uint64_t key = events[i].data.u64;
      if (key == kListenerKey) {
        accept_all();
      } else if (key & kOutgoingBit) {
        auto it = outgoing_by_peer_.find(static_cast<PeerId>(key & ~kOutgoingBit));
        if (it != outgoing_by_peer_.end() && it->second->fd.valid())
          on_outgoing(*it->second, events[i].events);
      } else if (incoming_.count(key)) {
        on_incoming(key);
      }
    }
  }
  remove(listener_);
  for (auto& [id, in] : incoming_) {
    std::cerr << "tcp: rank " << p_.rank << ": refused connection from " << in.from
              << ": all peers already connected\n";
  }
  return std::move(result_);
}

}  // namespace

std::vector<Fd> establish_connections(int listener_fd, const SetupParams& params) {
  Setup setup(listener_fd, params);
  return setup.run();
}

}  // namespace evb::tcp
