#pragma once
// Engine: the single-threaded, non-blocking event loop of one rank.
//
// It polls the driver, dispatches completions to the agents (the protocol
// roles hosted by this rank), runs their timers, and chooses how to idle
// (busy, yield, or block in the driver's wait). Around the raw driver it
// provides what every protocol needs:
//  - commands: pools of pre-posted any-peer receives per channel and of send
//    buffers, registered with the driver once, delivered to the listening
//    agent as Command structs;
//  - one-sided writes into a BU's windows (WriteTarget), whose landing
//    (remote_write completions) goes to the agent that listens for writes;
//  - loopback: messages and writes to this same rank (RU and BU sharing a
//    process) are matched and copied here, so drivers never talk to themselves;
//  - the failure policy: no progress for `peer_timeout` plus
//    `fu.processing_time` (a healthy peer may be busy with its FUs that long)
//    ends the loop with an evb::Error naming what was awaited. A lost peer or
//    a failed operation does too under on_failure abort; under exclude the
//    peer is marked lost, every agent hears of it once (on_peer_lost), failed
//    operations go to their agent with their status, and nothing more is
//    sent to that peer (sends and writes to it complete as peer_lost here);
//  - fault injection (FaultInjector): kills, stalls and send delays;
//  - command batches (batch.events > 1): credits, assignments and requests
//    held back per peer and channel and sent several to a message
//    (CommandBatcher, engine_batch.cpp); a received batch is handed to its
//    agent command by command;
//  - cost books (engine_costs.cpp): the commands sent and received per role
//    (CommandCounts) and the thread CPU time of one timed agent's handlers
//    (CpuMeter: the EVM's).
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/config.hpp"
#include "core/messages.hpp"
#include "core/ring_queue.hpp"
#include "drivers/api/driver.hpp"
#include "protocols/common/command_batcher.hpp"
#include "protocols/common/command_counts.hpp"
#include "protocols/common/cpu_meter.hpp"
#include "protocols/common/fault_injector.hpp"
#include "protocols/common/registered_pool.hpp"

namespace evb {

class Engine;

// The memory a rank writes fragments into: a peer's registered windows
// through the key it advertised, or this rank's own (loopback, `local`).
struct WriteTarget {
  PeerId peer = kAnyPeer;
  RemoteKeyPtr key;            // a peer's memory
  std::byte* local = nullptr;  // this rank's own memory
  size_t size = 0;             // bytes addressable from offset 0
};

// One protocol role on this rank (RU, BU, EVM, or a micro-benchmark side).
class Agent {
 public:
  virtual ~Agent() = default;
  virtual void start(int64_t now_ns) = 0;
  virtual void on_command(PeerId /*from*/, const Command& /*cmd*/) {}
  // on_failure exclude: `peer` died (once per peer). May throw to end the run.
  virtual void on_peer_lost(PeerId /*peer*/, int64_t /*now_ns*/) {}
  // A data send/recv/write posted with this agent's cookie finished (status
  // ok; under on_failure exclude also a failed one, naming a lost peer), or
  // a write landed in memory this agent listens to (remote_write).
  virtual void on_completion(const Completion& c) = 0;
  // Timers; called every loop turn.
  virtual void on_tick(int64_t /*now_ns*/) {}
  // Earliest time on_tick needs to run (for blocking waits); -1: none.
  virtual int64_t next_timer_ns() const { return -1; }
  virtual bool done() const = 0;
  // What the agent still waits for (for timeout messages).
  virtual std::string waiting_for() const = 0;
};

class Engine {
 public:
  Engine(Driver& driver, int rank, const Config& config, PollMode mode,
         std::vector<std::string> peer_names);

  // Registers an agent; returns its id (the top byte of its cookies).
  uint8_t add_agent(Agent* agent);
  // Routes commands on `channel` to `agent` and posts `depth` receives for it.
  void listen(Channel channel, uint8_t agent, int depth);

