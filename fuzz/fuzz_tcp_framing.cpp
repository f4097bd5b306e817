// libFuzzer target: the tcp driver's framing parser (Connection::feed, the
// state machine behind on_readable), fed the incoming byte stream without a
// socket. The first input bytes choose the sink's behaviour (how large the
// posted receive is, when it refuses an unexpected message), a max_message
// limit and a seed for how the stream is split; the rest is the stream.
//
// Asserts: every message ends with the length its header announced, once,
// and only after it began; payload is written only inside the target's
// capacity (each target is its own heap block, so ASan sees any overrun);
// no header above max_message reaches the sink; and the parser's verdict and
// the sink's record are the same whether the stream arrives in one piece or
// split at arbitrary byte boundaries.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "drivers/tcp/tcp_connection.hpp"
#include "fuzz_assert.hpp"

namespace {

using namespace evb;
using namespace evb::tcp;

// Records what the parser hands over; targets are sized from the policy.
class RecordingSink : public FrameSink {
 public:
  RecordingSink(uint64_t max_message, uint64_t capacity_cap, uint64_t refuse_above)
      : max_message_(max_message), capacity_cap_(capacity_cap), refuse_above_(refuse_above) {}

  RecvTarget begin_message(PeerId peer, Tag tag, uint64_t length) override {
    FUZZ_ASSERT(!open_, "a message began while another was open");
    FUZZ_ASSERT(peer == kPeer, "the sink hears of its own peer only");
    FUZZ_ASSERT(length <= max_message_, "a frame above max_message reached the sink");
    open_ = true;
    tag_ = tag;
    length_ = length;
    log_ += "B" + std::to_string(tag) + ":" + std::to_string(length) + ";";
    if (length > refuse_above_) {
      RecvTarget t;
      t.refused = true;
      return t;
    }
    const size_t cap = static_cast<size_t>(length < capacity_cap_ ? length : capacity_cap_);
    buffer_ = std::make_unique<std::byte[]>(cap ? cap : 1);
    RecvTarget t;
    t.data = buffer_.get();
    t.capacity = cap;
    t.cookie = ++messages_;
    return t;
  }

  void end_message(PeerId peer, Tag tag, const RecvTarget& target, uint64_t length,
                   OpStatus status) override {
    FUZZ_ASSERT(open_, "a message ended that never began");
    FUZZ_ASSERT(peer == kPeer && tag == tag_, "a message ends with the peer and tag it began");
    FUZZ_ASSERT(length == length_, "a message ends with the length its header announced");
    FUZZ_ASSERT(status == OpStatus::ok, "the parser alone only ends messages complete");
    FUZZ_ASSERT(target.cookie == messages_ && target.data == buffer_.get(),
                "a message ends in the target it began with");
    open_ = false;
    uint32_t sum = 0;
    for (size_t i = 0; i < target.capacity; ++i)
      sum = sum * 31 + static_cast<uint8_t>(target.data[i]);
    log_ += "E" + std::to_string(length) + ":" + std::to_string(sum) + ";";
    buffer_.reset();
  }

  void send_done(PeerId, Tag, uint64_t, size_t, OpStatus) override {
    FUZZ_ASSERT(false, "no send was queued");
  }

  static constexpr PeerId kPeer = 3;
  const std::string& log() const { return log_; }

 private:
  uint64_t max_message_;
  uint64_t capacity_cap_;
  uint64_t refuse_above_;
  bool open_ = false;
  Tag tag_ = 0;
  uint64_t length_ = 0;
  uint64_t messages_ = 0;
  std::unique_ptr<std::byte[]> buffer_;
  std::string log_;
};

struct Outcome {
  IoResult result = IoResult::ok;
  std::string log;
};

// Feeds `stream` in pieces whose sizes come from `seed` (0: one piece).
Outcome parse(const std::byte* stream, size_t n, const ConnectionLimits& limits,
              uint64_t capacity_cap, uint64_t refuse_above, uint64_t seed) {
  RecordingSink sink(limits.max_message, capacity_cap, refuse_above);
  Connection conn(RecordingSink::kPeer, Fd{}, sink, limits);
  Outcome out;
  size_t pos = 0;
  while (pos < n) {
    size_t piece = n - pos;
    if (seed) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      piece = std::min<size_t>(piece, 1 + (seed >> 33) % 40);
    }
    out.result = conn.feed(stream + pos, piece);
    pos += piece;
    if (out.result != IoResult::ok) break;
  }
  out.log = sink.log();
  if (out.result == IoResult::protocol) out.log += std::string("P:") + conn.protocol_error();
  if (out.result == IoResult::bye) FUZZ_ASSERT(conn.bye_received(), "bye is remembered");
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  ConnectionLimits limits;
  limits.staging = 0;  // feed() reads no socket: the smallest staging buffer
  limits.max_message = uint64_t{1} << (data[0] % 40);  // 1 B .. 512 GiB
  const uint64_t capacity_cap = data[1];               // posted receives of 0..255 B
  const uint64_t refuse_above = data[2] < 128 ? UINT64_MAX : data[2];
  const uint64_t seed = data[3] | 1u;
  const auto* stream = reinterpret_cast<const std::byte*>(data + 4);
  const size_t n = size - 4;

  const Outcome whole = parse(stream, n, limits, capacity_cap, refuse_above, 0);
  const Outcome split = parse(stream, n, limits, capacity_cap, refuse_above, seed);
  FUZZ_ASSERT(whole.result == split.result, "the verdict does not depend on how bytes arrive");
  FUZZ_ASSERT(whole.log == split.log, "the frames do not depend on how bytes arrive");
  return 0;
}
