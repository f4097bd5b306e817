#pragma once
// The tcp driver: evb::Driver over non-blocking POSIX sockets and epoll.
//
// One connection per peer pair (the lower rank connects; tcp_handshake),
// one framing state machine per connection (tcp_connection), one receive
// matcher for all of them (the shared TagMatcher). Everything runs on the caller's
// thread: post_* only queue, poll()/wait() move bytes and return completions.
// The driver owns its sockets and unexpected-message buffers; send segments
// and receive buffers stay the caller's until their completion.
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "drivers/api/driver.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/common/completions.hpp"
#include "drivers/common/peer_book.hpp"
#include "drivers/common/tag_matcher.hpp"
#include "drivers/tcp/tcp_connection.hpp"
#include "drivers/tcp/tcp_options.hpp"
#include "drivers/tcp/tcp_socket.hpp"

namespace evb::tcp {

class TcpDriver final : public Driver, private FrameSink {
 public:
  static constexpr size_t kMaxSegments = 1024;  // per message; sendmsg calls split them

  TcpDriver(const DriverContext& context, TcpOptions options);
  ~TcpDriver() override;

  std::string name() const override { return "tcp"; }
  Capabilities capabilities() const override;
  std::string local_address() override;
  void connect(const std::vector<std::string>& addresses,
               const std::vector<PeerId>& peers) override;
  void post_send(PeerId peer, Tag tag, std::span<const Segment> segments, uint64_t cookie) override;
  void post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration* reg,
                 uint64_t cookie) override;
  size_t poll(std::span<Completion> out) override;
  void wait(std::chrono::microseconds timeout) override;
  void shutdown() override;
  std::string last_error() const override { return done_.last_error(); }

  // Introspection for tests.
  size_t unexpected_count() const { return matcher_.unexpected_count(); }
  size_t posted_count() const { return matcher_.posted_count(); }

 private:
  // The connection to one peer (its state is in book_).
  struct Peer {
    std::string address;
    std::unique_ptr<Connection> conn;
    bool want_out = false;  // EPOLLOUT registered
    bool dirty = false;     // queued sends not yet tried
  };

  // FrameSink
  RecvTarget begin_message(PeerId peer, Tag tag, uint64_t length) override;
  void end_message(PeerId peer, Tag tag, const RecvTarget& target, uint64_t length,
                   OpStatus status) override;
  void send_done(PeerId peer, Tag tag, uint64_t cookie, size_t bytes, OpStatus status) override;

  void progress(std::chrono::nanoseconds timeout);
  void flush_dirty();
  void flush_peer(PeerId peer);
  // One line on stderr: shutdown() reached its deadline, and for which peers.
  void report_slow_shutdown(const std::function<bool(PeerId)>& unacked) const;
  void on_event(PeerId peer, uint32_t events);
  void peer_down(PeerId peer, OpStatus status, const std::string& reason);
  void set_out_interest(PeerId peer, bool on);
  bool is_peer(PeerId peer) const;
  std::string name_of(PeerId peer) const;

  DriverContext context_;
  TcpOptions options_;
  Fd listener_;
  std::string address_;
  Fd epoll_;
  std::vector<Peer> peers_;
  PeerBook book_;
  std::vector<PeerId> dirty_;
  Completions done_;
  TagMatcher matcher_{done_.queue(), options_.unexpected};
  bool connected_ = false;
  bool shut_down_ = false;
  bool pwait2_ = true;
  std::vector<PeerId> flushing_;  // flush_dirty()'s list (capacity kept)  // epoll_pwait2 exists
                                  // (false: epoll_wait, ms resolution)
};

std::unique_ptr<Driver> make_tcp_driver(const DriverContext& context, const TcpOptions& options);

}  // namespace evb::tcp
