// RendezvousServer: construction, the poll loop and the socket I/O of its
// connections; what each message does is in rendezvous_rounds.cpp.
#include "bootstrap/rendezvous_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "bootstrap/rendezvous_conn.hpp"
#include "bootstrap/rendezvous_protocol.hpp"
#include "core/error.hpp"
#include "core/open_files.hpp"

namespace evb::boot {

RendezvousServer::RendezvousServer(ServerOptions options) : opt_(std::move(options)) {
  if (opt_.size < 1) throw Error("bootstrap: rendezvous size must be >= 1");
  listen_ = listen_tcp(opt_.host, opt_.port, &port_);
  set_nonblocking(listen_.get());
  int p[2];
  if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
    throw Error(std::string("bootstrap: pipe: ") + std::strerror(errno));
  wake_rd_ = Fd(p[0]);
  wake_wr_ = Fd(p[1]);
  by_rank_.assign(static_cast<size_t>(opt_.size), nullptr);
  hostnames_.assign(static_cast<size_t>(opt_.size), "");
  round_data_.assign(static_cast<size_t>(opt_.size), "");
  round_has_.assign(static_cast<size_t>(opt_.size), false);
  round_op_.assign(static_cast<size_t>(opt_.size), 0);
  states_.assign(static_cast<size_t>(opt_.size), RankState::absent);
  // Every rank may connect at once; the kernel caps the listen backlog.
  if (const int cap = kernel_somaxconn(); cap > 0 && opt_.size > cap)
    log("rendezvous: net.core.somaxconn is " + std::to_string(cap) + ", below the " +
        std::to_string(opt_.size) +
        " ranks that may connect at once: connections beyond it wait for a SYN retransmit "
        "(1 s or more); raise it (sysctl -w net.core.somaxconn=" +
        std::to_string(std::max(4096, opt_.size)) + ") for faster starts");
}

RendezvousServer::~RendezvousServer() {
  stop();
}

void RendezvousServer::start() {
  join_deadline_ = Clock::now() + opt_.join_timeout;
  thread_ = std::thread([this] { run(); });
}

void RendezvousServer::stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  char b = 1;
  [[maybe_unused]] auto r = ::write(wake_wr_.get(), &b, 1);
  thread_.join();
  conns_.clear();
}

void RendezvousServer::abandon_in_child() noexcept {
  listen_.reset();
  wake_rd_.reset();
  wake_wr_.reset();
}

RendezvousServer::RankState RendezvousServer::rank_state(int rank) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (rank < 0 || rank >= opt_.size) return RankState::absent;
  return states_[static_cast<size_t>(rank)];
}

bool RendezvousServer::failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failed_;
}

std::optional<RankReport> RendezvousServer::first_abort(std::chrono::milliseconds wait) const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, wait, [&] { return first_abort_.has_value(); });
  return first_abort_;
}

std::optional<RankReport> RendezvousServer::first_failure() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_failure_;
}

bool RendezvousServer::all_left_locked() const {
  bool any_absent = false;
  for (auto s : states_) {
    if (s == RankState::joined) return false;
    if (s == RankState::absent) any_absent = true;
  }
  return failed_ || !any_absent;
}

bool RendezvousServer::wait_all_left(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return all_left_locked(); });
}

void RendezvousServer::log(const std::string& line) const {
  if (opt_.log) {
    opt_.log(line);
  } else {
    std::string l = "evbench: " + line + "\n";
    std::fputs(l.c_str(), stderr);
  }
}

void RendezvousServer::run() {
  std::vector<pollfd> fds;
  while (!stop_) {
    fds.clear();
    fds.push_back({wake_rd_.get(), POLLIN, 0});
    // While paused (no descriptors), a pending connection would wake poll at once.
    bool paused = Clock::now() < accept_paused_until_;
    fds.push_back({paused ? -1 : listen_.get(), POLLIN, 0});
    for (auto& c : conns_) {
      short ev = c->close_after_flush ? 0 : POLLIN;
      if (!c->out.empty()) ev |= POLLOUT;
      fds.push_back({c->fd.get(), ev, 0});
    }
    int rc = ::poll(fds.data(), fds.size(), 250);
    if (rc < 0 && errno != EINTR) {
      log(std::string("rendezvous: poll failed: ") + std::strerror(errno));
      break;
    }
    if (rc > 0) {
      if (fds[0].revents) {
        char buf[64];
        while (::read(wake_rd_.get(), buf, sizeof buf) > 0) {
        }
      }
      size_t n = conns_.size();  // accept_new appends; poll results cover the first n
      if (fds[1].revents & POLLIN) accept_new();
      for (size_t i = 0; i < n; ++i) {
        Conn& c = *conns_[i];
        short re = fds[i + 2].revents;
        if (c.dead || !re) continue;
        if (re & POLLOUT) on_writable(c);
        if (!c.dead && (re & (POLLIN | POLLHUP | POLLERR))) {
          if (c.close_after_flush) {
            if (re & (POLLHUP | POLLERR)) c.dead = true;
          } else {
            on_readable(c);
          }
        }
      }
    }
    reap();
    check_timers();
  }
}

