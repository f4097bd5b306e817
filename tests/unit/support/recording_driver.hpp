#pragma once
// A driver for driving protocol agents without a network: it accepts every
// post, records the destination rank of each send (and what a command send
// carried) and each receive posted, and completes only what a test puts in
// `pending`.
// Shared by the command tests (tests/unit/protocols/commands_test.cpp) and
// the command fuzz target (fuzz/fuzz_command.cpp).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/messages.hpp"
#include "drivers/api/driver.hpp"

namespace evb::test_support {

class RecordingDriver final : public Driver {
 public:
  std::string name() const override { return "recording"; }
  Capabilities capabilities() const override { return caps; }
  std::string local_address() override { return "-"; }
  void connect(const std::vector<std::string>&, const std::vector<PeerId>&) override {}
  void post_send(PeerId peer, Tag, std::span<const Segment> segs, uint64_t) override {
    sends.push_back(peer);
    segment_counts.push_back(segs.size());
    Command cmd{};
    if (segs.size() == 1 && !decode_command(segs[0].data, segs[0].size, &cmd)) cmd = Command{};
    commands.push_back(cmd);  // a fragment (several segments) records an empty command
  }
  void post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration*,
                 uint64_t cookie) override {
    recvs.push_back(Recv{peer, tag, buffer, size, cookie});
  }
  void rdma_write(PeerId peer, std::span<const Segment>, const RemoteKey&, uint64_t offset,
                  std::optional<uint32_t> immediate, uint64_t cookie) override {
    writes.push_back(Write{peer, offset, immediate, cookie});
  }
  // Hands out `pending` (what a test makes the network report), then nothing.
  // Each call also settles one of `owed` (what owed_to_peers() reports).
  size_t poll(std::span<Completion> out) override {
    ++polls;
    if (owed > 0) --owed;
    size_t n = 0;
    while (n < out.size() && n < pending.size()) out[n] = pending[n], ++n;
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(n));
    return n;
  }
  void shutdown() override {}
  size_t owed_to_peers() const override { return owed; }

  Capabilities caps = [] {
    Capabilities c;
    c.max_segments = 64;
    return c;
  }();                                 // what capabilities() reports
  std::vector<PeerId> sends;           // destination of every post_send, in order
  std::vector<Command> commands;       // by send: the command it carried (type 0: none)
  std::vector<size_t> segment_counts;  // by send: how many segments it gathered
  std::vector<Completion> pending;     // returned by the next poll()
  size_t owed = 0;                     // owed_to_peers(); each poll() settles one
  size_t polls = 0;                    // poll() calls
  struct Recv {
    PeerId peer;
    Tag tag;
    void* buffer;
    size_t size;
    uint64_t cookie;
  };
  std::vector<Recv> recvs;  // every post_recv, in order (a test may fill one and complete it)
  struct Write {
    PeerId peer;
    uint64_t offset;
    std::optional<uint32_t> immediate;
    uint64_t cookie;
  };
  std::vector<Write> writes;  // every rdma_write, in order
};

}  // namespace evb::test_support
