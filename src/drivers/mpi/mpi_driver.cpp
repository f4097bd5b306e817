#include "drivers/mpi/mpi_driver.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <ctime>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "drivers/mpi/mpi_env.hpp"
#include "drivers/mpi/mpi_transport.hpp"

namespace evb::mpi {
namespace {

std::string op_name(OpType type) {
  return type == OpType::send ? "send" : "recv";
}

std::string peer_name(PeerId peer) {
  return peer == kAnyPeer ? std::string("any rank") : "rank " + std::to_string(peer);
}

}  // namespace

MpiDriver::MpiDriver(MPI_Comm parent, int rank, const MpiOptions& options)
    : options_(options), pool_(options.max_requests, options.poll_method) {
  check(MPI_Comm_split(parent, 0, rank, &comm_), "mpi driver: MPI_Comm_split");
  check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "mpi driver: MPI_Comm_set_errhandler");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  if (rank_ != rank) {
    int world_rank = -1;
    MPI_Comm_rank(parent, &world_rank);
    throw ConfigError("driver mpi: evbench rank " + std::to_string(rank) +
                      " does not match MPI rank " + std::to_string(rank_) + " (world rank " +
                      std::to_string(world_rank) + "): two processes claim the same evbench rank");
  }
  // MPI_TAG_UB is at least 32767; use the largest 2^k-1 below it as a mask.
  void* attr = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &attr, &flag);
  int ub = flag ? *static_cast<int*>(attr) : 32767;
  tag_mask_ = 1;
  while (tag_mask_ <= static_cast<Tag>(ub) / 2) tag_mask_ = (tag_mask_ << 1) | 1;
  finished_.reserve(256);
  // What Open MPI chose (mpi_transport.hpp); whether every rank is on this
  // host: the shared-memory split holds them all. Not under another MPI.
  const MpiTransport transport = detect_transport();
  if (!transport.pml.empty()) {
    MPI_Comm node = MPI_COMM_NULL;
    int local = 0;
    if (MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
      MPI_Comm_size(node, &local);
      MPI_Comm_free(&node);
    }
    variant_ = transport_variant(transport, local == size_);
    shared_memory_ = through_shared_memory(transport, local == size_);
  }
}

MpiDriver::~MpiDriver() {
  try {
    if (!shut_down_) shutdown();
  } catch (...) {
  }
  pool_.abandon_all();
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

Capabilities MpiDriver::capabilities() const {
  Capabilities caps;
  caps.rdma_write = false;
  caps.ordered_per_peer = true;  // MPI non-overtaking rule: same comm, same tag
  caps.zero_copy_send = true;    // hindexed datatype over the caller's segments
  caps.can_block = options_.wait == WaitMode::waitany;
  caps.max_message = 1ull << 30;  // MPI counts are int; stay well below INT_MAX
  caps.max_segments = kMaxSegments;
  caps.tag_bits = std::popcount(tag_mask_);
  caps.alltoall = true;  // MPI_Alltoall: the synchronized baseline
  caps.survives_peer_loss = false;
  caps.descriptors_per_peer = 2;  // Open MPI's tcp BTL: its sockets to the peer
  caps.shared_memory_path = shared_memory_;
  return caps;
}

void MpiDriver::alltoall(const void* send, void* recv, size_t block) {
  if (block > static_cast<size_t>(INT_MAX))
    throw Error("driver mpi: alltoall block of " + std::to_string(block) +
                " bytes exceeds INT_MAX");
  const int rc = MPI_Alltoall(send, static_cast<int>(block), MPI_BYTE, recv,
                              static_cast<int>(block), MPI_BYTE, comm_);
  if (rc != MPI_SUCCESS)
    throw Error("driver mpi: MPI_Alltoall failed (code " + std::to_string(rc) + ")");
}

std::string MpiDriver::local_address() {
  return std::to_string(rank_);
}

void MpiDriver::connect(const std::vector<std::string>& addresses,
                        const std::vector<PeerId>& peers) {
  // MPI addresses are ranks; nothing to exchange. Only sanity-check.
  if (!addresses.empty() && static_cast<int>(addresses.size()) != size_) {
    throw Error("driver mpi: got " + std::to_string(addresses.size()) +
                " addresses for a communicator of " + std::to_string(size_) + " ranks");
  }
  for (PeerId p : peers) {
    if (p < 0 || p >= size_) {
      throw PeerError(p, "driver mpi: peer rank " + std::to_string(p) + " outside 0.." +
                             std::to_string(size_ - 1));
    }
  }
}

void MpiDriver::fail_now(OpType type, PeerId peer, Tag tag, uint64_t cookie,
                         const std::string& why) {
  done_.fail(type, peer, tag, cookie, OpStatus::error,
             "mpi " + op_name(type) + " " + (type == OpType::send ? "to " : "from ") +
                 peer_name(peer) + " tag " + std::to_string(tag) + ": " + why);
}

void MpiDriver::post_send(PeerId peer, Tag tag, std::span<const Segment> segments,
                          uint64_t cookie) {
  if (peer < 0 || peer >= size_) return fail_now(OpType::send, peer, tag, cookie, "no such rank");
  if (segments.size() > kMaxSegments) {
    return fail_now(
        OpType::send, peer, tag, cookie,
        std::to_string(segments.size()) + " segments (max " + std::to_string(kMaxSegments) + ")");
  }
  // Drop empty segments; a single remaining one is sent from its buffer.
  std::array<int, kMaxSegments> lengths;
  std::array<MPI_Aint, kMaxSegments> displs;
  const void* single = nullptr;
  int n = 0;
  size_t total = 0;
  for (const Segment& s : segments) {
    if (s.size == 0) continue;
    total += s.size;
    if (total > (1ull << 30)) {
      return fail_now(OpType::send, peer, tag, cookie, "message larger than max_message (1 GiB)");
    }
    lengths[n] = static_cast<int>(s.size);
    MPI_Get_address(s.data, &displs[n]);
    single = s.data;
    ++n;
  }
  MPI_Request* req = pool_.reserve();
  if (req == nullptr) {
    return fail_now(OpType::send, peer, tag, cookie,
                    "max_requests (" + std::to_string(pool_.max_requests()) +
                        ") operations already in flight; raise driver_options.max_requests");
  }
  auto isend = options_.sync_send ? MPI_Issend : MPI_Isend;
  int rc;
  if (n <= 1) {
    rc = isend(n == 1 ? single : nullptr, static_cast<int>(total), MPI_BYTE, peer, mpi_tag(tag),
               comm_, req);
  } else {
    // Zero copy gather: one datatype over the absolute segment addresses,
    // freed right away (MPI keeps it alive until the send completes).
    MPI_Datatype type = MPI_DATATYPE_NULL;
    rc = MPI_Type_create_hindexed(n, lengths.data(), displs.data(), MPI_BYTE, &type);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&type);
    if (rc == MPI_SUCCESS) rc = isend(MPI_BOTTOM, 1, type, peer, mpi_tag(tag), comm_, req);
    if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
  }
  if (rc != MPI_SUCCESS) {
    pool_.rollback();
    return fail_now(OpType::send, peer, tag, cookie, error_string(rc));
  }
  pool_.commit(PendingOp{cookie, seq_++, OpType::send, peer, tag, total});
}

