#pragma once
// The verbs driver: evb::Driver over libibverbs reliable-connected queue
// pairs, one per peer (docs/drivers/verbs.md).
//
// Setup (verbs_driver.cpp) opens the device (VerbsDevice) and creates a
// queue pair for every other rank before the address exchange, so the
// address carries each one's QPN and PSN; connect() takes the peers' queue
// pairs to RTR and RTS and exchanges a hello (run id, where the credit words
// are). Data path (verbs_post.cpp): tagged messages are copied into
// registered send buffers and go as SENDs of at most kBufferBytes into the
// peer's stocked receive buffers, each spending one command credit; a
// message too large for one SEND follows in order on the same queue pair.
// rdma_write is one RDMA WRITE (WITH IMMEDIATE) gathered from the caller's
// registered segments. Credits come back as plain RDMA WRITEs of a running
// count into the sender's credit word, so they need no credit themselves.
// Whatever finds its send queue full, no credit or no send buffer waits in
// the peer's queue of held-back operations, in order (back-pressure).
// Completions (verbs_complete.cpp) are polled without blocking; wait()
// sleeps on the completion channel. A failed work completion puts the
// queue pair's peer down: a completion naming it, a peer_event, and every
// operation waiting on it failed.
#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "drivers/api/driver.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/common/completions.hpp"
#include "drivers/common/hello_wait.hpp"
#include "drivers/common/peer_book.hpp"
#include "drivers/common/tag_matcher.hpp"
#include "drivers/verbs/verbs_credits.hpp"
#include "drivers/verbs/verbs_device.hpp"
#include "drivers/verbs/verbs_memory.hpp"
#include "drivers/verbs/verbs_options.hpp"
#include "drivers/verbs/verbs_wire.hpp"

namespace evb::verbs {

// Size of every send and receive buffer: the largest SEND (header included).
constexpr size_t kBufferBytes = 16384;
// Two-sided messages are chunked into SENDs; this bounds one message.
constexpr uint64_t kMaxTaggedMessage = 1ull << 30;
// Work completions taken per ibv_poll_cq call.
constexpr int kPollBatch = 32;

class VerbsDriver final : public Driver {
 public:
  VerbsDriver(const DriverContext& context, VerbsOptions options);
  ~VerbsDriver() override;

  std::string name() const override { return "verbs"; }
  Capabilities capabilities() const override { return caps_; }
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
  size_t poll(std::span<Completion> out) override;
  void wait(std::chrono::microseconds timeout) override;
  void shutdown() override;
  std::string last_error() const override { return done_.last_error(); }

  const std::string& device_name() const { return device_->name(); }

 private:
  // An operation not (completely) handed to the queue pair yet.
  struct Held {
    enum class Kind : uint8_t { send, write, hello, bye } kind = Kind::send;
    uint64_t cookie = 0;
    Tag tag = 0;
    std::vector<Segment> segments;  // send, write
    uint64_t bytes = 0;
    uint64_t sent = 0;     // send: payload bytes already posted
    bool started = false;  // send: its first SEND is out
    RemoteRegion remote;   // write
    uint64_t offset = 0;   // write
    std::optional<uint32_t> immediate;
  };

  // The queue pair to one peer and its flow control (its state and hello
  // are in book_).
  struct Peer {
    ibv_qp* qp = nullptr;
    uint32_t psn = 0;
    // Its port address (qps left empty) and its queue pair for this rank,
    // kept to bring the queue pair up again (rearm).
    VerbsAddress remote_port;
    QpEndpoint remote_qp;
    bool rearm = false;  // the hello timed out while connecting: reset and retry
    std::optional<SendQueue> sq;
    std::optional<SendCredits> credits;
    std::optional<CreditReturn> returns;
    uint32_t credits_seen = 0;    // the peer's running count, last read
    bool return_due = false;      // this rank's running count changed, not written yet
    uint64_t credit_address = 0;  // the peer's credit words (from its hello)
    uint32_t credit_rkey = 0;
    bool bye = false;  // its bye arrived
    std::deque<Held> held;
    // The message arriving in SENDs, while incomplete.
    bool receiving = false;
    RecvTarget target;
    Tag rtag = 0;
    uint64_t rlength = 0;
    uint64_t rgot = 0;
  };

  // One posted send work request.
  enum class WrKind : uint8_t { chunk, last_chunk, write, credit, hello, bye };
  struct WrRecord {
    uint32_t generation = 0;
    bool live = false;
    WrKind kind = WrKind::chunk;
    PeerId peer = 0;
    uint64_t cookie = 0;
    Tag tag = 0;
    uint64_t bytes = 0;
    int32_t buffer = -1;  // send buffer index
  };

