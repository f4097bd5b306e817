#pragma once
// The libfabric driver: evb::Driver over one FI_EP_RDM endpoint per rank.
//
// Setup picks one fi_info (lf_fabric), opens fabric, domain, CQ, AV and
// endpoint, and keeps a few control receives posted. connect() inserts the
// peers' addresses into the AV and exchanges a hello with each peer (which
// also checks they belong to the same run). Tagged sends and receives carry
// the sender's rank in the upper tag bits (drivers/common/rank_tags.hpp); rdma_write is
// fi_writemsg into a peer's registered region, its immediate travels as
// remote CQ data or, on providers without it, as an ordered control message.
// Everything runs on the caller's thread (FI_THREAD_DOMAIN): post_* hand the
// operation to libfabric or, when it answers FI_EAGAIN, queue it for the next
// poll(); poll()/wait() read the CQ, which also drives progress.
//
// Setup and teardown live in lf_driver.cpp, posting in lf_post.cpp,
// completions and peer failure in lf_complete.cpp.
#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "drivers/api/driver.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/common/completions.hpp"
#include "drivers/common/peer_book.hpp"
#include "drivers/libfabric/lf_control.hpp"
#include "drivers/libfabric/lf_cq_data.hpp"
#include "drivers/libfabric/lf_fabric.hpp"
#include "drivers/libfabric/lf_memory.hpp"
#include "drivers/libfabric/lf_ops.hpp"
#include "drivers/libfabric/lf_options.hpp"
#include "drivers/libfabric/lf_tx_queues.hpp"

namespace evb::libfabric {

class LfDriver final : public Driver {
 public:
  LfDriver(const DriverContext& context, LfOptions options);
  ~LfDriver() override;

  std::string name() const override { return name_; }
  Capabilities capabilities() const override { return caps_; }
  std::string local_address() override { return address_; }
  void connect(const std::vector<std::string>& addresses,
               const std::vector<PeerId>& peers) override;
  RegistrationPtr register_memory(void* base, size_t size) override;
  RemoteKeyPtr unpack_key(PeerId peer, std::span<const std::byte> packed) override;

  void post_send(PeerId peer, Tag tag, std::span<const Segment> segments, uint64_t cookie) override;
  void post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration* reg,
                 uint64_t cookie) override;
  void rdma_write(PeerId peer, std::span<const Segment> local, const RemoteKey& key,
                  uint64_t offset, std::optional<uint32_t> immediate, uint64_t cookie) override {
    write(peer, local, key, offset, immediate, cookie, false);
  }
  size_t poll(std::span<Completion> out) override;
  void wait(std::chrono::microseconds timeout) override;
  // Closes the endpoint without goodbyes: closing a tcp;ofi_rxm endpoint
  // flushes its connections, which can copy into receives still posted.
  void abandon() noexcept override { teardown(false); }
  void shutdown() override;
  std::string last_error() const override { return done_.last_error(); }

  // Introspection for tests and docs.
  const fi_info& info() const { return fabric_->info(); }
  bool source_addresses() const { return source_; }  // FI_SOURCE granted
  bool immediate_emulated() const { return emulate_; }
  // Remote CQ data completions carry the write's length (probed at creation).
  bool immediate_reports_length() const { return immediate_length_; }
  // The native immediate carries the length and writer in the remote CQ
  // data's upper 32 bits (lf_cq_data.hpp; probed when the length is missing).
  bool immediate_packed() const { return packed_; }
  // Tests: writes longer than this go with the emulated immediate instead
  // (default: the most the packing holds for this run's ranks).
  void limit_packed_bytes(uint64_t bytes) { packed_max_ = std::min(bytes, packing_.max_bytes()); }
  bool emulation_ordered() const { return emulate_ordered_; }
  size_t queued_ops() const { return tx_queue_.size() + rx_queue_.size(); }
  size_t live_ops() const { return ops_.live(); }
  uint64_t eagain_count() const { return eagains_; }

