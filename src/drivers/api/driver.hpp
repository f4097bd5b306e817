#pragma once
// The driver interface: mechanism only (register, post, poll).
//
// A Driver moves tagged messages between ranks. Every posted operation
// completes exactly once through poll(), with success or an error naming the
// peer. Policy (credits, scheduling, retries) lives in src/protocols. Setup
// calls (local_address, connect) may block and throw evb::Error; data-path
// calls (post_*, poll) never block and never throw for peer failures: those
// surface as completions.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace evb {

using PeerId = int;              // a rank
constexpr PeerId kAnyPeer = -1;  // post_recv: match a message from any peer
using Tag = uint32_t;            // message tag; receives match (peer, tag) exactly

// One piece of a gathered send. The bytes must stay valid until the send's
// completion; the Segment array itself only for the duration of post_send().
struct Segment {
  const void* data;
  size_t size;
};

// Opaque handle of a registered memory region (RDMA-capable drivers).
struct MemoryRegion {
  void* base = nullptr;
  size_t size = 0;
  uint64_t remote_key = 0;     // what a peer needs to rdma_write into it
  uint64_t driver_handle = 0;  // driver-private
};

enum class OpType : uint8_t { send, recv, rdma_write, peer_event };
enum class OpStatus : uint8_t {
  ok,
  peer_lost,    // the peer disappeared (connection reset, process died)
  peer_closed,  // the peer shut down gracefully (only for recvs still posted to it)
  truncated,    // message longer than the posted receive buffer
  error,        // any other failure; see Driver::last_error()
};

// One finished operation. For recvs, `bytes` is the received message size; on
// `truncated` it is at least the posted size (tcp reports the sender's full
// length, mpi what the library reports), so protocols post receives as large
// as the largest message they expect. An any-peer receive failed because every
// peer is gone carries peer == kAnyPeer. `ordered_per_peer` means receives are
// filled in send order; completions of different operations may be reported
// in any order.
struct Completion {
  uint64_t cookie = 0;
  OpType type = OpType::send;
  OpStatus status = OpStatus::ok;
  PeerId peer = kAnyPeer;
  Tag tag = 0;
  size_t bytes = 0;
};

// What a driver can do; protocols adapt to these, never to driver names.
struct Capabilities {
  bool rdma_write = false;       // rdma_write() is implemented
  bool ordered_per_peer = true;  // messages between two ranks arrive in send order
  bool zero_copy_send = true;    // send segments are not copied
  bool can_block = false;        // wait() really sleeps until work arrives
  size_t max_message = 1ull << 30;
  size_t max_segments = 16;  // segments per send
  bool alltoall = false;     // alltoall() is implemented (a library collective)
};

class Driver {
 public:
  virtual ~Driver() = default;
  Driver() = default;
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  virtual Capabilities capabilities() const = 0;

  // --- setup (may block, throws evb::Error) ---
  // Opaque bytes a peer needs to reach this rank; exchanged by the bootstrap.
  virtual std::string local_address() = 0;
  // Connects to `peers` (symmetric: if a lists b, b lists a). `addresses` is
  // indexed by rank.
  virtual void connect(const std::vector<std::string>& addresses,
                       const std::vector<PeerId>& peers) = 0;
  virtual MemoryRegion register_memory(void* base, size_t size) {
    return MemoryRegion{base, size, 0, 0};
  }
  virtual void deregister_memory(const MemoryRegion&) {}

  // --- data path (non-blocking) ---
  virtual void post_send(PeerId peer, Tag tag, std::span<const Segment> segments,
                         uint64_t cookie) = 0;
  virtual void post_recv(PeerId peer, Tag tag, void* buffer, size_t size, uint64_t cookie) = 0;
  // Only when capabilities().rdma_write.
  virtual void rdma_write(PeerId /*peer*/, std::span<const Segment> /*local*/,
                          uint64_t /*remote_key*/, uint64_t /*remote_addr*/, uint64_t /*cookie*/) {}
  // Only when capabilities().alltoall: a blocking all-to-all over every rank
  // of the run, `block` bytes to and from each rank (the MPI_Alltoall
  // baseline). Not on the event-building data path.
  virtual void alltoall(const void* /*send*/, void* /*recv*/, size_t /*block*/) {}
  // Appends finished operations to `out` (at most out.size()); returns how many.
  virtual size_t poll(std::span<Completion> out) = 0;
  // Sleeps until poll() may return something or `timeout` passes. Drivers that
  // cannot block (capabilities().can_block == false) return at once.
  virtual void wait(std::chrono::microseconds /*timeout*/) {}

  // --- teardown ---
  // Tells peers this rank is done (graceful), flushes pending sends, closes.
  // Called once all of the rank's operations have completed.
  virtual void shutdown() = 0;

  // Human-readable description of the last `error` completion.
  virtual std::string last_error() const { return {}; }
};

}  // namespace evb
