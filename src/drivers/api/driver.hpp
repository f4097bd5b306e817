#pragma once
// The driver interface (v2): mechanism only — register, post, write, poll.
//
// Shaped after verbs / libfabric / UCX so that those and MPI, PSM2 and TCP
// all fit without special cases in protocols:
//  - memory is registered once (a non-copyable Registration, released by its
//    destructor) and every segment of an operation names its registration;
//  - two-sided tagged messages (post_send / post_recv, any-peer receives);
//  - one-sided writes into a peer's registered memory, addressed by a
//    RemoteKey unpacked once per peer from the owner's packed key bytes, with
//    an optional 32-bit immediate that the target sees as a completion;
//  - Capabilities that protocols consult; an operation a driver lacks is
//    refused at set-up (require_capability), never silently dropped.
//
// Every posted operation completes exactly once through poll(), with success
// or an error naming the peer. Setup calls (local_address, connect,
// register_memory, unpack_key) may block and throw evb::Error; data-path calls
// (post_*, rdma_write, poll) never block and never throw for peer failures:
// those surface as completions.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/capabilities.hpp"

namespace evb {

using PeerId = int;              // a rank
constexpr PeerId kAnyPeer = -1;  // post_recv: match a message from any peer
using Tag = uint32_t;            // message tag; receives match (peer, tag) exactly

// Memory registered with a driver: the RAII handle register_memory() returns.
// Drivers that need registration derive from it and release the library's
// handle in their destructor; the base class alone is the "nothing to
// register" case (tcp, mpi). The handle must outlive every operation that
// uses the memory and must not outlive its driver.
class Registration {
 public:
  Registration(void* base, size_t size) : base_(static_cast<std::byte*>(base)), size_(size) {}
  virtual ~Registration() = default;
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;

  std::byte* base() const { return base_; }
  size_t size() const { return size_; }
  bool covers(const void* p, size_t n) const {
    const auto* b = static_cast<const std::byte*>(p);
    return b >= base_ && n <= size_ && static_cast<size_t>(b - base_) <= size_ - n;
  }
  // What a peer needs to rdma_write into this memory (opaque, driver-defined,
  // capabilities().packed_key_size bytes at most); empty when the driver has
  // no rdma_write.
  const std::vector<std::byte>& packed_key() const { return packed_key_; }
  // Driver-private local handle (fi_mr_desc, an lkey, a ucp_mem_h): lets a
  // driver use the registration of a segment without searching for it.
  void* descriptor() const { return descriptor_; }

 protected:
  std::byte* base_;
  size_t size_;
  std::vector<std::byte> packed_key_;
  void* descriptor_ = nullptr;
};
using RegistrationPtr = std::unique_ptr<Registration>;

// One piece of a gathered send or write. The bytes must stay valid until the
// operation's completion; the Segment array itself only for the duration of
// the call. `reg` is the registration covering the bytes; drivers with
// capabilities().registration_required refuse segments without one.
struct Segment {
  const void* data = nullptr;
  size_t size = 0;
  const Registration* reg = nullptr;
};

// A peer's registered memory, unpacked once from the bytes of its
// Registration::packed_key(); what rdma_write targets. Drivers derive from
// it (an rkey, a ucp_rkey_h); `size` is the remote region's length, so a
// write past its end is refused before it is posted.
class RemoteKey {
 public:
  RemoteKey(PeerId peer, size_t size) : peer_(peer), size_(size) {}
  virtual ~RemoteKey() = default;
  RemoteKey(const RemoteKey&) = delete;
  RemoteKey& operator=(const RemoteKey&) = delete;
  PeerId peer() const { return peer_; }
  size_t size() const { return size_; }

 private:
  PeerId peer_;
  size_t size_;
};
using RemoteKeyPtr = std::unique_ptr<RemoteKey>;

enum class OpType : uint8_t {
  send,
  recv,
  rdma_write,    // a write this rank posted finished with its segments (they may be reused);
                 // with an immediate the target learns of the landing from its remote_write
  remote_write,  // a peer's write with immediate landed in this rank's memory (cookie 0)
  peer_event,    // a peer closed or was lost (cookie 0)
};
enum class OpStatus : uint8_t {
  ok,
  peer_lost,    // the peer disappeared (connection reset, process died)
  peer_closed,  // the peer shut down gracefully (only for recvs still posted to it)
  truncated,    // message longer than the posted receive buffer
  error,        // any other failure; see Driver::last_error()
};

// One finished operation. For recvs, `bytes` is the received message size; on
// `truncated` it is at least the posted size, so protocols post receives as
// large as the largest message they expect. An any-peer receive failed
// because every peer is gone carries peer == kAnyPeer. For remote_write,
// `bytes` is the length written and `immediate` the writer's immediate;
// `peer` is the writer where the library reports it (else kAnyPeer), so
// protocols put what they need to know into the immediate.
struct Completion {
  uint64_t cookie = 0;
  OpType type = OpType::send;
  OpStatus status = OpStatus::ok;
  PeerId peer = kAnyPeer;
  Tag tag = 0;
  size_t bytes = 0;
  uint32_t immediate = 0;
};

// Capabilities (what a driver can do) are in core/capabilities.hpp.

class Driver {
 public:
  virtual ~Driver() = default;
  Driver() = default;
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  // The name it is registered under ("tcp", "libfabric"), plus the variant
  // where one library has several ("libfabric/tcp;ofi_rxm").
  virtual std::string name() const = 0;
  // What ran, once connected: name() plus what the library chose at run time
  // where name() cannot say it (the mpi driver: "mpi/vader", "mpi/ucx").
  virtual std::string variant() const { return name(); }
  // What the driver applied on its own that changes how it runs and is not
  // in the configuration's words (a default resolved for the transport it
  // found: ucx "tcp_poll_pause 5000 ns"); empty when nothing. The results
  // carry it (results.driver_settings).
  virtual std::string applied_settings() const { return {}; }
  virtual Capabilities capabilities() const = 0;