  // Routes remote_write completions (writes into this rank's memory) to `agent`.
  void listen_writes(uint8_t agent) { write_listener_ = agent; }

  // Data path (agents' cookies must carry their id: make_cookie()).
  void send(PeerId peer, Tag tag, std::span<const Segment> segments, uint64_t cookie);
  void recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration* reg,
            uint64_t cookie);
  void write(const WriteTarget& target, std::span<const Segment> segments, uint64_t offset,
             uint32_t immediate, uint64_t cookie);
  // The three command sends below are inline: at batch.events 1 (the
  // default) their batching checks then cost no call of their own on the
  // data path (docs/METRICS.md, "Framework cost per fragment").
  void send_command(PeerId peer, Channel channel, const Command& cmd) {
    if (batcher_.holds(peer, channel)) send_batch(peer, channel);  // keeps the channel's order
    post_command(peer, channel, &cmd, sizeof cmd);
  }
  // A command that may travel with others of its kind (credit, assign,
  // pull_request, push_assign): with batch.events > 1 it is held back in
  // the list of its peer and channel and sent with it (CommandBatcher: when
  // full, after batch.max_wait, before any other command to that peer and
  // channel, or when flushed); else, and to this rank, as send_command
  // (nothing is ever held for this rank, nor anything at batch.events 1).
  void batch_command(PeerId peer, Channel channel, const Command& cmd) {
    if (!batcher_.active() || peer == rank_) {
      post_command(peer, channel, &cmd, sizeof cmd);
      return;
    }
    hold_command(peer, channel, cmd);
  }
  // Sends every list held back on `channel` now (an agent that answered
  // all the commands of one incoming message).
  void flush_commands(Channel channel) {
    if (!batcher_.empty()) flush_lists(channel);
  }
  // Queues `c` for its agent as if the driver had reported it (work an
  // agent did itself, e.g. a fragment checked in place), delivered from the
  // loop like loopback completions, never from inside the caller.
  void complete_locally(const Completion& c) { local_completions_.push_back(c); }

  // Times `agent`'s handlers: each received message it is handed (all its
  // commands) and its tick in a turn that handed it one (engine_costs.cpp).
  void time_agent(uint8_t agent);
  const CpuMeter* meter() const { return meter_ ? &*meter_ : nullptr; }
  const CommandCounts& counts() const { return counts_; }

  Driver& driver() { return driver_; }
  // The faults this rank plays (kept by the caller; null: none).
  void set_faults(FaultInjector* faults) { faults_ = faults; }
  FaultInjector* faults() { return faults_; }
  bool lost(PeerId p) const { return p >= 0 && p < static_cast<int>(lost_.size()) && lost_[p]; }

  static uint64_t make_cookie(uint8_t agent, uint64_t value) {
    return (static_cast<uint64_t>(agent) << 56) | (value & ((1ull << 56) - 1));
  }
  static uint64_t cookie_value(uint64_t cookie) { return cookie & ((1ull << 56) - 1); }

  // Runs until every agent is done and every command send has completed.
  void run();

  // Run-time control (the monitor): while paused, standing still is not a
  // fault; the silence allowed grows with the FUs' time per event.
  void set_paused(bool paused) { paused_ = paused; }
  bool paused() const { return paused_; }
  void set_processing_time(double seconds);

  int rank() const { return rank_; }
  const Config& config() const { return config_; }
  int64_t t0_ns() const { return t0_ns_; }
  const std::string& peer_name(PeerId p) const;

 private:
  struct LocalRecv {
    Tag tag;
    void* buffer;
    size_t size;
    uint64_t cookie;
  };
  struct LocalSend {
    Tag tag;
    std::vector<Segment> segments;
    uint64_t cookie;
  };

