#pragma once
// RendezvousServer: serves the collective rounds of one run of `size` ranks.
//
// Owns the listening socket (bound in the constructor, so the port is known
// before a launcher forks) and, once start()ed, one background thread running
// a poll loop over all client connections. Clients join with a Hello (run
// token, rank, size); wrong tokens, duplicate or out-of-range ranks are
// rejected and logged while the run goes on; a reject never repeats the
// token. Unidentified connections are limited in number (the ranks still to
// join plus a margin: a connection beyond it is told Busy and retries) and in
// time, and the accept loop backs off when the process runs out of descriptors. When every rank has
// joined, each gets a Welcome with all hostnames. Rounds (allgather, gather, barrier) complete when
// every rank contributed; there is no timeout while ranks stay connected. The first failure (a rank
// disconnecting without Goodbye, an Abort, a join timeout, mismatched collectives) is sent to every
// rank and answers every later contribution.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/socket_util.hpp"

namespace evb::boot {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0 = any free port
  std::string token;
  int size = 1;
  // All ranks must have joined within this time after start().
  std::chrono::milliseconds join_timeout{60000};
  // A round still incomplete after this long is logged (not failed).
  std::chrono::milliseconds slow_round_warning{60000};
  // Connections that have not said a valid Hello yet: at most the ranks
  // still to join plus `stranger_slack` at once (so every expected rank may
  // connect at the same moment); more are answered Busy on accept (the
  // client retries), and each waits at most hello_timeout for its Hello.
  int stranger_slack = 64;
  std::chrono::milliseconds hello_timeout{5000};
  // on_failure exclude: a rank that disconnects after the welcome is marked
  // lost and later rounds complete without it (its contribution empty);
  // the run fails only when rank 0 is lost.
  bool tolerate_loss = false;
  // Receives one line per event worth logging; default: stderr.
  std::function<void(const std::string&)> log;
  // false: the run's failure (and a loss tolerated under on_failure exclude)
  // is not logged: the local launcher asks first_abort() / first_failure()
  // and reports the first cause once, with what it saw of its children.
  bool log_failures = true;
};

// A failure as the server saw it: the rank (or -1) and the message. For an
// abort, `message` is what the rank sent (its own error).
struct RankReport {
  int rank = -1;
  std::string message;
  bool peer_lost = false;  // a rank disconnected without goodbye or abort
};

class RendezvousServer {
 public:
  enum class RankState { absent, joined, goodbye, lost };

  explicit RendezvousServer(ServerOptions options);
  ~RendezvousServer();
  RendezvousServer(const RendezvousServer&) = delete;
  RendezvousServer& operator=(const RendezvousServer&) = delete;

  int port() const { return port_; }
  void start();
  void stop();
  // In a forked child: close the sockets without touching the (absent) thread.
  void abandon_in_child() noexcept;

  RankState rank_state(int rank) const;
  // True once the run failed (peer lost, abort, join timeout, mismatch).
  bool failed() const;
  // The first Abort any rank sent (even after the run failed: a killed
  // rank's peers abort after its connection closed), waiting up to `wait`
  // for one; nullopt if none came.
  std::optional<RankReport> first_abort(
      std::chrono::milliseconds wait = std::chrono::milliseconds(0)) const;
  // What failed the run first (the message every rank was sent).
  std::optional<RankReport> first_failure() const;
  // Waits until every rank left (goodbye or lost) or the run failed and
  // every joined rank left; false on timeout.
  bool wait_all_left(std::chrono::milliseconds timeout);

 private:
  struct Conn;
  void run();
  void accept_new();
  int unidentified_limit() const { return opt_.size - joined_ + opt_.stranger_slack; }
  void turn_away(Fd fd, const std::string& addr);
  void reap();
  void on_readable(Conn& c);
  void on_writable(Conn& c);
  void on_frame(Conn& c, const std::string& body);
  void on_hello(Conn& c, const std::string& body);
  void on_contrib(Conn& c, const std::string& body);
  void on_closed(Conn& c, const std::string& why);
  void try_complete_round();
  bool round_ready() const;  // every rank contributed or is lost
  void fail(int kind, int rank, const std::string& message);
  void send(Conn& c, std::shared_ptr<const std::string> frame);
  void reject(Conn& c, const std::string& why);
  void check_timers();
  void log(const std::string& line) const;
  bool all_left_locked() const;

  ServerOptions opt_;
  Fd listen_;
  Fd wake_rd_, wake_wr_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};

  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<Conn*> by_rank_;
  std::vector<std::string> hostnames_;
  int joined_ = 0;
  bool welcomed_ = false;
  Clock::time_point join_deadline_;
  Clock::time_point accept_paused_until_;  // out of descriptors: stop polling the listener
  int unidentified_ = 0;                   // open connections with rank < 0
  bool limit_logged_ = false;              // out of descriptors, logged once
  bool busy_logged_ = false;               // a connection told Busy, logged once
  int busy_count_ = 0;
  int lost_count_ = 0;     // ranks in state lost
  int goodbye_count_ = 0;  // ranks in state goodbye

  // Current round.
  uint64_t round_seq_ = 0;
  int round_count_ = 0;
  std::vector<std::string> round_data_;
  std::vector<bool> round_has_;
  std::vector<int> round_op_;
  int round_first_op_ = 0;  // the op of the round's first contribution
  Clock::time_point round_start_;
  bool round_warned_ = false;

  std::shared_ptr<const std::string> failure_;

  mutable std::mutex mu_;  // guards states_, failed_ and the reports (read by other threads)
  mutable std::condition_variable cv_;
  std::vector<RankState> states_;
  bool failed_ = false;
  std::optional<RankReport> first_abort_;
  std::optional<RankReport> first_failure_;
};

}  // namespace evb::boot