void MpiDriver::post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration*,
                          uint64_t cookie) {
  if (peer != kAnyPeer && (peer < 0 || peer >= size_)) {
    return fail_now(OpType::recv, peer, tag, cookie, "no such rank");
  }
  if (options_.any_source_depth > 0) {
    if (peer != kAnyPeer) {
      flush_any_source(tag);
    } else {
      AnySource& a = any_source_[tag];
      if (a.posted >= options_.any_source_depth) {
        a.held.push_back(HeldRecv{buffer, size, cookie});
        return;
      }
      if (post_irecv(peer, tag, buffer, size, cookie)) ++a.posted;
      return;
    }
  }
  post_irecv(peer, tag, buffer, size, cookie);
}

bool MpiDriver::post_irecv(PeerId peer, Tag tag, void* buffer, size_t size, uint64_t cookie) {
  // Larger buffers are fine: no message exceeds max_message anyway.
  int count = static_cast<int>(std::min<size_t>(size, INT_MAX));
  MPI_Request* req = pool_.reserve();
  if (req == nullptr) {
    fail_now(OpType::recv, peer, tag, cookie,
             "max_requests (" + std::to_string(pool_.max_requests()) +
                 ") operations already in flight; raise driver_options.max_requests");
    return false;
  }
  int rc = MPI_Irecv(buffer, count, MPI_BYTE, peer == kAnyPeer ? MPI_ANY_SOURCE : peer,
                     mpi_tag(tag), comm_, req);
  if (rc != MPI_SUCCESS) {
    pool_.rollback();
    fail_now(OpType::recv, peer, tag, cookie, error_string(rc));
    return false;
  }
  pool_.commit(PendingOp{cookie, seq_++, OpType::recv, peer, tag, size});
  return true;
}

void MpiDriver::release_any_source(Tag tag) {
  auto it = any_source_.find(tag);
  if (it == any_source_.end()) return;
  AnySource& a = it->second;
  if (a.posted > 0) --a.posted;
  while (!shut_down_ && a.posted < options_.any_source_depth && !a.held.empty()) {
    const HeldRecv h = a.held.front();
    a.held.pop_front();
    if (post_irecv(kAnyPeer, tag, h.buffer, h.size, h.cookie)) ++a.posted;
  }
}

void MpiDriver::flush_any_source(Tag tag) {
  auto it = any_source_.find(tag);
  if (it == any_source_.end()) return;
  AnySource& a = it->second;
  while (!a.held.empty()) {
    const HeldRecv h = a.held.front();
    a.held.pop_front();
    if (post_irecv(kAnyPeer, tag, h.buffer, h.size, h.cookie)) ++a.posted;
  }
}

