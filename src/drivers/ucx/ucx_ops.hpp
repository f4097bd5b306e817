#pragma once
// The per-operation record of the ucx driver: what a UCX callback gets as
// user_data, pooled so that the data path allocates nothing per operation
// once the pool has grown to the number of operations in flight.
#include <ucp/api/ucp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "drivers/api/driver.hpp"
#include "drivers/common/control_message.hpp"

namespace evb::ucx {

class UcxDriver;

// What the endpoint error handler of one peer gets as its argument.
struct PeerHandle {
  UcxDriver* driver = nullptr;
  PeerId rank = 0;
};

// UCX callbacks (ucx_complete.cpp); user_data is the Op.
void send_callback(void* request, ucs_status_t status, void* user_data);
void recv_callback(void* request, ucs_status_t status, const ucp_tag_recv_info_t* info,
                   void* user_data);
void flush_callback(void* request, ucs_status_t status, void* user_data);
void put_callback(void* request, ucs_status_t status, void* user_data);
void endpoint_error(void* arg, ucp_ep_h ep, ucs_status_t status);

enum class OpKind : uint8_t {
  send,      // a caller's post_send
  recv,      // a caller's post_recv
  write,     // a caller's rdma_write: puts, then a flush, then (immediate) a notify
  ctl_send,  // the driver's own control message (hello, bye)
  ctl_recv,  // an internal receive for control messages, reposted
};
// How many kinds there are: the last one's value and one.
constexpr size_t kOpKinds = static_cast<size_t>(OpKind::ctl_recv) + 1;

struct Op {
  UcxDriver* driver = nullptr;
  OpKind kind = OpKind::send;
  uint64_t cookie = 0;
  PeerId peer = kAnyPeer;
  Tag tag = 0;
  size_t size = 0;          // posted receive size, or bytes sent / written
  void* request = nullptr;  // UCX request while one is outstanding
  // Why a cancelled receive was cancelled (peer_lost / peer_closed).
  OpStatus cancel_status = OpStatus::error;
  // Writes: the first failure, the immediate, the puts not yet complete
  // locally, and how far the chain has gone: flushed, notify posted and
  // sent, completion reported (with an immediate: once the puts completed
  // locally, before the flush and the notify, which go on in the background).
  OpStatus status = OpStatus::ok;
  std::optional<uint32_t> immediate;
  uint32_t puts_left = 0;
  bool flushed = false;
  bool notifying = false;
  bool notified = false;
  bool reported = false;
  const char* failed_step = nullptr;  // the first failure of a write's chain
  ucs_status_t failed_with = UCS_OK;
  ucp_tag_recv_info_t info{};  // receives: filled on completion
  // Receives: the callback ran inside ucp_tag_recv_nbx (posting) and left
  // its status for start_recv to act on. Writes: rdma_write is still posting
  // (callbacks that run meanwhile only record their outcome).
  bool posting = false;
  bool done_in_post = false;
  ucs_status_t post_status = UCS_OK;
  std::vector<ucp_dt_iov_t> iov;   // gathered sends (capacity kept across reuse)
  std::byte ctl[kControlBytes]{};  // control message sent or received
  // Posted caller receives, linked so a lost peer's can be cancelled.
  Op* prev = nullptr;
  Op* next = nullptr;
  bool linked = false;
};

// A free list of Ops that only grows.
class OpPool {
 public:
  explicit OpPool(UcxDriver* driver) : driver_(driver) {}
  Op* get(OpKind kind) {
    if (free_.empty()) {
      all_.push_back(std::make_unique<Op>());
      free_.push_back(all_.back().get());
    }
    Op* op = free_.back();
    free_.pop_back();
    std::vector<ucp_dt_iov_t> iov = std::move(op->iov);
    *op = Op{};
    op->iov = std::move(iov);
    op->driver = driver_;
    op->kind = kind;
    ++live_[static_cast<size_t>(kind)];
    return op;
  }
  void put(Op* op) {
    --live_[static_cast<size_t>(op->kind)];
    free_.push_back(op);
  }
  size_t live() const { return all_.size() - free_.size(); }
  size_t live(OpKind kind) const { return live_[static_cast<size_t>(kind)]; }

 private:
  UcxDriver* driver_;
  std::vector<std::unique_ptr<Op>> all_;
  std::vector<Op*> free_;
  std::array<size_t, kOpKinds> live_{};  // by OpKind
};

// Caller receives still posted to UCX, in posting order.
class OpList {
 public:
  // A receive this large is read from a stream socket in several turns.
  static constexpr size_t kLargeReceive = 64 * 1024;

  void push(Op* op) {
    op->prev = tail_;
    op->next = nullptr;
    (tail_ ? tail_->next : head_) = op;
    tail_ = op;
    op->linked = true;
    if (op->size >= kLargeReceive) ++large_;
  }
  void remove(Op* op) {
    if (!op->linked) return;
    if (op->size >= kLargeReceive) --large_;
    (op->prev ? op->prev->next : head_) = op->next;
    (op->next ? op->next->prev : tail_) = op->prev;
    op->prev = op->next = nullptr;
    op->linked = false;
  }
  Op* head() const { return head_; }
  size_t large() const { return large_; }  // of kLargeReceive bytes or more

 private:
  size_t large_ = 0;
  Op* head_ = nullptr;
  Op* tail_ = nullptr;
};

}  // namespace evb::ucx