  void dispatch(const Completion& c);
  void on_engine_completion(const Completion& c);
  // Copies the command message in `bytes` into a send buffer padded to
  // command_size and posts it (or loops it back, or drops it to a lost peer).
  void post_command(PeerId peer, Channel channel, const void* bytes, size_t size);
  // Sends the list held back for (peer, channel): one plain command alone,
  // else a batch.
  void send_batch(PeerId peer, Channel channel);
  // batch_command with batch.events > 1, to another rank.
  void hold_command(PeerId peer, Channel channel, const Command& cmd);
  void flush_lists(Channel channel);
  void flush_due(int64_t now);
  // The list of a received batch (header `head`, the message at `bytes`),
  // checked, then handed to `agent` command by command.
  void take_batch(PeerId from, const Command& head, const std::byte* bytes, size_t size);
  // Hands the commands of one message (`message`) or of a loopback from
  // `from` on `channel` to their agent, counted, and timed for the timed agent.
  void hand_over(Channel channel, PeerId from, std::span<const Command> cmds, bool message);
  void tick_agents(int64_t now);
  void deliver_local(Tag tag, std::span<const Segment> segments, uint64_t cookie,
                     const LocalRecv& r);
  [[noreturn]] void fail(const Completion& c);
  // "rank 2 (RU 2, BU 2) disappeared", "send to rank 3 (...) failed: peer lost".
  std::string failure_text(const Completion& c) const;
  void on_failed(const Completion& c);  // on_failure exclude
  void mark_lost(PeerId p);
  // Whether a post must go through post_or_delay (a delay fault is active
  // or posts wait behind one); false without faults, at no cost.
  bool delaying() const {
    return faults_ && (!delayed_.empty() || faults_->send_delay_ns(now_ns()) > 0);
  }
  // Runs `post` now, or later when a delay fault is active.
  void post_or_delay(std::function<void()> post);
  void run_delayed(int64_t now);
  bool all_done() const;
  void idle(int64_t now);
  std::string waiting_report() const;

  Driver& driver_;
  int rank_;
  const Config& config_;
  PollMode mode_;
  std::vector<std::string> peer_names_;
  std::vector<Agent*> agents_;
  uint8_t listeners_[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  uint8_t write_listener_ = 0xFF;
  RegisteredPool recv_slots_;          // command receives, one per posted depth
  std::vector<Channel> recv_channel_;  // by recv slot
  RegisteredPool send_slots_;          // command sends in flight
  size_t command_sends_in_flight_ = 0;
  // Loopback messages waiting for their match (few; vectors keep capacity).
  std::vector<LocalRecv> local_recvs_;
  std::vector<LocalSend> local_sends_;
  RingQueue<Completion> local_completions_;
  // The driver's completions being dispatched (fail() names every peer that
  // failed in the same poll: which of several losses a rank saw first is
  // chance, so it names them all).
  std::span<const Completion> batch_;
  RingQueue<std::pair<Channel, Command>> local_commands_;
  CommandBatcher batcher_;                     // batch.events > 1: lists held back
  std::vector<Command> batch_in_;              // a received batch's list
  std::vector<Command> batch_out_;             // a list being sent
  std::vector<CommandBatcher::Key> flushing_;  // lists being flushed
  CommandCounts counts_;
  std::optional<CpuMeter> meter_;
  uint8_t timed_ = 0xFF;    // the timed agent (0xFF: none)
  bool timed_due_ = false;  // it was handed a message this turn
  int64_t t0_ns_ = 0;
  int64_t last_progress_ns_ = 0;
  double timeout_s_ = 0;       // peer_timeout + fu.processing_time (0: none)
  bool paused_ = false;        // the monitor paused assignment
  size_t quiet_seen_ = 0;      // completions of this poll that are monitor traffic
  bool exclude_ = false;       // on_failure exclude
  std::vector<uint8_t> lost_;  // by rank
  FaultInjector* faults_ = nullptr;
  std::deque<std::pair<int64_t, std::function<void()>>> delayed_;  // due time, post
};

}  // namespace evb
