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
// the EVM sends goes to the rank whose credit it accepted (under exclude:
// an assignment goes to the rank of the BU it names, a release to the RUs).
// Under exclude, for the RU: a release is taken only from the EVM, moves
// past the last one and becomes the ring's watermark; a request is either
// discarded (excluded BU), parked (sends nothing) or served (one fragment);
// the ring never holds more events than its slots, and no owner lies below
// the watermark; overruns are counted only when a request is served or at
// the stop. For the EVM: a release never passes an event it has not
// accepted as finished, releases only grow, and every new event is
// assigned under the last release and within the ring (event < released +
// slots).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../tests/unit/support/recording_driver.hpp"
#include "core/error.hpp"
#include "core/messages.hpp"
#include "core/ring_geometry.hpp"
#include "core/topology.hpp"
#include "fuzz_assert.hpp"
#include "protocols/event_building/ru_agent.hpp"
#include "protocols/pull/pull.hpp"
#include "units/readout_unit.hpp"

namespace {

using namespace evb;

using test_support::RecordingDriver;

Config two_nodes(bool exclude) {
  Config c;
  c.nodes = 2;
  c.parallel = 1;
  c.credits = 2;
  c.fragment.size = 256;
  c.ru_buffer = 8 << 10;
  if (exclude) {
    c.on_failure = OnFailure::exclude;
    c.ru_buffer = exclude_min_ru_buffer(c);
  }
  return c;
}

// The RU's ring under exclude: bounded, nothing below the watermark.
void check_ring(const RuAgent& agent, const EventBuildingStats& stats) {
  const RingOwnership* ring = agent.ownership();
  if (!ring) return;
  FUZZ_ASSERT(ring->held() <= ring->slots() && stats.max_events_held <= ring->slots(),
              "the ring holds no more events than it has slots");
  size_t held = 0;
  for (size_t s = 0; s < ring->slots(); ++s) {
    const uint64_t o = ring->owner(s);
    if (o == RingOwnership::kFree) continue;
    ++held;
    FUZZ_ASSERT(o >= ring->released() && o % ring->slots() == s,
                "a slot holds its own event, not one acknowledged built");
  }
  FUZZ_ASSERT(held == ring->held(), "the held count is the slots held");
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

  const bool exclude = size > 0 && (data[0] & 2) != 0;
  const Config c = two_nodes(exclude);
  const uint64_t slots = min_ring_slots(c);
  const Topology topo = make_topology(c);
  const std::vector<std::string> names = {"rank 0", "rank 1", "rank 2 (EVM)"};
  RecordingDriver ru_driver, evm_driver;
  Engine ru_engine(ru_driver, 0, c, PollMode::busy, names);
  Engine evm_engine(evm_driver, topo.evm_rank, c, PollMode::busy, names);
  ReadoutUnit ru(0, c);
  auto ring_reg = ru_driver.register_memory(ru.memory().data(), ru.memory().size());
  EventBuildingStats ru_stats, evm_stats;
  RuAgent ru_agent(ru_engine, ru, *ring_reg, topo, ru_stats, nullptr);
  pull::PullEvmAgent evm(evm_engine, topo, evm_stats, false);
  evm.start(0);

  // What the EVM assigned (by BU and slot), and the events it took as finished.
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> slot_event;
  std::set<uint64_t> finished;
  uint64_t last_release = 0;
  uint64_t next_event = 0;

  constexpr size_t kRecord = 2 + sizeof(Command);
  for (size_t at = 0; at + kRecord <= size && at < 32 * kRecord; at += kRecord) {
    Command cmd;
    if (!decode(data + at + 2, sizeof cmd, &cmd)) continue;  // the engine refuses it
    const PeerId from = data[at + 1] % topo.nprocs;
    if (data[at] & 1) {
      const size_t before = evm_driver.sends.size();
      const auto held = slot_event.find({cmd.bu, cmd.slot});
      const bool acted = deliver(evm, from, cmd);
      if (!acted) FUZZ_ASSERT(evm_driver.sends.size() == before, "a refused credit sends nothing");
      if (acted && cmd.value && held != slot_event.end()) finished.insert(held->second);
      bool stopped = false;
      for (size_t i = before; i < evm_driver.sends.size(); ++i) {
        const Command& sent = evm_driver.commands[i];
        const PeerId to = evm_driver.sends[i];
        switch (sent.type) {
          case CommandType::assign:
            FUZZ_ASSERT(sent.bu < static_cast<uint32_t>(topo.nodes) && to == topo.bu_rank[sent.bu],
                        "an assignment goes to the BU it names");
            FUZZ_ASSERT(exclude || to == from, "under abort, to the rank whose credit it took");
            FUZZ_ASSERT(sent.value == last_release, "assigned under the last release");
            if (exclude && sent.event_id >= next_event)
              FUZZ_ASSERT(sent.event_id < last_release + slots,
                          "a new event is assigned only once its ring slot is released");
            next_event = std::max(next_event, sent.event_id + 1);
            slot_event[{sent.bu, sent.slot}] = sent.event_id;
            break;
          case CommandType::release:
            FUZZ_ASSERT(exclude, "releases only under on_failure exclude");
            FUZZ_ASSERT(to == topo.ru_rank[0] || to == topo.ru_rank[1], "a release goes to an RU");
            FUZZ_ASSERT(sent.value >= last_release && sent.value <= next_event,
                        "releases grow and stay within the events assigned");
            for (uint64_t e = last_release; e < sent.value; ++e)
              FUZZ_ASSERT(finished.count(e), "a release passes only finished events");
            last_release = sent.value;
            break;
          case CommandType::stop:
            stopped = true;
            break;
          default:
            FUZZ_ASSERT(false, "the EVM sends assignments, releases and stops only");
        }
      }
      if (stopped) {
        const std::vector<PeerId> sent(evm_driver.sends.begin() + before, evm_driver.sends.end());
        for (int n = 0; n < topo.nodes; ++n)
          FUZZ_ASSERT(std::count(sent.begin(), sent.end(), topo.ru_rank[n]) &&
                          std::count(sent.begin(), sent.end(), topo.bu_rank[n]),
                      "a stop goes to every RU and BU");
      }
    } else {
      const size_t before = ru_driver.sends.size();
      const uint64_t discarded = ru_stats.late_discarded;
      const uint64_t overruns = ru_stats.ring_overrun;
      const size_t parked = ru_agent.parked();
      const RingOwnership* ring = ru_agent.ownership();
      const uint64_t released = ring ? ring->released() : 0;
      const uint64_t frontier = ring ? ring->frontier() : 0;
      const bool acted = deliver(ru_agent, from, cmd);
      check_ring(ru_agent, ru_stats);
      const size_t sent = ru_driver.sends.size() - before;
      if (!acted) {
        FUZZ_ASSERT(sent == 0, "a refused command sends nothing");
        FUZZ_ASSERT(ru_stats.ring_overrun == overruns && ru_agent.parked() == parked,
                    "a refused command changes nothing");
        continue;
      }
      const bool sends =
          cmd.type == CommandType::pull_request || cmd.type == CommandType::push_assign;
      if (cmd.type == CommandType::release) {
        FUZZ_ASSERT(ring && from == topo.evm_rank, "only the EVM releases, only under exclude");
        FUZZ_ASSERT(cmd.value > released && cmd.value <= frontier && ring->released() == cmd.value,
                    "a release moves past the last, within the events asked for");
        FUZZ_ASSERT(ru_agent.parked() <= parked && sent <= parked - ru_agent.parked(),
                    "a release serves at most the requests that waited for it");
        continue;
      }
      if (cmd.type == CommandType::stop) {
        FUZZ_ASSERT(
            sent == 0 && ru_agent.parked() == 0 && ru_stats.ring_overrun == overruns + parked,
            "a stop counts each request still waiting for a release");
        continue;
      }
      FUZZ_ASSERT(sends || sent == 0, "only requests make the RU send");
      if (!sends) {
        FUZZ_ASSERT(ru_stats.ring_overrun == overruns, "only a served request overruns");
        continue;
      }
      if (ru_stats.late_discarded != discarded) {
        // A BU the EVM excluded (on_failure: exclude) is out of the run: its
        // requests are counted and dropped, nothing is sent.
        FUZZ_ASSERT(ru_stats.late_discarded == discarded + 1 && sent == 0,
                    "a request from an excluded BU is counted once and sends nothing");
        continue;
      }
      if (ru_agent.parked() != parked) {
        FUZZ_ASSERT(
            ring && ru_agent.parked() == parked + 1 && sent == 0 && cmd.value > ring->released(),
            "a request ahead of its release waits for it and sends nothing");
        continue;
      }
      FUZZ_ASSERT(ru_stats.ring_overrun <= overruns + 1, "a request overruns at most once");
      FUZZ_ASSERT(cmd.bu < static_cast<uint32_t>(topo.nodes), "the BU named exists");
      const PeerId to = topo.bu_rank[cmd.bu];
      if (to == 0)  // the BU on the RU's own rank: delivered without the driver
        FUZZ_ASSERT(sent == 0, "a local fragment bypasses the driver");
      else
        FUZZ_ASSERT(sent == 1 && ru_driver.sends.back() == to,
                    "the fragment goes to the BU the command names");
    }
  }
  return 0;
}
