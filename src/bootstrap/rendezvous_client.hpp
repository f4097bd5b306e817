#pragma once
// RendezvousClient: one rank's Bootstrap, talking to a RendezvousServer.
//
// The constructor connects (retrying while the server is not up yet), sends
// the Hello and blocks until every rank has joined (Welcome) or the server
// rejects it; a Busy answer or a connection closed before the Welcome is
// retried with jittered backoff until the start-up deadline (connect plus
// join timeout). Collectives send one contribution and block until the result
// arrives; they wait as long as the other ranks stay connected and throw
// RendezvousFailure (a PeerError naming the rank when the server reports a
// lost or aborting rank) when the server says the run failed.
// The destructor says Goodbye (a clean leave) unless abort() was called.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "bootstrap/rendezvous_protocol.hpp"
#include "bootstrap/socket_util.hpp"
#include "drivers/api/bootstrap.hpp"

namespace evb::boot {

struct ClientOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string token;
  int rank = 0;
  int size = 1;
  std::string hostname;  // empty = gethostname()
  // How long to keep retrying the connection (rank 0 may start later).
  std::chrono::milliseconds connect_timeout{30000};
  // How long to wait for every rank to join once connected.
  std::chrono::milliseconds join_timeout{60000};
  // Who serves the rendezvous, for the "lost it" hint ("rank 0", "the launcher").
  std::string server_owner = "rank 0";
  // When the launcher started this rank (epoch: the process's own start).
  std::chrono::steady_clock::time_point launched_at{};
};

// The server reported that the run failed (a rank lost or aborting, a join
// timeout): the cause was reported where it happened, so the rank that gets
// this is collateral. peer() is the rank at fault, or -1.
class RendezvousFailure : public PeerError {
 public:
  using PeerError::PeerError;
};

class RendezvousClient : public Bootstrap {
 public:
  explicit RendezvousClient(ClientOptions options);
  ~RendezvousClient() override;
  RendezvousClient(const RendezvousClient&) = delete;
  RendezvousClient& operator=(const RendezvousClient&) = delete;

  int rank() const override { return opt_.rank; }
  int size() const override { return opt_.size; }
  bool all_local() const override { return all_local_; }
  std::vector<std::string> allgather(const std::string& mine) override;
  std::vector<std::string> gather(const std::string& mine) override;
  void barrier() override;
  void abort(const std::string& why) noexcept override;
  std::chrono::steady_clock::time_point launched_at() const override {
    return opt_.launched_at == std::chrono::steady_clock::time_point{} ? Bootstrap::launched_at()
                                                                       : opt_.launched_at;
  }

  // Clean leave: tells the server this rank is done, waits for its ack.
  // Called by the destructor; safe to call more than once.
  void goodbye() noexcept;
  const std::vector<std::string>& hostnames() const { return hostnames_; }
  // An abort() reached the server, which passes its message on.
  bool abort_delivered() const { return abort_delivered_; }
  // The server told this rank that the run failed (RendezvousFailure).
  bool stopped_by_server() const { return stopped_by_server_; }
  // Said goodbye, aborted, or failed: the connection is no longer in use
  // (safe to ask from another thread, e.g. a RendezvousWatch's callback).
  bool closed() const { return done_; }
  // The connection to the server (for a RendezvousWatch); -1 once closed.
  int socket_fd() const { return fd_.get(); }

 private:
  // Jittered exponential backoff for the join retries (10 ms doubling to 1 s).
  class Backoff {
   public:
    explicit Backoff(int rank);
    std::chrono::milliseconds next();
    std::chrono::milliseconds current() const { return current_; }

   private:
    uint64_t state_;
    std::chrono::milliseconds step_{20};
    std::chrono::milliseconds current_{0};
  };
  // The connection closed before this rank was welcomed: try again.
  class RetryableClose : public Error {
   public:
    using Error::Error;
  };
  void connect_to_server(Clock::time_point start, const std::string& me);
  std::vector<std::string> collective(Op op, const std::string& mine);
  // Reads one frame; deadline max() = no timeout. Throws on close/timeout.
  std::string read_frame(Clock::time_point deadline, const char* waiting_for);
  [[noreturn]] void throw_fail(const std::string& body);
  std::string server() const;

  ClientOptions opt_;
  Fd fd_;
  bool all_local_ = true;
  std::atomic<bool> done_{false};  // goodbye sent, aborted, or the connection is unusable
  bool abort_delivered_ = false;
  bool stopped_by_server_ = false;
  uint64_t seq_ = 0;
  std::vector<std::string> hostnames_;
};

}  // namespace evb::boot
