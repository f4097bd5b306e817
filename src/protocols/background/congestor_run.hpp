#pragma once
// A congestor rank's run: the traffic of its `background` entry over the
// run's driver, from `start` to `stop` after the start barrier, with
// `in_flight` messages (or writes) outstanding to each target; the rank
// reports what it sent and received (CongestorCounts) as its own part.
//
// No message ever arrives before its receive is posted (a driver may refuse
// unexpected data past a limit): a receiver keeps `in_flight` receives
// posted per source, reposts one for each data message and then answers it
// with a one-byte ack, and a sender sends only on a credit (`in_flight` to
// start with, one back per ack); it counts a message once acked. Ending
// without cancelling anything: at `stop` a sender waits for its last acks
// and sends `in_flight` one-byte "done" messages, which land in exactly the
// receives still posted, each answered by a two-byte "fin" into the ack
// receives the sender still has posted (write-incast: a write counts once
// it has landed, and one done per source goes into the one receive its
// target posted, unanswered). A rank is finished when its sends have
// completed and every done and fin has arrived, so the driver shuts down
// with nothing of the traffic posted.
//
// With a monitor or a `control:` list the rank also reports its counts to
// the EVM's rank every report_interval and takes its entry's start and
// stop from there (CongestorLink): while stopped, a sender posts nothing
// new and parks each credit an ack gives back; switched on again (before
// `stop`), it posts the parked ones.
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "protocols/api/protocol.hpp"
#include "protocols/background/congestor_link.hpp"
#include "protocols/background/congestor_plan.hpp"
#include "protocols/background/congestor_stats.hpp"

namespace evb {

class CongestorRun : public ProtocolRun {
 public:
  // What a completion's cookie says it was.
  enum Kind : uint8_t { data = 1, recv, done, key_send, key_recv, ack_send, ack_recv };

  explicit CongestorRun(const ProtocolContext& ctx);
  void set_up() override;
  void run() override;
  void finish(RankStats& stats) override;

 private:
  void post_recv(size_t source, size_t slot);
  void post_ack_recv(size_t target, size_t slot);
  void post_data(size_t target, size_t slot);
  // post_data while the entry is switched on, else parked; nothing past stop.
  void send_or_park(size_t target, size_t slot);
  // The link switched the entry on: the parked slots go out.
  void unpark();
  bool sending() const;
  void post_small(Kind kind, int peer, size_t index, size_t bytes);
  void send_dones();
  void handle(const Completion& c, int64_t now);
  bool finished() const;
  void idle(int64_t wait_ns);  // poll_mode block: wait up to wait_ns for a completion

  const ProtocolContext& ctx_;
  const BackgroundSpec& spec_;
  CongestorPlan plan_;
  CongestorCounts counts_;
  AlignedBuffer send_buffer_;
  AlignedBuffer recv_buffer_;
  AlignedBuffer ack_buffer_;  // a sender's ack and fin receives
  RegistrationPtr send_reg_;
  RegistrationPtr recv_reg_;
  RegistrationPtr ack_reg_;
  RegistrationPtr window_;                         // write-incast target: what sources write into
  std::vector<RemoteKeyPtr> target_keys_;          // write-incast source: the target's window
  std::optional<CongestorLink> link_;              // with a monitor or a control: list
  std::vector<std::pair<size_t, size_t>> parked_;  // (target, slot) held while stopped
  int64_t t0_ = 0;                                 // the start barrier, this rank's clock
  bool started_ = false;                           // past start
  bool stopping_ = false;                          // past stop: data is not reposted
  bool done_sent_ = false;
  std::vector<int> credits_;       // by target: data messages it may still take
  int64_t data_outstanding_ = 0;   // data sends or writes not completed
  int64_t unacked_ = 0;            // data messages sent, not yet acked
  int64_t other_outstanding_ = 0;  // key, ack, done and fin sends
  int64_t dones_received_ = 0;
  int64_t dones_expected_ = 0;
  int64_t fins_received_ = 0;
  int64_t fins_expected_ = 0;
};

// The run of congestor rank ctx.boot.rank() (ctx.topo.congestor(rank) set).
std::unique_ptr<ProtocolRun> make_congestor_run(const ProtocolContext& ctx);

}  // namespace evb