void RendezvousServer::reap() {
  std::erase_if(conns_, [this](const std::unique_ptr<Conn>& c) {
    if (c->dead && c->rank < 0) --unidentified_;
    return c->dead;
  });
}

void RendezvousServer::accept_new() {
  for (;;) {
    int fd = ::accept4(listen_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        accept_paused_until_ = Clock::now() + std::chrono::milliseconds(100);
        if (!limit_logged_) log("rendezvous: accept: " + std::string(std::strerror(errno)));
        limit_logged_ = true;
      }
      return;
    }
    Fd owned(fd);
    const std::string addr = peer_address(fd);
    if (unidentified_ >= unidentified_limit()) {
      turn_away(std::move(owned), addr);
      continue;
    }
    auto c = std::make_unique<Conn>();
    c->fd = std::move(owned);
    c->addr = addr;
    c->hello_deadline = Clock::now() + opt_.hello_timeout;
    ++unidentified_;
    conns_.push_back(std::move(c));
  }
}

// Every expected rank may wait to identify itself at once; beyond that (plus
// the strangers' margin) a connection is told Busy, unread: a flood of silent
// clients cannot crowd out the ranks, and a rank among them retries.
void RendezvousServer::turn_away(Fd fd, const std::string& addr) {
  ++busy_count_;
  const std::string why = std::to_string(unidentified_) +
                          " connections are waiting to identify themselves (the " +
                          std::to_string(opt_.size - joined_) + " ranks still to join and " +
                          std::to_string(opt_.stranger_slack) + " more)";
  if (!busy_logged_)
    log("rendezvous: told the connection from " + addr + " to retry: " + why + " (logged once)");
  busy_logged_ = true;
  // Whatever arrived is read and dropped first: closing a socket with unread
  // bytes resets it, and the reset could overtake the Busy answer.
  char sink[4096];
  for (int i = 0; i < 16 && ::recv(fd.get(), sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
  }
  const std::string frame = encode_busy("the rendezvous is busy: " + why + "; retry");
  [[maybe_unused]] auto k =
      ::send(fd.get(), frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

void RendezvousServer::on_readable(Conn& c) {
  char buf[65536];
  for (;;) {
    ssize_t k = ::recv(c.fd.get(), buf, sizeof buf, 0);
    if (k > 0) {
      c.in.append(buf, static_cast<size_t>(k));
      if (static_cast<size_t>(k) < sizeof buf) break;
      continue;
    }
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (k < 0 && errno == EINTR) continue;
    // Frames that arrived before the close still count (e.g. Abort, Goodbye).
    std::string why = k == 0 ? "connection closed" : std::strerror(errno);
    std::string body;
    try {
      while (!c.dead && take_frame(&c.in, c.rank < 0 ? kMaxHelloFrame : kMaxFrame, &body))
        on_frame(c, body);
    } catch (const ProtocolError&) {
    }
    if (!c.dead) on_closed(c, why);
    return;
  }
  std::string body;
  try {
    while (!c.dead && !c.close_after_flush &&
           take_frame(&c.in, c.rank < 0 ? kMaxHelloFrame : kMaxFrame, &body))
      on_frame(c, body);
  } catch (const ProtocolError& e) {
    if (c.rank < 0) {
      reject(c, std::string("not an evbench rendezvous client (") + e.what() + ")");
    } else {
      on_closed(c, std::string("protocol error: ") + e.what());
    }
  }
}

void RendezvousServer::on_writable(Conn& c) {
  while (!c.out.empty()) {
    const std::string& f = *c.out.front();
    ssize_t k = ::send(c.fd.get(), f.data() + c.out_off, f.size() - c.out_off, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      if (errno == EINTR) continue;
      if (c.close_after_flush) {
        c.dead = true;
      } else {
        on_closed(c, std::strerror(errno));
      }
      return;
    }
    c.out_off += static_cast<size_t>(k);
    if (c.out_off == f.size()) {
      c.out.pop_front();
      c.out_off = 0;
    }
  }
  if (c.close_after_flush) c.dead = true;
}

void RendezvousServer::send(Conn& c, std::shared_ptr<const std::string> frame) {
  if (c.dead) return;
  c.out.push_back(std::move(frame));
  if (c.out.size() == 1) on_writable(c);
}

void RendezvousServer::reject(Conn& c, const std::string& why) {
  log("rendezvous: rejected connection from " + c.addr + ": " + why);
  c.in.clear();
  c.close_after_flush = true;
  send(c, std::make_shared<const std::string>(encode_reject(why)));
}

}  // namespace evb::boot
