#include "drivers/common/tag_matcher.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace evb {

void TagMatcher::complete(const PostedRecv& recv, PeerId peer, uint64_t length, OpStatus status) {
  if (status == OpStatus::ok && length > recv.size) status = OpStatus::truncated;
  Completion c;
  c.cookie = recv.cookie;
  c.type = OpType::recv;
  c.status = status;
  c.peer = peer;
  c.tag = recv.tag;
  c.bytes = static_cast<size_t>(length);
  out_.push_back(c);
}

void TagMatcher::deliver(Unexpected& u) {
  size_t n = std::min<size_t>(u.claim.size, static_cast<size_t>(u.length));
  if (n > 0) std::memcpy(u.claim.buffer, u.data.get(), n);
  complete(u.claim, u.peer, u.length, OpStatus::ok);
}

void TagMatcher::erase(std::list<Unexpected>::iterator it) {
  unexpected_bytes_ -= it->length;
  unexpected_.erase(it);
}

bool TagMatcher::match_unexpected(const PostedRecv& recv) {
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (it->claimed || it->tag != recv.tag) continue;
    if (recv.peer != kAnyPeer && recv.peer != it->peer) continue;
    if (it->complete) {
      it->claim = recv;
      deliver(*it);
      erase(it);
    } else {
      it->claimed = true;
      it->claim = recv;
    }
    return true;
  }
  return false;
}

void TagMatcher::add_posted(PostedRecv recv) {
  recv.seq = next_seq_++;
  if (recv.peer == kAnyPeer) {
    any_peer_[recv.tag].push_back(recv);
  } else {
    by_peer_[{recv.peer, recv.tag}].push_back(recv);
  }
  ++posted_;
}

RecvTarget TagMatcher::begin_message(PeerId peer, Tag tag, uint64_t length) {
  auto specific = by_peer_.find({peer, tag});
  auto any = any_peer_.find(tag);
  Queue* q = nullptr;
  if (specific != by_peer_.end() && !specific->second.empty()) q = &specific->second;
  if (any != any_peer_.end() && !any->second.empty() &&
      (!q || any->second.front().seq < q->front().seq)) {
    q = &any->second;
  }
  if (q) {
    PostedRecv r = q->front();
    q->pop_front();
    --posted_;
    RecvTarget t;
    t.data = r.buffer;
    t.capacity = r.size;
    t.cookie = r.cookie;
    // Posted receives travel in the target itself; the tag is the receive's.
    return t;
  }
  if (unexpected_.size() >= limits_.messages || length > limits_.bytes ||
      unexpected_bytes_ > limits_.bytes - length) {
    RecvTarget t;
    t.refused = true;
    return t;
  }
  auto& u = unexpected_.emplace_back(Unexpected{peer, tag, length, {}, false, false, {}, {}});
  u.self = std::prev(unexpected_.end());
  u.data = std::make_unique_for_overwrite<std::byte[]>(static_cast<size_t>(length));
  unexpected_bytes_ += length;
  RecvTarget t;
  t.data = u.data.get();
  t.capacity = static_cast<size_t>(length);
  t.context = &u;
  return t;
}

void TagMatcher::end_message(PeerId peer, Tag tag, const RecvTarget& target, uint64_t length,
                             OpStatus status) {
  if (!target.context) {
    PostedRecv r;
    r.tag = tag;
    r.buffer = target.data;
    r.size = target.capacity;
    r.cookie = target.cookie;
    complete(r, peer, length, status);
    return;
  }
  // Incomplete entries are only ever removed here, so the node is still there.
  auto it = static_cast<Unexpected*>(target.context)->self;
  if (status != OpStatus::ok) {
    if (it->claimed) complete(it->claim, peer, 0, status);
    erase(it);
    return;
  }
  it->complete = true;
  if (it->claimed) {
    deliver(*it);
    erase(it);
  }
}

void TagMatcher::fail_peer(PeerId peer, OpStatus status) {
  auto it = by_peer_.lower_bound({peer, 0});
  while (it != by_peer_.end() && it->first.first == peer) {
    for (const auto& r : it->second) {
      complete(r, peer, 0, status);
      --posted_;
    }
    it = by_peer_.erase(it);
  }
}

void TagMatcher::fail_any(OpStatus status) {
  for (auto& [tag, q] : any_peer_) {
    for (const auto& r : q) {
      complete(r, kAnyPeer, 0, status);
      --posted_;
    }
  }
  any_peer_.clear();
}

}  // namespace evb
