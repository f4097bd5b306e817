#include "drivers/mpi/mpi_requests.hpp"

#include <algorithm>

namespace evb::mpi {

RequestPool::RequestPool(size_t max_requests, PollMethod method)
    : max_(std::max<size_t>(max_requests, 1)), method_(method) {
  size_t initial = std::min<size_t>(max_, 256);
  requests_.assign(initial, MPI_REQUEST_NULL);
  ops_.resize(initial);
  indices_.resize(initial);
  statuses_.resize(initial);
}

RequestPool::~RequestPool() {
  abandon_all();
}

MPI_Request* RequestPool::reserve() {
  if (count_ == max_) return nullptr;
  if (count_ == requests_.size()) {
    size_t grown = std::min(max_, requests_.size() * 2);
    requests_.resize(grown, MPI_REQUEST_NULL);
    ops_.resize(grown);
    indices_.resize(grown);
    statuses_.resize(grown);
  }
  requests_[count_] = MPI_REQUEST_NULL;
  return &requests_[count_];
}

void RequestPool::commit(const PendingOp& op) {
  ops_[count_++] = op;
}

void RequestPool::rollback() {
  requests_[count_] = MPI_REQUEST_NULL;
}

void RequestPool::remove(size_t index) {
  size_t last = count_ - 1;
  if (index != last) {
    requests_[index] = requests_[last];
    ops_[index] = ops_[last];
  }
  requests_[last] = MPI_REQUEST_NULL;
  --count_;
}

int RequestPool::test(std::vector<FinishedOp>& out, PollMethod method) {
  if (count_ == 0) return 0;
  switch (method) {
    case PollMethod::testany:
      return test_any(out);
    case PollMethod::test:
      return test_each(out);
    case PollMethod::testsome:
      break;
  }
  return test_some(out);
}

// MPI_Waitany, not MPI_Waitsome: SMPI's MPI_Waitsome tests every other
// request after the first completion, and each failed test costs smpi/test
// of simulated time; the engine's next poll collects the others.
int RequestPool::wait(std::vector<FinishedOp>& out) {
  if (count_ == 0) return 0;
  int index = MPI_UNDEFINED;
  MPI_Status status;
  const int rc = MPI_Waitany(static_cast<int>(count_), requests_.data(), &index, &status);
  if (index == MPI_UNDEFINED) return rc == MPI_SUCCESS ? 0 : -rc;
  out.push_back(FinishedOp{ops_[index], status, rc});
  if (requests_[index] != MPI_REQUEST_NULL) MPI_Request_free(&requests_[index]);
  remove(static_cast<size_t>(index));
  return 1;
}

int RequestPool::test_some(std::vector<FinishedOp>& out) {
  int done = 0;
  const int rc = MPI_Testsome(static_cast<int>(count_), requests_.data(), &done, indices_.data(),
                              statuses_.data());
  return collect(rc, done, out);
}

// The output of MPI_Testsome / MPI_Waitsome (in indices_ and statuses_):
// appends the finished operations to `out` and removes them from the table.
int RequestPool::collect(int rc, int done, std::vector<FinishedOp>& out) {
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) return -rc;
  if (done == MPI_UNDEFINED || done <= 0) return 0;
  // Statuses' MPI_ERROR fields are only defined with MPI_ERR_IN_STATUS.
  for (int i = 0; i < done; ++i) {
    int idx = indices_[i];
    int err = rc == MPI_ERR_IN_STATUS ? statuses_[i].MPI_ERROR : MPI_SUCCESS;
    out.push_back(FinishedOp{ops_[idx], statuses_[i], err});
    // Some MPIs keep a request that completed in error allocated.
    if (requests_[idx] != MPI_REQUEST_NULL) MPI_Request_free(&requests_[idx]);
  }
  // Remove from the highest index down so that moving the last entry into a
  // hole never moves an entry that is still to be removed.
  std::sort(indices_.begin(), indices_.begin() + done, std::greater<int>());
  for (int i = 0; i < done; ++i) remove(static_cast<size_t>(indices_[i]));
  return done;
}

int RequestPool::test_any(std::vector<FinishedOp>& out) {
  int appended = 0;
  while (count_ > 0) {
    int index = MPI_UNDEFINED;
    int flag = 0;
    MPI_Status status;
    int rc = MPI_Testany(static_cast<int>(count_), requests_.data(), &index, &flag, &status);
    if (index == MPI_UNDEFINED || (!flag && rc == MPI_SUCCESS)) break;
    if (rc != MPI_SUCCESS && index == MPI_UNDEFINED) return appended > 0 ? appended : -rc;
    out.push_back(FinishedOp{ops_[index], status, rc});
    remove(static_cast<size_t>(index));
    ++appended;
  }
  return appended;
}

int RequestPool::test_each(std::vector<FinishedOp>& out) {
  int appended = 0;
  size_t i = 0;
  while (i < count_) {
    int flag = 0;
    MPI_Status status;
    int rc = MPI_Test(&requests_[i], &flag, &status);
    if (flag || rc != MPI_SUCCESS) {
      out.push_back(FinishedOp{ops_[i], status, rc});
      remove(i);  // entry i now holds the former last one: test it next
      ++appended;
    } else {
      ++i;
    }
  }
  return appended;
}

void RequestPool::cancel_receives() {
  for (size_t i = 0; i < count_; ++i) {
    if (ops_[i].type == OpType::recv && requests_[i] != MPI_REQUEST_NULL) {
      MPI_Cancel(&requests_[i]);
    }
  }
}

void RequestPool::abandon_all() {
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (!finalized) {
    for (size_t i = 0; i < count_; ++i) {
      if (requests_[i] != MPI_REQUEST_NULL) MPI_Request_free(&requests_[i]);
    }
  }
  count_ = 0;
}

}  // namespace evb::mpi
