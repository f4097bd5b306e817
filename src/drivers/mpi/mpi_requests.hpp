#pragma once
// The table of in-flight MPI operations of one MpiDriver.
//
// A dense array of MPI_Request handles (what MPI_Testsome wants) and, at the
// same index, what evbench needs to report the completion (cookie, type,
// peer, tag, posting sequence number). Finished entries are removed by moving
// the last entry into the hole, so the array never has gaps and every test
// call scans exactly the requests in flight. Owned by the driver; holds no
// buffers.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "drivers/api/driver.hpp"

namespace evb::mpi {

// How poll() asks MPI for finished requests (driver_options.poll_method).
enum class PollMethod : uint8_t {
  testsome,  // one MPI_Testsome over the whole array (default)
  testany,   // MPI_Testany repeatedly until nothing more is done
  test,      // MPI_Test on every request
};

struct PendingOp {
  uint64_t cookie = 0;
  uint64_t seq = 0;  // posting order, used to report completions in order
  OpType type = OpType::send;
  PeerId peer = kAnyPeer;  // as posted (kAnyPeer for any-source receives)
  Tag tag = 0;             // the evbench tag as posted
  size_t size = 0;         // bytes posted (receive buffer or message)
};

// One finished request: what was posted, MPI's status, MPI's error code.
struct FinishedOp {
  PendingOp op;
  MPI_Status status;
  int error = MPI_SUCCESS;
};

class RequestPool {
 public:
  RequestPool(size_t max_requests, PollMethod method);
  ~RequestPool();
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;

  // Reserves an entry and returns the MPI_Request to fill, or nullptr when
  // max_requests are in flight. Call commit() after a successful post or
  // rollback() after a failed one.
  MPI_Request* reserve();
  void commit(const PendingOp& op);
  void rollback();

  // Appends finished operations to `out` (never blocks). Returns how many
  // were appended, or a negative MPI error code if the test call itself
  // failed (then nothing was appended).
  int test(std::vector<FinishedOp>& out) { return test(out, method_); }
  int test(std::vector<FinishedOp>& out, PollMethod method);
  // Like test(), but blocks in MPI_Waitany until one request in flight
  // finishes and appends that one (returns 0 at once when none is in flight).
  int wait(std::vector<FinishedOp>& out);

  // Cancels every pending receive (their completions appear in test()).
  void cancel_receives();
  // Detaches whatever is still in flight (MPI_Request_free); used last.
  void abandon_all();

  size_t in_flight() const { return count_; }
  size_t max_requests() const { return max_; }

 private:
  void remove(size_t index);
  int test_some(std::vector<FinishedOp>& out);
  int collect(int rc, int done, std::vector<FinishedOp>& out);
  int test_any(std::vector<FinishedOp>& out);
  int test_each(std::vector<FinishedOp>& out);

  size_t max_;
  PollMethod method_;
  size_t count_ = 0;
  std::vector<MPI_Request> requests_;
  std::vector<PendingOp> ops_;
  std::vector<int> indices_;          // MPI_Testsome output
  std::vector<MPI_Status> statuses_;  // MPI_Testsome output
};

}  // namespace evb::mpi