  static const char* what_of(WrKind kind);  // names a work request in errors

  // --- setup and teardown (verbs_driver.cpp) ---
  std::string prefix() const;
  std::string rank_name(PeerId peer) const;
  bool valid_rank(PeerId peer) const { return peer >= 0 && peer < context_.size; }
  void stock_receives(const std::vector<PeerId>& peers);
  void bring_up(PeerId peer, const VerbsAddress& address);
  // Takes the peer's queue pair from INIT to RTR and RTS; its first packet
  // expected is the peer's initial PSN plus `received` (packets accepted
  // already). An empty string on success, else why not.
  std::string go_live(PeerId peer, uint32_t received);
  // While connecting: a hello the peer's HCA never acknowledged (its queue
  // pair not ready yet) put ours in the error state; reset it, bring it up
  // again and resend the hello.
  void rearm(PeerId peer);
  bool may_rearm(PeerId peer, ibv_wc_status status) const;
  HelloWords hello_words() const;  // how a failed hello wait is told

  // --- data path (verbs_post.cpp) ---
  OpStatus refuse_status(PeerId peer) const;  // ok when the peer can take operations
  void hold(PeerId peer, Held h);
  void pump(PeerId peer);
  bool post_credit_return(PeerId peer);
  bool take_credit(PeerId peer);
  bool post_chunk(PeerId peer, Held& h);
  bool post_write(PeerId peer, Held& h);
  bool post_control(PeerId peer, Held& h);
  bool post(PeerId peer, ibv_send_wr& wr, uint32_t record, bool signalled);
  uint32_t new_record(WrKind kind, PeerId peer);
  void free_record(uint32_t index);
  std::byte* send_buffer(int32_t i) {
    return send_slab_.get() + static_cast<size_t>(i) * kBufferBytes;
  }
  std::byte* recv_buffer(uint32_t i) {
    return recv_slab_.get() + static_cast<size_t>(i) * kBufferBytes;
  }
  void repost(PeerId peer, uint32_t buffer);

  // --- completions (verbs_complete.cpp); a peer going down (verbs_peer.cpp) ---
  void progress();
  void on_send_wc(const ibv_wc& wc);
  void on_recv_wc(const ibv_wc& wc);
  void on_message(PeerId peer, std::span<const std::byte> bytes);
  void finish_record(uint32_t index, OpStatus status);
  void peer_down(PeerId peer, OpStatus status, const std::string& why);
  void fail_peer_ops(PeerId peer, OpStatus status, const std::string& why);
  void protocol_error(PeerId peer, const std::string& why);
  PeerId peer_of(uint32_t qp_num) const;

  DriverContext context_;
  VerbsOptions options_;
  std::unique_ptr<VerbsDevice> device_;
  Capabilities caps_;
  std::vector<Peer> peers_;  // indexed by rank
  PeerBook book_;
  std::unordered_map<uint32_t, PeerId> qp_peer_;
  // Credit words, one u32 per rank: [0, size) written by the peers (their
  // running count of credits returned to this rank), [size, 2 size) this
  // rank's counts for them, the source of its credit writes.
  std::unique_ptr<uint32_t[]> credit_words_;
  std::unique_ptr<VerbsRegistration> credit_mr_;
  std::unique_ptr<std::byte[]> send_slab_;
  std::unique_ptr<VerbsRegistration> send_mr_;
  std::vector<int32_t> free_send_;
  std::unique_ptr<std::byte[]> recv_slab_;
  std::unique_ptr<VerbsRegistration> recv_mr_;
  std::vector<PeerId> active_;      // the peers given to connect(), once each
  std::vector<PeerId> recv_owner_;  // per-queue-pair receive queues: buffer -> peer
  std::vector<WrRecord> records_;
  std::vector<uint32_t> free_records_;
  std::vector<uint64_t> retired_;  // scratch
  std::vector<ibv_sge> sges_;      // scratch, max_sge entries
  Completions done_;
  TagMatcher matcher_{done_.queue()};
  size_t control_sends_ = 0;  // hellos and byes not yet completed
  std::chrono::steady_clock::time_point next_keepalive_{};
  std::chrono::steady_clock::time_point connect_deadline_{};
  bool connected_ = false;
  bool shut_down_ = false;
};

std::unique_ptr<Driver> make_verbs_driver(const DriverContext& context,
                                          const VerbsOptions& options);

}  // namespace evb::verbs