 private:
  // How to reach one peer and whether it is alive (its state and hello are
  // in book_).
  struct Peer {
    fi_addr_t addr = FI_ADDR_NOTAVAIL;
    bool hello_posted = false;  // our hello to it was submitted (a higher rank: on its hello)
    bool hello_sent = false;    // our hello to it completed
    bool hello_failed = false;  // our hello to it failed (retried)
    std::string hello_error;    // why it last failed
    uint64_t hello_busy = 0;    // times the provider refused it (FI_EAGAIN)
    // Keepalive: when it was last heard from, and the ping it has to answer.
    std::chrono::steady_clock::time_point heard{};
    std::chrono::steady_clock::time_point pinged{};
    bool awaiting_pong = false;
  };

  // --- setup and teardown (lf_driver.cpp) ---
  std::string prefix() const;  // "libfabric/tcp;ofi_rxm: rank 3"
  std::string rank_name(PeerId peer) const;
  void open_endpoint();  // the constructor's part after the fids are open
  void probe_immediate_length();
  bool probe_once();  // one probe write to this rank: did its length arrive?
  void post_internal_receives();
  void teardown(bool graceful) noexcept;
  // connect()'s timeout: what this side saw of each silent peer (lf_connect.cpp).
  std::string hello_diagnosis(const std::vector<PeerId>& missing) const;
  bool valid_rank(PeerId peer) const { return peer >= 0 && peer < context_.size; }
  // In the AV: a peer passed to connect() (in any state) or this rank.
  bool reachable(PeerId peer) const {
    return valid_rank(peer) && peers_[peer].addr != FI_ADDR_NOTAVAIL &&
           (peer == context_.rank || book_.known(peer));
  }

  // --- data path (lf_post.cpp, lf_complete.cpp) ---
  // rdma_write; a `silent` one never reports its completion (the probe).
  void write(PeerId peer, std::span<const Segment> local, const RemoteKey& key, uint64_t offset,
             std::optional<uint32_t> immediate, uint64_t cookie, bool silent);
  Op* make_control(PeerId peer, const CtlMessage& m);
  bool submit_tx(Op* op);  // false: failed at once (already completed)
  void submit_rx(Op* op);
  int issue(Op* op);                      // one fi_* call; FI_EAGAIN is the caller's business
  bool busy(int rc, const Op* op) const;  // rc means "queue full, try again later"
  void landed(Op* op);                    // its completion arrived
  void note_busy(const Op* op);           // the provider answered FI_EAGAIN
  static bool is_rx(const Op* op) {
    return op->kind == OpKind::recv || op->kind == OpKind::ctl_recv ||
           op->kind == OpKind::cqdata_recv;
  }
  void fail_issue(Op* op, int rc);
  void retry_queued();
  void progress();
  size_t read_cq();  // one non-blocking batch; returns how many entries
  void read_error();
  void on_entry(const fi_cq_tagged_entry& e, fi_addr_t src);
  void on_error(const fi_cq_err_entry& e, const std::string& text);
  void on_control(Op* op, size_t len, PeerId from);
  // The rank a received message came from: its tag's rank bits, or with
  // exact tags its source address (kAnyPeer when unknown).
  PeerId sender_of(uint64_t fi_tag, fi_addr_t src) const;
  void repost(Op* op);
  void finish_user(Op* op, OpStatus status, size_t bytes, PeerId peer, Tag tag,
                   const std::string& why);
  void write_part_done(Op* write, OpStatus status, const std::string& why);
  void retire(Op* op);  // done with it: back to the pool once libfabric is too
  bool check_segments(std::span<const Segment> segments, size_t limit, Op* op, std::string* why);
  void cancel(Op* op, OpStatus status, const std::string& why);
  void peer_down(PeerId peer, OpStatus status, const std::string& why);  // lf_peer.cpp
  void fail_peer_ops(PeerId peer, OpStatus status, const std::string& why);
  PeerId rank_of(fi_addr_t addr) const;
  PeerId writer_of(fi_addr_t src) const;  // remote CQ data source, kAnyPeer if unknown
  void remote_write(PeerId peer, size_t bytes, uint32_t immediate);
  // The remote CQ data of this rank's write, and its arrival: plain, or
  // packed (lf_cq_data.hpp).
  uint64_t cq_data(uint32_t immediate, size_t bytes) const {
    return packed_ ? packing_.pack(immediate, static_cast<uint64_t>(context_.rank), bytes)
                   : immediate;
  }
  void cq_data_arrived(fi_addr_t src, size_t len, uint64_t data);
  void heard_from(PeerId peer);  // any sign of life
  void keepalive();              // pings quiet peers, declares silent ones lost