Completion MpiDriver::to_completion(const FinishedOp& f) {
  Completion c{f.op.cookie, f.op.type, OpStatus::ok, f.op.peer, f.op.tag, 0};
  int err_class = MPI_SUCCESS;
  if (f.error != MPI_SUCCESS) MPI_Error_class(f.error, &err_class);
  if (f.op.type == OpType::recv) {
    if (err_class == MPI_SUCCESS || err_class == MPI_ERR_TRUNCATE) {
      c.peer = f.status.MPI_SOURCE;
      int count = 0;
      MPI_Get_count(&f.status, MPI_BYTE, &count);
      c.bytes = count == MPI_UNDEFINED ? 0 : static_cast<size_t>(count);
    }
    if (err_class == MPI_ERR_TRUNCATE) {
      // Some MPIs report the sent size, others the buffer size: report what
      // is in the buffer.
      c.status = OpStatus::truncated;
      done_.note("mpi recv from " + peer_name(c.peer) + " tag " + std::to_string(c.tag) +
                 ": message of " + std::to_string(c.bytes) +
                 " B longer than the posted buffer of " + std::to_string(f.op.size) + " B");
      c.bytes = std::min(c.bytes, f.op.size);
      return c;
    }
  }
  if (err_class != MPI_SUCCESS) {
    c.status = OpStatus::error;
    done_.note("mpi " + op_name(c.type) + (c.type == OpType::send ? " to " : " from ") +
               peer_name(c.peer) + " tag " + std::to_string(c.tag) + ": " + error_string(f.error));
  }
  return c;
}

size_t MpiDriver::poll(std::span<Completion> out) {
  size_t n = done_.drain(out);
  if (n == out.size() || shut_down_) return n;
  finished_.clear();
  int rc = pool_.test(finished_);
  if (rc < 0) {
    // The test call itself failed: nothing can be attributed to one
    // operation; report it once and let the peer timeout end the run.
    done_.note("mpi poll: " + error_string(-rc));
    return n;
  }
  return hand_out(out, n);
}

size_t MpiDriver::hand_out(std::span<Completion> out, size_t n) {
  if (finished_.size() > 1) {
    std::sort(finished_.begin(), finished_.end(),
              [](const FinishedOp& a, const FinishedOp& b) { return a.op.seq < b.op.seq; });
  }
  for (const FinishedOp& f : finished_) {
    if (f.op.type == OpType::recv && f.op.peer == kAnyPeer && options_.any_source_depth > 0)
      release_any_source(f.op.tag);
    if (n < out.size()) {
      out[n++] = to_completion(f);
    } else {
      done_.push(to_completion(f));
    }
  }
  return n;
}

namespace {
// One poll interval for a rank that must not block: a timer is near, or
// shutdown waits for its last sends. Under SMPI it is what lets simulated
// time advance (evbench sim makes a failed MPI_Test free: smpi/test:0).
void sleep_a_poll() {
  timespec ts{0, 1000};
  nanosleep(&ts, nullptr);
}
}  // namespace

// Under SMPI a blocked MPI_Waitany lets simulated time run to the next
// completion; polling instead costs a simulated poll interval per failed test
// (and a context switch per rank and poll). With nothing in flight, no
// completion can come: sleep until the engine's timer (nanosleep is simulated
// time under SMPI). A timer nearer than wait_min_timeout makes the rank poll
// at 1-us intervals up to it, so it fires on time.
void MpiDriver::wait(std::chrono::microseconds timeout) {
  if (options_.wait != WaitMode::waitany || shut_down_ || !done_.empty()) return;
  if (timeout.count() <= 0) return;
  if (ns_to_s(timeout.count() * 1000) < options_.wait_min_timeout_s) return sleep_a_poll();
  if (pool_.in_flight() == 0) {
    timespec ts{static_cast<time_t>(timeout.count() / 1000000),
                static_cast<long>(timeout.count() % 1000000) * 1000};
    nanosleep(&ts, nullptr);
    return;
  }
  finished_.clear();
  const int rc = pool_.wait(finished_);
  if (rc < 0) {
    done_.note("mpi wait: " + error_string(-rc));
    return;
  }
  hand_out(std::span<Completion>(), 0);
}

void MpiDriver::shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  // Receives still posted are cancelled (completes them locally); sends get
  // shutdown_timeout to finish, then are detached. No barrier: peers may
  // already be gone.
  pool_.cancel_receives();
  any_source_.clear();  // held back: MPI never saw them
  const int64_t deadline =
      now_ns() + static_cast<int64_t>(options_.shutdown_timeout.count()) * 1000000;
  std::vector<FinishedOp> sink;
  while (pool_.in_flight() > 0 && now_ns() < deadline) {
    sink.clear();
    // MPI_Testsome whatever poll_method says: it reports cancelled receives
    // under every MPI tried (SMPI's MPI_Testany skips them).
    const int rc = pool_.test(sink, PollMethod::testsome);
    if (rc < 0) break;
    if (rc == 0 && options_.wait == WaitMode::waitany) sleep_a_poll();
  }
  pool_.abandon_all();
  done_.clear();
}

}  // namespace evb::mpi
