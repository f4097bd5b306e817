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
// segment; its immediate is emulated by a notify control message, sent once
// an endpoint flush says the bytes have landed, or, to a peer whose
// endpoint has one lane (everything over one tcp connection), right behind
// the puts after a ucp_worker_fence (no flush: the lane keeps the order).
// A write with an immediate is reported complete once its puts completed
// locally (the source reusable); its flush and notify go on in the
// background, and should either fail, the peer is taken as lost (the target
// can no longer be told of a write the writer was told is done).
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

#include "drivers/api/driver.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/common/completions.hpp"
#include "drivers/common/hello_wait.hpp"
#include "drivers/common/peer_book.hpp"
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
  // Under `tls: auto` the transports UCX picked, as far as the library says:
  // "ucx/auto(tcp)", "ucx/auto(posix,cma)" (lanes of the endpoint to the
  // next rank; kept from before shutdown); else the name.
  std::string variant() const override;
  // Writes reported complete whose flush or notify is still under way.
  size_t owed_to_peers() const override { return background_writes_; }
  // "tcp_poll_pause 5000 ns" where poll_pause() is in effect, else empty.
  std::string applied_settings() const override;
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
  std::string last_error() const override { return done_.last_error(); }

  // Introspection for tests and docs.
  size_t live_ops() const { return ops_.live(); }
  // Writes reported complete whose flush or notify is still under way, and
  // those of them that then failed (each took its peer down as lost).
  size_t background_writes() const { return background_writes_; }
  size_t late_write_failures() const { return late_write_failures_; }
  // Endpoint flushes posted for writes (none for writes with an immediate
  // to a one-lane peer), and whether `peer`'s endpoint has one lane.
  size_t write_flushes() const { return write_flushes_; }
  bool one_lane(PeerId peer) const { return valid_rank(peer) && peers_[peer].one_lane; }
  // Tests: every write flushes, as to a peer of several lanes (the path whose
  // late failures this host can only provoke over tcp).
  void flush_every_write() {
    for (Peer& p : peers_) p.one_lane = false;
  }
  // The transports of the endpoint to `peer` ("tcp/lo", "sysv/memory"), from
  // ucp_ep_print_info; empty when not connected.
  std::string transports_to(PeerId peer) const;
  // The lanes of the endpoint to `peer` as ucp_ep_print_info lists them
  // (0 when it has none or cannot say).
  size_t lanes_to(PeerId peer) const;
  // The transport names ("tcp", "posix", "cma") of the endpoint to the next
  // connected rank, without devices; empty when none is connected.
  std::string picked_transports() const;
  const UcxWorker& worker() const { return *worker_; }
  // driver_options.tcp_poll_pause as this driver applies it: the key's value
  // where tcp alone carries the data (tcp_alone: no shared-memory or RDMA
  // transport between the ranks) with error_handling none, else 0.
  std::chrono::nanoseconds poll_pause() const { return poll_pause_; }
  // ucp_worker_progress calls that waited poll_pause() first (paced()).
  size_t paced_polls() const { return paced_polls_; }

  // UCX callbacks (static trampolines in ucx_complete.cpp forward here).
  void on_send_done(Op* op, ucs_status_t status);
  void on_recv_done(Op* op, ucs_status_t status, const ucp_tag_recv_info_t* info);
  void on_flush_done(Op* op, ucs_status_t status);
  void on_put_done(Op* op, ucs_status_t status);
  void on_peer_error(PeerId peer, ucs_status_t status);
  // Cancels what UCX holds of `ops` (each cancelled one completes with its
  // cancel_status through its callback).
  void cancel(const std::vector<Op*>& ops, OpStatus status);

 private:
  // The endpoint to one peer (its state and hello are in book_).
  struct Peer {
    PeerHandle handle;  // the endpoint error handler's argument
    ucp_ep_h ep = nullptr;
    // Its endpoint has one lane (lanes_to() == 1 once connected): every
    // operation to it takes one transport connection, in order.
    bool one_lane = false;
  };

  // --- setup and teardown (ucx_driver.cpp) ---
  std::string prefix() const;  // "ucx: rank 3"
  std::string rank_name(PeerId peer) const;
  bool valid_rank(PeerId peer) const { return peer >= 0 && peer < context_.size; }
  void create_endpoint(PeerId peer, const std::string& address);
  HelloWords hello_words() const;  // how a failed hello wait is told
  void close_endpoints(std::chrono::steady_clock::time_point deadline) noexcept;
  // One line on stderr: shutdown() reached its deadline, waiting for whom.
  void report_slow_shutdown() const;
  // Refuses a registration whose key is larger than capabilities() said.
  RegistrationPtr checked_key(RegistrationPtr reg) const;

  // --- data path (ucx_post.cpp) ---
  const char* refuse_peer(PeerId peer, OpStatus* status) const;  // why not, or null
  void start_recv(Op* op, void* buffer, size_t size, const Registration* reg);
  void post_control(PeerId peer, const CtlMessage& m, Op* op);  // sends op->ctl
  void post_control_recv();
  void send_notify(Op* op);
  bool unexpected_waiting(PeerId peer, Tag tag) const;  // ucp_tag_probe_nb

  // --- completions (ucx_complete.cpp) ---
  void progress();
  // A rank that only waits for a stream of large messages: poll_pause()
  // applies before each ucp_worker_progress (progress()).
  bool paced() const;
  // Sleeps up to `timeout` on the worker's event fd once nothing is pending
  // (yields when UCX has work it raises no event for), whatever the
  // caller's completions: wait()'s sleep, and shutdown()'s.
  void nap(std::chrono::microseconds timeout);
  void complete(Op* op, OpStatus status, size_t bytes, PeerId peer, Tag tag,
                const std::string& why);
  // A write's chain (puts, flush, notify) moved: reports it, sends its
  // notify or retires it, whichever is due (ucx_complete.cpp).
  void write_progress(Op* op);
  void write_failed(Op* op, ucs_status_t status, const char* step);
  void on_control(Op* op, size_t len);
  void peer_down(PeerId peer, OpStatus status, const std::string& why);
  OpStatus status_for(PeerId peer, ucs_status_t status) const;

  DriverContext context_;
  UcxOptions options_;
  std::string name_;
  std::string picked_;  // picked_transports() as shutdown() found it
  std::unique_ptr<UcxWorker> worker_;
  Capabilities caps_;
  OpPool ops_;
  std::vector<Peer> peers_;  // indexed by rank; never reallocated after the constructor
  PeerBook book_;
  OpList posted_;  // caller receives UCX holds
  std::vector<Op*> control_recvs_;
  Completions done_;
  size_t control_sends_ = 0;  // hellos and byes not yet completed
  size_t background_writes_ = 0;
  size_t late_write_failures_ = 0;
  size_t write_flushes_ = 0;
  std::chrono::nanoseconds poll_pause_{0};  // poll_pause()
  size_t paced_polls_ = 0;
  bool connected_ = false;
  bool closing_ = false;  // control receives are no longer reposted
  bool shut_down_ = false;
};

std::unique_ptr<Driver> make_ucx_driver(const DriverContext& context, const UcxOptions& options);

}  // namespace evb::ucx
