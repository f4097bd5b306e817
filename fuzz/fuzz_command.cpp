// libFuzzer target: the command decoder (core/messages.hpp decode_command, as
// the protocol engine calls it on every received command) and the checks the
// agents make before acting on a decoded command (RuAgent, pull's EVM agent):
// the input is a sequence of records [agent, sender rank, 64 command bytes],
// handed in turn to a readout unit on rank 0 and the EVM on rank 2 of a
// two-node run (ranks 0, 1: RU+BU; rank 2: EVM) over a driver that records
// the sends the agents post and completes nothing. Bit 0 of the agent byte
// picks the EVM, the sender byte is taken modulo the 3 ranks.
//
// Asserts: a message without the magic is refused by the decoder and an
// accepted command is exactly the bytes it came from; an agent either acts
// on a command or throws PeerError naming the sender (no other exception);
// a refused command posts nothing; a fragment the RU sends goes to the rank
// of the BU the command names (or stays on the rank, for its own BU), and
// only for requests and assignments; what
// the EVM sends goes to the rank whose credit it accepted.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../tests/unit/support/recording_driver.hpp"
#include "core/error.hpp"
#include "core/messages.hpp"
#include "core/topology.hpp"
#include "fuzz_assert.hpp"
#include "protocols/common/ru_agent.hpp"
#include "protocols/pull/pull.hpp"
#include "units/readout_unit.hpp"

namespace {

using namespace evb;

using test_support::RecordingDriver;

Config two_nodes() {
  Config c;
  c.nodes = 2;
  c.parallel = 1;
  c.credits = 2;
  c.fragment.size = 256;
  c.ru_buffer = 8 << 10;
  return c;
}

// The decoder's own invariants; true when `data` holds a command.
bool decode(const uint8_t* data, size_t size, Command* cmd) {
  const bool ok = decode_command(data, size, cmd);
  if (size < sizeof(Command)) {
    FUZZ_ASSERT(!ok, "a message shorter than a command was accepted");
    return false;
  }
  uint32_t magic = 0;
  std::memcpy(&magic, data, sizeof magic);
  FUZZ_ASSERT(ok == (magic == kCommandMagic), "accepted exactly when the magic is there");
  if (ok)
    FUZZ_ASSERT(std::memcmp(cmd, data, sizeof *cmd) == 0,
                "an accepted command re-encodes to the bytes it came from");
  return ok;
}

// Hands `cmd` to `agent`; true when it acted, false when it refused.
bool deliver(Agent& agent, PeerId from, const Command& cmd) {
  try {
    agent.on_command(from, cmd);
  } catch (const PeerError& e) {
    FUZZ_ASSERT(e.peer() == from, "a refusal names the sender");
    return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Command whole;
  decode(data, size, &whole);  // the input as one message

  const Config c = two_nodes();
  const Topology topo = make_topology(c);
  const std::vector<std::string> names = {"rank 0", "rank 1", "rank 2 (EVM)"};
  RecordingDriver ru_driver, evm_driver;
  Engine ru_engine(ru_driver, 0, c, PollMode::busy, names);
  Engine evm_engine(evm_driver, topo.evm_rank, c, PollMode::busy, names);
  ReadoutUnit ru(0, c);
  auto ring = ru_driver.register_memory(ru.memory().data(), ru.memory().size());
  RankStats ru_stats, evm_stats;
  RuAgent ru_agent(ru_engine, ru, *ring, topo, ru_stats, nullptr);
  pull::PullEvmAgent evm(evm_engine, topo, evm_stats, false);
  evm.start(0);

  constexpr size_t kRecord = 2 + sizeof(Command);
  for (size_t at = 0; at + kRecord <= size && at < 32 * kRecord; at += kRecord) {
    Command cmd;
    if (!decode(data + at + 2, sizeof cmd, &cmd)) continue;  // the engine refuses it
    const PeerId from = data[at + 1] % topo.nprocs;
    if (data[at] & 1) {
      const size_t before = evm_driver.sends.size();
      const bool acted = deliver(evm, from, cmd);
      if (!acted) FUZZ_ASSERT(evm_driver.sends.size() == before, "a refused credit sends nothing");
      // An assignment to the sender, or the stop to every RU and BU.
      bool all_to_sender = true;
      for (size_t i = before; i < evm_driver.sends.size(); ++i)
        all_to_sender = all_to_sender && evm_driver.sends[i] == from;
      if (!all_to_sender) {
        const std::vector<PeerId> sent(evm_driver.sends.begin() + before, evm_driver.sends.end());
        for (int n = 0; n < topo.nodes; ++n)
          FUZZ_ASSERT(std::count(sent.begin(), sent.end(), topo.ru_rank[n]) &&
                          std::count(sent.begin(), sent.end(), topo.bu_rank[n]),
                      "the EVM sends to the rank whose credit it took, or stops everyone");
      }
    } else {
      const size_t before = ru_driver.sends.size();
      const uint64_t discarded = ru_stats.late_discarded;
      const bool acted = deliver(ru_agent, from, cmd);
      if (!acted) {
        FUZZ_ASSERT(ru_driver.sends.size() == before, "a refused command sends nothing");
        continue;
      }
      const bool sends =
          cmd.type == CommandType::pull_request || cmd.type == CommandType::push_assign;
      FUZZ_ASSERT(sends || ru_driver.sends.size() == before, "only requests make the RU send");
      if (sends && ru_stats.late_discarded != discarded) {
        // A BU the EVM excluded (on_failure: exclude) is out of the run: its
        // requests are counted and dropped, nothing is sent.
        FUZZ_ASSERT(ru_stats.late_discarded == discarded + 1 && ru_driver.sends.size() == before,
                    "a request from an excluded BU is counted once and sends nothing");
      } else if (sends) {
        FUZZ_ASSERT(cmd.bu < static_cast<uint32_t>(topo.nodes), "the BU named exists");
        const PeerId to = topo.bu_rank[cmd.bu];
        if (to == 0)  // the BU on the RU's own rank: delivered without the driver
          FUZZ_ASSERT(ru_driver.sends.size() == before, "a local fragment bypasses the driver");
        else
          FUZZ_ASSERT(ru_driver.sends.size() > before && ru_driver.sends.back() == to,
                      "the fragment goes to the BU the command names");
      }
    }
  }
  return 0;
}
