#pragma once
// PushBuHarness: a PUSH BU agent of rank 0 driven without a network (a
// RecordingDriver), for the out-of-sync tests: 2 nodes in layout rubu and a
// dedicated EVM (ranks 0 and 1 host RU+BU n, rank 2 the EVM), started, and
// keeping the fragments it names out of sync in a directory of its own,
// removed with the harness. `arrive` delivers an RU's fragment of an event
// (a MEP when the config packs) into the BU's window as the network would.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "core/topology.hpp"
#include "protocols/push/push.hpp"
#include "recording_driver.hpp"
#include "units/fragment_sizes.hpp"
#include "units/readout_unit.hpp"

namespace evb::test_support {

class PushBuHarness {
 public:
  PushBuHarness(const Config& c, const std::string& dir_tag)
      : config(c),
        topo(make_topology(c)),
        engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"}),
        bu(0, c),
        fus(0, c),
        windows(driver.register_memory(bu.memory().data(), bu.memory().size())),
        agent(engine, bu, fus, *windows, topo, stats, false, false),
        dir(std::filesystem::temp_directory_path() / (dir_tag + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir);
    agent.keep_fragments_in(dir.string());
    agent.start(0);
  }
  ~PushBuHarness() { std::filesystem::remove_all(dir); }
  PushBuHarness(const PushBuHarness&) = delete;
  PushBuHarness& operator=(const PushBuHarness&) = delete;

  // RU `ru`'s fragment of `event` (rank `from`) into slot 0, completed.
  void arrive(ReadoutUnit& ru, PeerId from, uint64_t event) {
    const FragmentView f = ru.fragment(event);
    uint8_t* w = bu.window(0, ru.index());
    ru.fill_header(*reinterpret_cast<FragmentHeader*>(w), f, event, 0);
    const size_t body = meta_bytes(config) + f.payload_size;
    std::memcpy(w + ru.head_bytes(), f.meta, body);
    const uint64_t cookie = Engine::make_cookie(1, static_cast<uint64_t>(ru.index()));
    agent.on_completion(
        Completion{cookie, OpType::recv, OpStatus::ok, from, data_tag(0), ru.head_bytes() + body});
  }

  Config config;
  Topology topo;
  RecordingDriver driver;
  Engine engine;
  EventBuildingStats stats;
  BuilderUnit bu;
  FilterUnits fus;
  RegistrationPtr windows;
  push::PushBuAgent agent;
  std::filesystem::path dir;
};

}  // namespace evb::test_support
