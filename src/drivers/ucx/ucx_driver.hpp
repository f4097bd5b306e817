#pragma once
// The ucx driver: evb::Driver over one UCP worker per rank.
//
// Setup (ucx_driver.cpp) creates the context and worker (UcxWorker), keeps a
// few control receives posted, and connect() creates one endpoint per peer
// from the worker addresses the bootstrap exchanged, in peer-failure mode
// (UCP_ERR_HANDLING_MODE_PEER), then exchanges a hello with each peer (which
// also checks they belong to the same run). Tagged sends and receives
// (ucx_post.cpp) carry the sender's rank in the upper tag bits
// (drivers/common/rank_tags.hpp), so any-peer receives learn the sender;
// gathered sends use an IOV datatype. rdma_write is one ucp_put_nbx per
// segment followed by an endpoint flush; its immediate is emulated by a
// notify control message sent once the flush says the bytes have landed.
// Completions (ucx_complete.cpp) are queued by UCX callbacks, which run only
// inside ucp_worker_progress() — that is, inside poll() and wait() on the
// caller's thread. A peer UCX declares failed (its endpoint error handler)
// becomes a peer_event plus failed completions for everything waiting on it.
#include <ucp/api/ucp.h>

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/ring_queue.hpp"
#include "drivers/api/driver.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/ucx/ucx_ops.hpp"
#include "drivers/ucx/ucx_options.hpp"
#include "drivers/ucx/ucx_worker.hpp"

namespace evb::ucx {

class UcxDriver final : public Driver {
 public:
  // Gathered sends are one IOV datatype, writes one put per segment: the
  // limit is evbench's, not the library's (DriverFactory::max_segments).
  static constexpr size_t kMaxSegments = 1024;

  UcxDriver(const DriverContext& context, UcxOptions options);
  ~UcxDriver() override;

  std::string name() const override { return name_; }
  Capabilities capabilities() const override { return caps_; }
  std::string local_address() override { return worker_->address(); }
  void connect(const std::vector<std::string>& addresses,
               const std::vector<PeerId>& peers) override;
  RegistrationPtr register_memory(void* base, size_t size) override;
  RegistrationPtr allocate_memory(size_t size, PageSize pages) override;
  RemoteKeyPtr unpack_key(PeerId peer, std::span<const std::byte> packed) override;

  void post_send(PeerId peer, Tag tag, std::span<const Segment> segments, uint64_t cookie) override;
  void post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration* reg,
                 uint64_t cookie) override;
  void rdma_write(PeerId peer, std::span<const Segment> local, const RemoteKey& key,
                  uint64_t offset, std::optional<uint32_t> immediate, uint64_t cookie) override;
  size_t poll(std::span<Completion> out) override;
  void wait(std::chrono::microseconds timeout) override;
  void shutdown() override;
  std::string last_error() const override { return last_error_; }

  // Introspection for tests and docs.
  size_t live_ops() const { return ops_.live(); }
  // The transports of the endpoint to `peer` ("tcp/lo", "sysv/memory"), from
  // ucp_ep_print_info; empty when not connected.
  std::string transports_to(PeerId peer) const;
  const UcxWorker& worker() const { return *worker_; }

  // UCX callbacks (static trampolines in ucx_complete.cpp forward here).
  void on_send_done(Op* op, ucs_status_t status);
  void on_recv_done(Op* op, ucs_status_t status, const ucp_tag_recv_info_t* info);
  void on_flush_done(Op* op, ucs_status_t status);
  void on_peer_error(PeerId peer, ucs_status_t status);
  // Cancels what UCX holds of `ops` (each cancelled one completes with its
  // cancel_status through its callback).
  void cancel(const std::vector<Op*>& ops, OpStatus status);

 private:
  enum class PeerState : uint8_t { none, open, closed, lost };
  struct Peer {
    PeerHandle handle;  // the endpoint error handler's argument
    PeerState state = PeerState::none;
    ucp_ep_h ep = nullptr;
    bool hello = false;       // its hello arrived
    uint64_t hello_run = 0;   // the run id it announced
    uint32_t hello_size = 0;  // the number of ranks it announced
  };

  // --- setup and teardown (ucx_driver.cpp) ---
  std::string prefix() const;  // "ucx: rank 3"
  std::string rank_name(PeerId peer) const;
  bool valid_rank(PeerId peer) const { return peer >= 0 && peer < context_.size; }
  void create_endpoint(PeerId peer, const std::string& address);
  void await_hellos(const std::vector<PeerId>& peers);
  void close_endpoints(std::chrono::steady_clock::time_point deadline) noexcept;
  // Refuses a registration whose key is larger than capabilities() said.
  RegistrationPtr checked_key(RegistrationPtr reg) const;
  // Progresses until `done()` or `deadline`; returns done().
  template <class Done>
  bool progress_until(Done done, std::chrono::steady_clock::time_point deadline);

  // --- data path (ucx_post.cpp) ---
  const char* refuse_peer(PeerId peer, OpStatus* status) const;  // why not, or null
  void start_recv(Op* op, void* buffer, size_t size, const Registration* reg);
  void post_control(PeerId peer, const CtlMessage& m, Op* op);  // sends op->ctl
  void post_control_recv();
  void send_notify(Op* op);
  bool unexpected_waiting(PeerId peer, Tag tag) const;  // ucp_tag_probe_nb

  // --- completions (ucx_complete.cpp) ---
  void progress();
  void complete(Op* op, OpStatus status, size_t bytes, PeerId peer, Tag tag,
                const std::string& why);
  void fail_now(OpType type, PeerId peer, Tag tag, uint64_t cookie, OpStatus status,
                const std::string& why);
  void finish_write(Op* op, OpStatus status, const std::string& why);
  void on_control(Op* op, size_t len);
  void peer_down(PeerId peer, OpStatus status, const std::string& why);
  OpStatus status_for(PeerId peer, ucs_status_t status) const;
  bool all_peers_down() const { return had_peers_ && open_peers_ == 0; }
  OpStatus any_peer_status() const {
    return lost_peers_ > 0 ? OpStatus::peer_lost : OpStatus::peer_closed;
  }
  OpStatus down_status(PeerId peer) const;

  DriverContext context_;
  UcxOptions options_;
  std::string name_;
  std::unique_ptr<UcxWorker> worker_;
  Capabilities caps_;
  OpPool ops_;
  std::vector<Peer> peers_;  // indexed by rank; never reallocated after the constructor
  OpList posted_;            // caller receives UCX holds
  std::vector<Op*> control_recvs_;
  RingQueue<Completion> ready_;
  std::string last_error_;
  uint64_t run_id_ = 0;
  size_t open_peers_ = 0;
  size_t lost_peers_ = 0;
  size_t control_sends_ = 0;  // hellos and byes not yet completed
  bool had_peers_ = false;
  bool connected_ = false;
  bool closing_ = false;  // control receives are no longer reposted
  bool shut_down_ = false;
};

std::unique_ptr<Driver> make_ucx_driver(const DriverContext& context, const UcxOptions& options);

}  // namespace evb::ucx
