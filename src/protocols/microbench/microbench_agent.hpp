#pragma once
// MicroAgent: both sides of the point-to-point micro-benchmarks on one rank
// (one-to-one, many-to-one, gather, gather-cmd, gather-cmd-meta).
//
// Receiver (BU side): posts a receive per credit in circulation per source
// (credit_tickets_of) and credits them; each completed exchange is re-posted
// at once and re-credited, several slots to a credit, until the source's
// final command. Under data_path write it
// posts nothing: each credit names a slot of its arena (the window every RU
// was given the key of), the sender writes the exchange there with an
// immediate naming the slot, and the landed write is checked as a received
// message would be and re-credited. Sender (RU side): sends one
// exchange per credit, visiting its targets in round-robin order; at the
// step deadline it sends a final command with its exchange count to every
// target. The receiver answers the final with an ack carrying the number of
// credits it sent, and the sender finishes once it has seen them all, so no
// message of a step is still in flight when the step ends.
// The arena holds `receive_slots` slots per source (ReceiveSlots): one per
// message in flight and half the window more unless set; with fewer than the
// window, a header is checked only when its slot held no other message in
// flight (every length is checked); with more, every slot is posted or
// credited and `parallel` bounds the messages a sender has not seen
// complete, so no message waits for a credit's round trip while another
// slot is free. Freed slots go back several to a credit (credit_batch_of);
// the sender refuses a credit that would give it more than the credits in
// circulation.
//
// One agent and one Engine serve every step (the Engine's pre-posted command
// receives cannot be withdrawn, so a second Engine would race the first for
// them); begin_step() resets the per-step state. The agent does not own the
// data pool or the receive arena.
#include <deque>
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/common/registered_pool.hpp"
#include "protocols/microbench/microbench_detail.hpp"
#include "protocols/microbench/microbench_slots.hpp"

namespace evb::micro {

// One step's traffic as seen by one rank.
struct StepPlan {
  int step = 0;
  std::vector<int> targets;  // BU indices this rank's RU sends to, in visiting order
  std::vector<int> sources;  // RU indices this rank's BU receives from
};

class MicroAgent : public Agent {
 public:
  // `arena` holds receive buffers for up to `max_sources` sources.
  // `windows` (data_path write; null: send) holds every BU's arena by BU index.
  MicroAgent(Engine& engine, const Topology& topo, DataPool* pool, const Registration* pool_reg,
             uint8_t* arena, const Registration& arena_reg, size_t max_sources,
             const std::vector<WriteTarget>* windows, MicrobenchStats& stats);

  // Bytes of receive arena needed for `max_sources` sources.
  static size_t arena_bytes(const Config& config, size_t max_sources);

  void begin_step(const StepPlan& plan);
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  void on_completion(const Completion& c) override;
  void on_tick(int64_t now_ns) override;
  int64_t next_timer_ns() const override;
  bool done() const override;
  std::string waiting_for() const override;

 private:
  struct Target {
    int bu = 0;
    PeerId rank = 0;
    uint64_t credits = 0;  // unused credits
    uint64_t credits_received = 0;
    uint64_t sent = 0;  // exchanges sent
    bool acked = false;
    uint64_t credits_announced = 0;  // from the ack
    std::deque<uint32_t> slots;      // write: the arena slots credited, oldest first
    uint32_t in_flight = 0;          // data messages posted, not yet complete here
  };
  struct Source {
    int ru = 0;
    PeerId rank = 0;
    uint64_t data_done = 0;
    uint64_t meta_done = 0;
    uint64_t cmd_done = 0;
    uint64_t exchanges_credited = 0;  // completed exchanges already answered
    uint64_t credits_sent = 0;
    uint32_t pending = 0;        // freed slots not yet credited (credit_batch)
    uint32_t pending_first = 0;  // the first of them; the others follow it
    bool final = false;
    uint64_t expected = 0;  // exchanges announced by the final
  };

  void send_exchanges(int64_t now);
  void stop_sending();
  bool send_inline(const Target& t, uint32_t slot);
  bool window_full(const Target& t) const;
  void data_sent(size_t t);
  void post_data(size_t s, uint32_t slot);
  void post_meta(size_t s, uint32_t slot);
  void exchange_progress(size_t s);
  // Returns `slot` of source `s` to its sender: held until credit_batch
  // slots are free (or the next does not follow the held ones), then one
  // credit names them all.
  void credit(size_t s, uint32_t slot);
  void hold_credit(size_t s, uint32_t slot);
  void flush_credits(size_t s);
  void take_credit(size_t t, PeerId from, const Command& cmd);
  // Posts one message of an exchange: a send, or a write into arena slot
  // `slot` of the target (`meta`: its metadata part).
  void deliver(const Target& t, uint32_t slot, bool meta, std::span<const Segment> segs,
               uint64_t cookie);
  void on_write(const Completion& c);
  bool data_ok(size_t s, uint32_t slot, size_t bytes) const;
  // Checks a data message that landed in `slot` (its header only when the
  // slot held no other message in flight) and counts it.
  void check_data(size_t s, uint32_t slot, size_t bytes, bool wrong_peer);
  uint64_t slot_bytes() const;
  void book(int64_t now, uint64_t bytes, int ru);  // received from RU `ru`
  Command bench_command(BenchOp op) const;
  bool sender_done() const;
  bool receiver_done() const;
  uint8_t* data_buffer(size_t s, uint32_t slot) const;
  uint8_t* meta_buffer(size_t s, uint32_t slot) const;

  Engine& engine_;
  const Topology& topo_;
  const Config& config_;
  DataPool* pool_;
  const Registration* pool_reg_;
  const Registration& arena_reg_;
  uint8_t* arena_;
  size_t max_sources_;
  const std::vector<WriteTarget>* windows_;
  MicrobenchStats& stats_;
  uint8_t id_ = 0;
  bool with_cmd_ = false;
  bool with_meta_ = false;
  uint64_t data_size_ = 0;
  uint64_t meta_size_ = 0;
  uint32_t parallel_ = 1;
  uint32_t slots_ = 1;         // receive slots per source (receive_slots)
  uint32_t tickets_ = 1;       // credits in circulation per source
  uint32_t batch_ = 1;         // freed slots returned per credit
  bool shared_slots_ = false;  // fewer slots than messages in flight

  int step_ = 0;
  int64_t window_begin_ns_ = 0;
  int64_t deadline_ns_ = 0;
  std::vector<Target> targets_;
  std::vector<Source> sources_;
  std::vector<int> target_of_bu_;  // BU index -> targets_ index, or -1
  std::vector<int> source_of_ru_;  // RU index -> sources_ index, or -1
  size_t cursor_ = 0;
  bool stopped_ = false;
  size_t sends_in_flight_ = 0;
  uint64_t sequence_ = 0;
  RegisteredPool headers_;                 // stable addresses while sends are in flight
  std::vector<uint32_t> pool_slot_sends_;  // sends in flight per pool slot (inline header)
  size_t next_pool_slot_ = 0;
  std::vector<uint8_t> landed_;  // write: parts landed per arena slot not yet re-credited
  ReceiveSlots data_slots_;      // the slot each data receive or credit names
  ReceiveSlots meta_slots_;      // send path: the slot each metadata receive names
};

}  // namespace evb::micro