  DriverContext context_;
  LfOptions options_;
  std::string name_;
  std::unique_ptr<FabricSet> fabric_;
  std::unique_ptr<MemoryRegistrar> memory_;
  std::unique_ptr<CtlSlots> slots_;
  OpPool ops_;
  Capabilities caps_;
  std::string address_;
  std::vector<Peer> peers_;  // indexed by rank
  PeerBook book_;
  std::unordered_map<fi_addr_t, PeerId> by_addr_;
  TxQueues tx_queue_;                   // FI_EAGAIN: waiting to be posted, in order per peer
  std::deque<Op*> rx_queue_;            // (receives: in order)
  std::unordered_set<Op*> user_recvs_;  // posted or queued user receives
  std::vector<Op*> internal_recvs_;     // control / remote-CQ-data receives
  Completions done_;
  std::vector<std::byte> inject_buf_;
  std::vector<std::byte> probe_buf_;           // target and source of the length probe
  std::unique_ptr<LfRegistration> probe_reg_;  // (kept until the endpoint is closed)
  uint64_t eagains_ = 0;
  size_t tx_in_flight_ = 0;  // operations libfabric holds, per direction
  size_t rx_in_flight_ = 0;
  size_t internal_errors_ = 0;
  size_t user_tx_live_ = 0;                      // user sends and writes not yet reported
  std::chrono::steady_clock::time_point now_{};  // of the current progress()
  std::chrono::steady_clock::time_point next_keepalive_{};  // next keepalive() check
  uint64_t ping_seq_ = 0;
  bool source_ = false;
  bool emulate_ = false;
  bool immediate_length_ = false;
  bool wide_cq_data_ = false;  // cq_data_size >= 8: packed data can arrive
  bool packed_ = false;        // this rank's writes pack (upper bits)
  CqDataPacking packing_;
  uint64_t packed_max_ = 0;  // longest write packed (packing_.max_bytes())
  // The length probe (probe_immediate_length): its remote_write is swallowed.
  static constexpr uint32_t kProbeImmediate = 0x4C454E31u;  // "LEN1"
  static constexpr size_t kProbeBytes = 24;
  bool probe_pending_ = false;  // its remote_write has not arrived yet
  bool probe_failed_ = false;
  size_t probe_bytes_ = 0;  // the length its remote_write reported
  bool emulate_ordered_ = false;
  bool rx_cq_data_ = false;
  // shm (1.17, 1.18) matches an unexpected tagged message against a receive
  // with a stale ignore mask (the one its receive entry last had), not the
  // receive's: a message that arrives before its any-peer receive is never
  // matched, or matched by a receive for another peer. So over shm no receive
  // has an ignore mask: tags are exact (no rank bits), a receive from one
  // peer matches its address (FI_DIRECTED_RECV) and the sender comes from
  // FI_SOURCE.
  bool exact_tags_ = false;
  bool connecting_ = false;
  bool connected_ = false;
  bool closing_ = false;  // internal receives are no longer reposted
  bool shut_down_ = false;
};

std::unique_ptr<Driver> make_lf_driver(const DriverContext& context, const LfOptions& options);

}  // namespace evb::libfabric
