#pragma once
// The psm2 driver: evb::Driver over one PSM2 endpoint and matched queue.
//
// Setup (psm2_driver.cpp): the process-wide Library, psm2_ep_open, an MQ
// with ordering on; local_address() is the endpoint id; connect() is one
// psm2_ep_connect to every peer. Messages (psm2_mq_isend2 / irecv2) carry a
// 96-bit tag: tag0 the evbench Tag, tag1 the SENDER's rank (an any-peer
// receive ignores it and learns the sender from it), tag2 1 for the
// driver's own control messages: a hello once a rank's psm2_ep_connect has
// finished, a goodbye in shutdown(). connect() returns only when every peer's
// hello is in, progressing meanwhile: a peer's psm2_ep_connect needs this
// rank's progress to finish, so leaving for the bootstrap's barrier earlier
// would stall it until its connect timeout. Gathered sends
// are copied into one buffer (MQ sends one contiguous buffer).
//
// Completions (psm2_complete.cpp): poll() first calls psm2_poll(), then
// drains the MQ completion queue (psm2_mq_ipeek2 + psm2_mq_test2). The
// psm2_poll() is essential: psm2_mq_test never progresses, and ipeek only
// while the completion queue is empty, so a rendezvous send (over shm from
// 16000 bytes, PSM2_MQ_RNDV_SHM_THRESH) whose completion needs the
// receiver's reply would otherwise never finish while earlier completions
// sit in the queue (docs/drivers/psm2.md).
#include <psm2.h>
#include <psm2_mq.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "drivers/api/driver.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/common/completions.hpp"
#include "drivers/common/peer_book.hpp"
#include "drivers/psm2/psm2_library.hpp"
#include "drivers/psm2/psm2_options.hpp"

namespace evb::psm2 {

constexpr uint32_t kHelloMagic = 0x45564248;  // "EVBH"
constexpr uint32_t kByeMagic = 0x45564259;    // "EVBY"

// One operation PSM2 holds (its context pointer); owned by the driver's pool.
struct Op {
  uint64_t cookie = 0;
  OpType type = OpType::send;
  PeerId peer = kAnyPeer;
  Tag tag = 0;
  size_t size = 0;  // posted receive size or send length
  bool control = false;
  psm2_mq_req_t req = nullptr;
  std::vector<std::byte> staging;  // gathered sends, and control messages
};

class Psm2Driver final : public Driver {
 public:
  static constexpr size_t kMaxSegments = 1024;  // copied into one buffer

  Psm2Driver(const DriverContext& context, Psm2Options options);
  ~Psm2Driver() override;

  std::string name() const override { return "psm2"; }
  // "psm2/shm" under PSM2_DEVICES=self,shm (psm2_variant), as the run found it.
  std::string variant() const override { return variant_; }
  Capabilities capabilities() const override;
  std::string local_address() override;
  void connect(const std::vector<std::string>& addresses,
               const std::vector<PeerId>& peers) override;
  void post_send(PeerId peer, Tag tag, std::span<const Segment> segments, uint64_t cookie) override;
  void post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration* reg,
                 uint64_t cookie) override;
  size_t poll(std::span<Completion> out) override;
  void shutdown() override;
  std::string last_error() const override { return done_.last_error(); }

  size_t live_ops() const { return live_; }

 private:
  std::string prefix() const { return "psm2: rank " + std::to_string(context_.rank); }
  bool valid_rank(PeerId p) const { return p >= 0 && p < context_.size; }
  Op* new_op();
  void free_op(Op* op);
  void post_control_recv();
  void send_control(PeerId peer, uint32_t magic);

  // psm2_complete.cpp
  void progress();
  void finish(Op* op, const psm2_mq_status2_t& st);
  void on_control(uint32_t magic, PeerId from);
  void peer_closed(PeerId peer);
  void cancel_receives(PeerId peer, OpStatus status);

  DriverContext context_;
  Psm2Options options_;
  std::shared_ptr<Library> library_;
  psm2_ep_t ep_ = nullptr;
  psm2_epid_t epid_ = 0;
  psm2_mq_t mq_ = nullptr;
  std::vector<psm2_epaddr_t> addrs_;  // indexed by rank
  PeerBook book_;                     // state and hello per rank
  std::vector<std::unique_ptr<Op>> all_ops_;
  std::vector<Op*> free_ops_;
  std::unordered_set<Op*> posted_recvs_;  // caller receives PSM2 holds (for peer_closed)
  Op* control_recv_ = nullptr;
  Completions done_;
  size_t live_ = 0;
  size_t control_sends_ = 0;
  bool closing_ = false;
  bool shut_down_ = false;
  std::string variant_ = psm2_variant(std::getenv("PSM2_DEVICES"));
};

}  // namespace evb::psm2