  // --- setup (may block, throws evb::Error) ---
  // Opaque bytes a peer needs to reach this rank; exchanged by the bootstrap.
  virtual std::string local_address() = 0;
  // Connects to `peers` (symmetric: if a lists b, b lists a). `addresses` is
  // indexed by rank.
  virtual void connect(const std::vector<std::string>& addresses,
                       const std::vector<PeerId>& peers) = 0;
  // Registers [base, base+size) for sends, receives and (when the driver can)
  // remote writes by peers. The default registers nothing.
  virtual RegistrationPtr register_memory(void* base, size_t size) {
    return std::make_unique<Registration>(base, size);
  }
  // Allocates `size` (> 0) bytes and registers them in one step: the memory
  // protocols expose to peers' rdma_write (BU windows). It lives as long as
  // the returned Registration (whose base() it is). The default maps
  // page-aligned memory and calls register_memory(); drivers whose library
  // reaches its own allocations more directly override it (UCX's
  // shared-memory segments, which peers write with a plain copy where
  // caller memory would need the target's help). `pages` is the caller's
  // page-size wish (config key `page_size`); drivers whose library allocates
  // may ignore it and say so in their page.
  virtual RegistrationPtr allocate_memory(size_t size, PageSize pages);
  // Only when capabilities().rdma_write: turns the packed key `peer` sent
  // into a handle for rdma_write. Throws evb::Error on malformed bytes.
  virtual RemoteKeyPtr unpack_key(PeerId peer, std::span<const std::byte> packed);

  // --- data path (non-blocking) ---
  virtual void post_send(PeerId peer, Tag tag, std::span<const Segment> segments,
                         uint64_t cookie) = 0;
  virtual void post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration* reg,
                         uint64_t cookie) = 0;
  // Only when capabilities().rdma_write: writes `local` (gathered) to
  // `offset` bytes into the peer memory `key` names. With an immediate, the
  // peer gets a remote_write completion once all the bytes have landed; this
  // rank gets an rdma_write completion either way.
  virtual void rdma_write(PeerId peer, std::span<const Segment> local, const RemoteKey& key,
                          uint64_t offset, std::optional<uint32_t> immediate, uint64_t cookie);
  // Only when capabilities().alltoall: a blocking all-to-all over every rank
  // of the run, `block` bytes to and from each rank (the MPI_Alltoall
  // baseline). Not on the event-building data path.
  virtual void alltoall(const void* send, void* recv, size_t block);
  // Appends finished operations to `out` (at most out.size()); returns how many.
  virtual size_t poll(std::span<Completion> out) = 0;
  // Sleeps until poll() may return something or `timeout` passes. Drivers that
  // cannot block (capabilities().can_block == false) return at once.
  virtual void wait(std::chrono::microseconds /*timeout*/) {}
  // Operations already reported complete whose rest the driver still owes a
  // peer and moves only inside poll()/wait(): the ucx driver's writes with
  // an immediate, complete once their puts left, whose flush and notify are
  // still under way. A rank keeps polling until there are none, even once
  // its protocol is done: a peer may wait for those notifies while this
  // rank sits in a bootstrap barrier that progresses no driver. 0 by default.
  virtual size_t owed_to_peers() const { return 0; }

  // --- teardown ---
  // Tells peers this rank is done (graceful), flushes pending sends, closes.
  // Called once all of the rank's operations have completed.
  virtual void shutdown() = 0;
  // After a failure, before the caller frees the buffers it posted: the
  // library lets go of them at once (endpoints closed, no goodbyes, no
  // waiting), so nothing writes into them after they are freed. What was
  // registered may still be released afterwards. The default does nothing:
  // for drivers whose destruction reaches no caller buffer.
  virtual void abandon() noexcept {}

  // Human-readable description of the last `error` completion.
  virtual std::string last_error() const { return {}; }
};

// Refuses, at set-up, to use a driver for something it cannot do: throws
// ConfigError "driver 'NAME' has no CAPABILITY, needed for WHAT" when !has.
void require_capability(const Driver& driver, bool has, const std::string& capability,
                        const std::string& needed_for);

}  // namespace evb
