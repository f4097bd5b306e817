#pragma once
// TagMatcher: software tag matching for drivers whose library has none
// (tcp, verbs): posted receives against incoming messages, MPI style.
//
// An incoming header takes the oldest posted receive whose peer (or kAnyPeer)
// and tag match; its payload then goes straight into that buffer. With no
// match the message is buffered as unexpected (one copy) and handed to the
// first later post_recv that matches it, in arrival order. The Matcher owns
// the unexpected buffers; receive buffers belong to the caller. Finished
// receives are appended to the completion queue given at construction.
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "core/ring_queue.hpp"
#include "drivers/api/driver.hpp"

namespace evb {

// Where the payload of one incoming message is written. Bytes beyond
// `capacity` are read and discarded (truncation). `context` is the matcher's.
struct RecvTarget {
  std::byte* data = nullptr;
  size_t capacity = 0;
  uint64_t cookie = 0;
  void* context = nullptr;
  bool refused = false;  // unexpected, and buffering it would pass the limits
};

// How much a matcher buffers for receives not posted yet (all peers together).
struct UnexpectedLimits {
  uint64_t bytes = 256ull << 20;
  size_t messages = 65536;
};

struct PostedRecv {
  PeerId peer = kAnyPeer;
  Tag tag = 0;
  std::byte* buffer = nullptr;
  size_t size = 0;
  uint64_t cookie = 0;
  uint64_t seq = 0;  // post order, assigned by the Matcher
};

class TagMatcher {
 public:
  explicit TagMatcher(RingQueue<Completion>& out, UnexpectedLimits limits = {})
      : out_(out), limits_(limits) {}

  // Matches an already buffered message (completing at once, or when it has
  // fully arrived). Returns false if none matched; the caller then posts it.
  bool match_unexpected(const PostedRecv& recv);
  void add_posted(PostedRecv recv);

  // A message header arrived: where its payload goes (a posted receive, or a
  // new unexpected buffer of `length` bytes; `refused` when that buffer would
  // pass the limits: the caller then treats the peer as broken).
  RecvTarget begin_message(PeerId peer, Tag tag, uint64_t length);
  void end_message(PeerId peer, Tag tag, const RecvTarget& target, uint64_t length,
                   OpStatus status);

  // Completes every receive posted to `peer` (not kAnyPeer) with `status`.
  void fail_peer(PeerId peer, OpStatus status);
  // Completes every kAnyPeer receive with `status` (no live peer is left).
  void fail_any(OpStatus status);

  size_t posted_count() const { return posted_; }
  size_t unexpected_count() const { return unexpected_.size(); }
  uint64_t unexpected_bytes() const { return unexpected_bytes_; }
  const UnexpectedLimits& limits() const { return limits_; }

 private:
  struct Unexpected {
    PeerId peer;
    Tag tag;
    uint64_t length;
    std::unique_ptr<std::byte[]> data;  // `length` bytes, not zero-filled
    bool complete = false;
    bool claimed = false;
    PostedRecv claim;
    std::list<Unexpected>::iterator self;  // its own position, for O(1) removal
  };
  using Queue = RingQueue<PostedRecv>;

  void complete(const PostedRecv& recv, PeerId peer, uint64_t length, OpStatus status);
  void deliver(Unexpected& u);
  void erase(std::list<Unexpected>::iterator it);

  RingQueue<Completion>& out_;
  std::map<std::pair<PeerId, Tag>, Queue> by_peer_;
  std::map<Tag, Queue> any_peer_;
  UnexpectedLimits limits_;
  std::list<Unexpected> unexpected_;
  uint64_t unexpected_bytes_ = 0;
  uint64_t next_seq_ = 0;
  size_t posted_ = 0;
};

}  // namespace evb
