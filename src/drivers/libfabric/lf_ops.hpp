#pragma once
// One in-flight libfabric operation and the pool that recycles them.
//
// Every fi_tsend / fi_trecv / fi_writemsg gets an Op whose header is the
// operation context libfabric hands back in the completion (an fi_context2
// first, as FI_CONTEXT / FI_CONTEXT2 require). The Op also keeps everything
// needed to post the operation again after FI_EAGAIN and, under FI_ASYNC_IOV,
// the iovec and descriptor arrays until completion. Ops never move (the pool
// owns them individually).
#include <rdma/fabric.h>
#include <rdma/fi_rma.h>
#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "drivers/api/driver.hpp"
#include "drivers/libfabric/lf_control.hpp"

namespace evb::libfabric {

enum class OpKind : uint8_t {
  send,         // user tagged send
  recv,         // user tagged receive
  write,        // user rdma_write
  ctl_send,     // control message out (hello, notify, bye)
  ctl_recv,     // control message in (kept posted)
  cqdata_recv,  // untagged receive consumed by remote CQ data (FI_RX_CQ_DATA)
};

struct Op;

// What libfabric sees as the context: standard layout, fi_context2 first.
struct OpHeader {
  fi_context2 ctx;
  Op* op;
};

struct Op {
  OpHeader header{};
  OpKind kind = OpKind::send;
  bool live = false;                         // acquired from the pool
  bool in_flight = false;                    // handed to libfabric, its completion is pending
  bool cancelling = false;                   // fi_cancel issued
  bool reported = false;                     // the caller got its completion
  bool abandoned = false;                    // retired while libfabric still holds it
  bool use_inject = false;                   // post with fi_tinject (completes at post time)
  bool silent = false;                       // internal write: never reported
  OpStatus cancel_status = OpStatus::error;  // reported if the cancel wins
  PeerId peer = kAnyPeer;
  Tag tag = 0;  // user tag; for ctl_send the CtlKind
  uint64_t cookie = 0;
  size_t bytes = 0;  // posted length
  uint64_t fi_tag = 0;
  uint64_t ignore = 0;
  fi_addr_t dest = FI_ADDR_UNSPEC;
  std::vector<iovec> iov;
  std::vector<void*> desc;
  fi_rma_iov rma{};
  uint64_t flags = 0;  // fi_*msg flags
  uint64_t data = 0;   // remote CQ data
  // rdma_write with an emulated immediate: the write counts down its parts
  // (write + notification) and reports once; the notification points back.
  Op* parent = nullptr;
  Op* follow_up = nullptr;  // notification to post once the write completed
  std::optional<uint32_t> immediate;
  int parts = 0;
  OpStatus status = OpStatus::ok;
  std::string error;  // first failure of a multi-part op
  CtlSlot* slot = nullptr;

  void* context() { return &header; }
  static Op* from_context(void* context) { return static_cast<OpHeader*>(context)->op; }
};

// Owns every Op; acquire() hands out a reset one.
class OpPool {
 public:
  Op* acquire(OpKind kind) {
    Op* op = nullptr;
    if (free_.empty()) {
      all_.push_back(std::make_unique<Op>());
      op = all_.back().get();
    } else {
      op = free_.back();
      free_.pop_back();
    }
    // Reset, keeping the vectors' capacity.
    auto iov = std::move(op->iov);
    auto desc = std::move(op->desc);
    auto error = std::move(op->error);
    *op = Op{};
    op->iov = std::move(iov);
    op->desc = std::move(desc);
    op->error = std::move(error);
    op->iov.clear();
    op->desc.clear();
    op->error.clear();
    op->kind = kind;
    op->header.op = op;
    op->live = true;
    ++live_;
    return op;
  }
  void release(Op* op) {
    op->live = false;
    --live_;
    free_.push_back(op);
  }
  size_t live() const { return live_; }
  // The ops acquired and not yet released (teardown).
  std::vector<Op*> live_ops() const {
    std::vector<Op*> out;
    for (const auto& op : all_) {
      if (op->live) out.push_back(op.get());
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<Op>> all_;
  std::vector<Op*> free_;
  size_t live_ = 0;
};

}  // namespace evb::libfabric
