#pragma once
// World: the credit model's simulation of one run (`evbench sim --model
// credit`). Every rank is a Fiber on this thread, one virtual clock serves
// them all (SimContext: now_ns() answers it), and a Network carries their
// messages between the hosts the ranks were placed on.
//
// The scheduler runs the runnable ranks one at a time; a rank runs until it
// blocks (its driver's wait, a collective), with no virtual time passing
// while it runs (the model counts the network, not the CPUs). When no rank
// can run, the clock jumps to the next thing that happens: a message
// delivered, a rank's wait timing out. A run where every rank waits and
// nothing is in flight is stalled and fails naming the ranks.
//
// Messages (sim/exec/message.hpp) are the drivers' sends and writes; the
// world hands each to the network (or, between ranks on one host, delivers
// it at once) and, when its last byte arrives, to the MessageSink of the
// destination rank and then of the source. Each rank pair's messages travel
// on a connection of their own (connections.hpp); the network must have
// Connections(rank_host).lanes() lanes.
//
// With a per-fragment CPU cost (set_fragment_cpu: a calibration's RU and BU
// cost, `evbench sim --calibrate`), every fragment (a send on the data
// channel, a one-sided write) takes its sender's host CPU for the send
// cost before it enters the network, and its receiver's host CPU for the
// receive cost after its last byte arrived, before the ranks hear of it.
// Each host has one CPU for this: its fragments queue for it in the order
// they reach it, so a host whose fragments cost more CPU than the wire
// time is slowed to what its CPU can do. Commands are not charged.
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "core/sim_context.hpp"
#include "sim/credit/network.hpp"
#include "sim/exec/connections.hpp"
#include "sim/exec/fiber.hpp"
#include "sim/exec/message.hpp"

namespace evb::simexec {

// What carries messages between hosts: CreditNetwork's shape (`lane`: the
// connection of the host pair, Connections::lane).
class Network {
 public:
  virtual ~Network() = default;
  virtual uint64_t send(int src_host, int dst_host, uint64_t bytes, int64_t now_ns, int lane) = 0;
  virtual int64_t next_event_ns() const = 0;
  virtual void advance(int64_t t_ns, std::vector<simnet::Delivery>& delivered) = 0;
};

// A rank's driver, as the world delivers to it.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  // `m` reached this rank (it is the destination).
  virtual void on_arrival(const Message& m) = 0;
  // `m`, which this rank sent, was delivered.
  virtual void on_delivered(const Message& m) = 0;
};

// A rank stopped because another rank aborted the run (the cause is
// reported where it happened).
class WorldAborted : public Error {
 public:
  using Error::Error;
};

class World : public SimContext {
 public:
  // `rank_host[r]`: the network host rank r runs on.
  World(std::vector<int> rank_host, Network& network);
  ~World() override;

  int64_t now_ns() const override { return now_; }
  int ranks() const { return static_cast<int>(rank_host_.size()); }

  // Runs body(rank) in every rank's fiber until all have returned. The
  // body must not throw. Installs this world as the thread's SimContext.
  void run(const std::function<void(int rank)>& body, size_t stack_bytes);

  // --- from a rank's fiber ---
  int current() const { return current_; }
  // Suspends the current rank until `t_ns` or until wake(rank); throws
  // WorldAborted when the run was aborted meanwhile.
  void block_until(int64_t t_ns);
  // Blocks the current rank for `ns` of virtual time at least (a rank that
  // polls without waiting lets time pass this way).
  void pause(int64_t ns) { block_until(now_ + ns); }
  // Ends every rank's waiting: they throw WorldAborted (first cause kept).
  void abort(const std::string& why);
  bool aborted() const { return aborted_; }

  // The driver of `rank` (set once it is created).
  void attach(int rank, MessageSink* sink);
  void detach(int rank);
  // Sends `m` (src, dst, bytes set) now; its sinks hear of it on delivery.
  void transmit(Message m);
  // Messages sent and not yet delivered (those queued for a host's CPU too).
  size_t in_flight() const { return in_flight_.size() + cpu_queue_.size(); }

  // The host CPU time a fragment costs its sender before it leaves and its
  // receiver after it arrived (ns; 0, the default: none, and the run is
  // exactly the one without). Set before run().
  void set_fragment_cpu(int64_t send_ns, int64_t receive_ns);
  // Fragments charged, and the host CPU time charged in all.
  uint64_t fragments_charged() const { return fragments_charged_; }
  int64_t cpu_charged_ns() const { return cpu_charged_ns_; }

  // Bootstrap collectives over every rank: each rank's contribution, by
  // rank, once all have made the call (`gather` keeps them for rank 0).
  std::vector<std::string> collective(const std::string& mine, bool to_all);

  // Figures of the simulation: fibers resumed, messages moved.
  uint64_t switches() const { return switches_; }
  uint64_t messages() const { return messages_; }

 private:
  struct Timer {
    int64_t t;
    uint64_t seq;
    int rank;
    uint64_t generation;
    bool operator>(const Timer& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  void make_runnable(int rank);
  void wake(int rank);
  bool advance_clock();  // false: nothing left to happen
  void deliver(uint64_t key);
  // Hands `m` to the network (or, on one host, to the next delivery round).
  void send_now(const Message& m);
  // `key`'s last byte arrived: its receiver's CPU first, then deliver().
  void arrive(uint64_t key);
  static bool is_fragment(const Message& m);
  // When `host`'s CPU has done `cost_ns` more work that reached it now.
  int64_t charge(int host, int64_t cost_ns);
  [[noreturn]] void stalled() const;

  std::vector<int> rank_host_;
  Connections connections_;
  Network& network_;
  int64_t now_ = 0;
  int current_ = -1;
  std::vector<std::unique_ptr<Fiber>> fibers_;
  std::vector<MessageSink*> sinks_;
  std::vector<uint8_t> blocked_;
  std::vector<uint8_t> queued_;
  std::vector<uint64_t> generation_;
  std::vector<int> runnable_;
  size_t runnable_head_ = 0;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  uint64_t timer_seq_ = 0;
  bool aborted_ = false;
  std::string abort_why_;

  // Messages in flight, by key (the network's id, or a local one).
  std::unordered_map<uint64_t, Message> in_flight_;
  std::vector<uint64_t> local_ready_;  // same-host messages to deliver now
  uint64_t next_local_key_ = 1ull << 62;
  std::vector<simnet::Delivery> delivered_;

  // The current collective round.
  std::vector<std::string> round_data_;
  int round_count_ = 0;
  uint64_t round_seq_ = 0;
  std::vector<std::string> round_result_;
  uint64_t switches_ = 0;
  uint64_t messages_ = 0;

  // Per-fragment host CPU: the costs, when each host's CPU is next free, and
  // the fragments waiting for a CPU's work to end (to be sent, or to be
  // delivered: `key` in in_flight_), in time order.
  struct CpuDone {
    int64_t t;
    uint64_t seq;
    bool send;
    uint64_t key;  // deliver: the message's key
    Message m;     // send: the message
    bool operator>(const CpuDone& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  int64_t send_cpu_ns_ = 0;
  int64_t receive_cpu_ns_ = 0;
  std::vector<int64_t> cpu_free_;  // by host
  std::priority_queue<CpuDone, std::vector<CpuDone>, std::greater<CpuDone>> cpu_queue_;
  uint64_t cpu_seq_ = 0;
  uint64_t fragments_charged_ = 0;
  int64_t cpu_charged_ns_ = 0;
};

}  // namespace evb::simexec
