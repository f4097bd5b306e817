#pragma once
// CreditDriver: the driver of a simulated rank under `evbench sim --model
// credit`. The network is the World's (a CreditNetwork between the hosts the
// ranks were placed on); time is the World's virtual clock. Protocols see a
// driver like the others: tagged sends and receives (software tag matching,
// any-peer receives), one-sided writes with a native immediate, blocking
// waits, a library alltoall. What it does not do: move payload bytes (of a
// data message only the first kCopiedHead bytes travel, its header; a
// command message travels whole), lose a peer, or cost CPU time.
//
// A send or write completes at the sender when its last byte reached the
// destination (as an RC queue pair's completion follows the target's
// acknowledgement); a receive completes when its message arrived.
#include <deque>
#include <string>
#include <vector>

#include "drivers/api/driver.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/common/completions.hpp"
#include "sim/exec/world.hpp"

namespace evb::simexec {

class CreditDriver : public Driver, public MessageSink {
 public:
  CreditDriver(World& world, const DriverContext& context);
  ~CreditDriver() override;

  std::string name() const override { return "sim/credit"; }
  Capabilities capabilities() const override;
  std::string local_address() override;
  void connect(const std::vector<std::string>& addresses,
               const std::vector<PeerId>& peers) override;
  RegistrationPtr register_memory(void* base, size_t size) override;
  RemoteKeyPtr unpack_key(PeerId peer, std::span<const std::byte> packed) override;
  void post_send(PeerId peer, Tag tag, std::span<const Segment> segments, uint64_t cookie) override;
  void post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration* reg,
                 uint64_t cookie) override;
  void rdma_write(PeerId peer, std::span<const Segment> local, const RemoteKey& key,
                  uint64_t offset, std::optional<uint32_t> immediate, uint64_t cookie) override;
  void alltoall(const void* send, void* recv, size_t block) override;
  size_t poll(std::span<Completion> out) override;
  void wait(std::chrono::microseconds timeout) override;
  void shutdown() override;

  void on_arrival(const Message& m) override;
  void on_delivered(const Message& m) override;

  // What every simulated rank's driver declares (the factory's query too).
  static Capabilities declared();

 private:
  struct PostedRecv {
    PeerId peer;
    Tag tag;
    std::byte* buffer;
    size_t size;
    uint64_t cookie;
  };
  void check_peer(PeerId peer, const char* what) const;
  // Fills m's head from the gathered segments; returns the total length.
  // Copies `segments`' first kCopiedHead bytes into m.head (all of them,
  // the rest into m.rest, when `whole`); returns their length.
  static uint64_t gather_head(std::span<const Segment> segments, Message& m, bool whole);
  void complete_recv(const PostedRecv& r, const Message& m);

  World& world_;
  DriverContext context_;
  std::deque<Completion> done_;
  std::vector<PostedRecv> posted_;  // in posting order (matching takes the first)
  std::deque<Message> unexpected_;  // arrived before their receive, in arrival order
  uint64_t in_flight_ = 0;          // this rank's sends and writes not yet delivered
  int64_t empty_polls_at_ = -1;     // the instant of the last empty polls
  int empty_polls_ = 0;
  bool shut_down_ = false;
};

// The driver factory `evbench sim --model credit` adds to its registry:
// `world` is filled in once the simulation exists (before any rank starts).
DriverFactory credit_driver_factory(World* const* world);

}  // namespace evb::simexec
