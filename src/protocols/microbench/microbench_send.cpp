// The sending side of MicroAgent (microbench_agent.hpp): one exchange per
// credit, as a send or, under data_path write, a write into the arena slot
// the credit named; the final command at the deadline.
#include <algorithm>
#include <cstring>

#include "protocols/microbench/microbench_agent.hpp"
#include "protocols/microbench/microbench_cookie.hpp"

namespace evb::micro {

void MicroAgent::send_exchanges(int64_t now) {
  if (stopped_) return;
  if (now >= deadline_ns_) {
    stop_sending();
    return;
  }
  const uint32_t me = static_cast<uint32_t>(stats_.ru);
  while (targets_[cursor_].credits > 0 && !window_full(targets_[cursor_])) {
    Target& t = targets_[cursor_];
    if (with_cmd_) {
      Command cmd = bench_command(BenchOp::segment);
      cmd.ru = me;
      cmd.bu = static_cast<uint32_t>(t.bu);
      cmd.bytes = t.sent;
      engine_.send_command(t.rank, Channel::bench, cmd);
    }
    // The arena slot this exchange is written into (write path).
    uint32_t slot = 0;
    if (windows_) {
      slot = t.slots.front();
      t.slots.pop_front();
    }
    if (with_meta_) {
      const Segment m{pool_->take(meta_size_), meta_size_, pool_reg_};
      ++sends_in_flight_;
      deliver(t, slot, true, std::span<const Segment>(&m, 1),
              Engine::make_cookie(id_, cookie_of(kMetaSend, 0, 0)));
    }
    ++t.in_flight;
    if (send_inline(t, slot)) {
      --t.credits;
      ++t.sent;
      cursor_ = (cursor_ + 1) % targets_.size();
      continue;
    }
    const size_t h = headers_.acquire();
    BenchHeader& hdr = *reinterpret_cast<BenchHeader*>(headers_.at(h));
    hdr = BenchHeader{};
    hdr.source = me;
    hdr.target = static_cast<uint32_t>(t.bu);
    hdr.step = static_cast<uint32_t>(step_);
    hdr.sequence = sequence_++;
    Segment segs[2] = {{&hdr, sizeof hdr, headers_.reg(h)}, {}};
    size_t n = 1;
    if (data_size_ > sizeof hdr) {
      const uint64_t rest = data_size_ - sizeof hdr;
      segs[n++] = {pool_->take(rest), rest, pool_reg_};
    }
    ++sends_in_flight_;
    deliver(t, slot, false, std::span<const Segment>(segs, n),
            Engine::make_cookie(id_, cookie_of(kDataSend, cursor_, h)));
    --t.credits;
    ++t.sent;
    cursor_ = (cursor_ + 1) % targets_.size();
  }
}

// With more credits in circulation than `parallel` (receive slots unset, or
// set other than the window), `parallel` bounds the data messages a sender
// has posted and not yet seen complete (its window, as the tools' -O / -W):
// the credit of a checked slot then travels, or waits for others to share
// its message, while the next message goes into another slot. With as many
// credits as the window (receive_slots = parallel) they are the window and
// this never binds.
bool MicroAgent::window_full(const Target& t) const {
  return tickets_ > parallel_ && t.in_flight >= parallel_;
}

// A data message to target `t` completed at the sender.
void MicroAgent::data_sent(size_t t) {
  Target& target = targets_.at(t);
  if (target.in_flight > 0) --target.in_flight;
  ++stats_.fragments_sent;
  stats_.bytes_sent += data_size_;
  if (tickets_ > parallel_ && target.credits > 0) send_exchanges(now_ns());
}

void MicroAgent::deliver(const Target& t, uint32_t slot, bool meta, std::span<const Segment> segs,
                         uint64_t cookie) {
  if (!windows_) {
    engine_.send(t.rank, bench_tag(step_, meta ? BenchStream::meta : BenchStream::data), segs,
                 cookie);
    return;
  }
  const uint64_t offset = slot * slot_bytes() + (meta ? round64(data_size_) : 0);
  engine_.write(windows_->at(t.bu), segs, offset, (slot << 1) | (meta ? 1u : 0u), cookie);
}

bool MicroAgent::send_inline(const Target& t, uint32_t slot) {
  // One contiguous segment (header written into a pool slot no other send is
  // reading) spares drivers a gathered send: MPI would pack a derived datatype,
  // UCX takes an iov off its zero-copy rendezvous.
  if (data_size_ < sizeof(BenchHeader)) return false;
  const size_t slots = std::max<size_t>(1, pool_->size() / data_size_);
  if (pool_slot_sends_.empty()) pool_slot_sends_.assign(slots, 0);
  BenchHeader hdr;
  hdr.source = static_cast<uint32_t>(stats_.ru);
  hdr.target = static_cast<uint32_t>(t.bu);
  hdr.step = static_cast<uint32_t>(step_);
  const size_t probes = std::min<size_t>(slots, 8);
  // A free slot first (the ring keeps rotating); else a slot still being sent
  // whose header already says this message's source, target and step: it is
  // sent again as it is, not rewritten under the send in flight, as the
  // libraries' tools send one buffer WINDOW times. The receiver checks the
  // same fields either way; the sequence is then the first send's.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t probe = 0; probe < probes; ++probe) {
      const size_t s = (next_pool_slot_ + probe) % slots;
      uint8_t* p = pool_->data() + s * data_size_;
      if (pass == 0) {
        if (pool_slot_sends_[s]) continue;
        hdr.sequence = sequence_++;
        std::memcpy(p, &hdr, sizeof hdr);
      } else {
        BenchHeader held;
        std::memcpy(&held, p, sizeof held);
        if (held.magic != hdr.magic || held.source != hdr.source || held.target != hdr.target ||
            held.step != hdr.step)
          continue;
      }
      const Segment seg{p, data_size_, pool_reg_};
      ++pool_slot_sends_[s];
      ++sends_in_flight_;
      next_pool_slot_ = (s + 1) % slots;
      deliver(t, slot, false, std::span<const Segment>(&seg, 1),
              Engine::make_cookie(id_, cookie_of(kDataSendInline, cursor_, s)));
      return true;
    }
  }
  return false;
}

void MicroAgent::stop_sending() {
  stopped_ = true;
  for (const Target& t : targets_) {
    Command cmd = bench_command(BenchOp::final);
    cmd.ru = static_cast<uint32_t>(stats_.ru);
    cmd.bu = static_cast<uint32_t>(t.bu);
    cmd.bytes = t.sent;
    engine_.send_command(t.rank, Channel::bench, cmd);
  }
}

bool MicroAgent::sender_done() const {
  if (!stopped_ || sends_in_flight_) return false;
  for (const Target& t : targets_)
    if (!t.acked || t.credits_received != t.credits_announced) return false;
  return true;
}

}  // namespace evb::micro
