// libFuzzer target: the stats the monitor hub on the EVM's rank takes from
// every rank (MonitorHub::on_command: per-BU, latency, matrix rows, per-RU
// and congestor `background` records, each with the interval it covers by
// the sender's clock) and the rates it publishes from them on its tick.
// The first byte picks the run: bit 0 layout split (RUs and BUs on their own
// ranks, else rubu), bit 1 kMatrixFullNodes + 1 nodes (the matrix by RU
// group, else 4 nodes); every run has one `background:` entry of 2 ranks
// (congestor ranks after the event builder's). Then records [sender, clock,
// 64 command bytes]: the command (its magic set: the engine refuses one
// without it before the hub sees it) is handed to the hub from rank
// sender % processes; bit 7 of the clock byte, and every 8th record, runs
// the hub's tick at a time advanced by an interval and (clock & 0x7f) / 32
// of one, so every tick publishes; the input ends with a tick.
//
// Asserts: the hub acts on a record or throws PeerError naming the sender
// (nothing else escapes); what it takes is a stats record of a known kind
// with a sound interval, from the rank that hosts the BU, RU or congestor
// member it names, a matrix row within the rows; a refused record changes
// no published figure (a second hub fed only the records the first one
// took, on the same engine and EVM, takes each of them and publishes the
// same figures); after every publish the snapshot keeps its shape (nodes
// BUs and RUs, rows x nodes matrix cells and rates, one background entry),
// every rate is finite and >= 0, a unit once reported stays reported, and
// the counters whose rates the hub measures (IntervalRate refuses one that
// goes back: BU and RU bytes, matrix cells, a congestor's messages and
// bytes, summed per entry) never decrease from one publish to the next.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "../tests/unit/support/recording_driver.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/messages.hpp"
#include "core/topology.hpp"
#include "fuzz_assert.hpp"
#include "protocols/event_building/event_building_live.hpp"
#include "protocols/monitor/interval_rate.hpp"
#include "protocols/monitor/monitor_hub.hpp"
#include "protocols/monitor/monitor_state.hpp"
#include "protocols/monitor/traffic.hpp"
#include "protocols/pull/pull.hpp"

namespace {

using namespace evb;

Config run_config(uint8_t flags) {
  Config c;
  c.nodes = (flags & 2) ? kMatrixFullNodes + 1 : 4;
  c.layout = (flags & 1) ? Layout::split : Layout::rubu;
  c.parallel = 1;
  c.credits = 2;
  c.fragment.size = 4096;
  c.fragment.max_size = 16384;
  c.ru_buffer = 1 << 20;
  c.monitor.port = 1;  // not served: the agents only
  BackgroundSpec b;
  b.ranks = 2;
  c.background.push_back(b);
  return c;
}

std::vector<std::string> rank_names(const Topology& t) {
  std::vector<std::string> n;
  for (int r = 0; r < t.processes(); ++r) n.push_back("rank " + std::to_string(r));
  return n;
}

// The EVM's rank, over a driver that records sends, with two monitor hubs
// (the hub reads the engine and the EVM, and changes them only for control
// requests, which no input makes): `taking` is handed every record,
// `taken` only those `taking` took.
struct EvmRank {
  explicit EvmRank(const Config& config) : c(config) {
    taking.start(0);
    taken.start(0);
  }
  Config c;
  Topology topo = make_topology(c);
  test_support::RecordingDriver driver;
  Engine engine{driver, topo.evm_rank, c, PollMode::busy, rank_names(topo)};
  EventBuildingStats stats;
  pull::PullEvmAgent evm{engine, topo, stats, false};
  MonitorState taking_state{"", ControlLimits{}, 4};
  MonitorState taken_state{"", ControlLimits{}, 4};
  MonitorHub taking{engine,
                    topo,
                    std::make_unique<evb::EventBuildingHubView>(engine, topo, evm, stats),
                    taking_state,
                    {"pull", "tcp", "send"},
                    true};
  MonitorHub taken{engine,
                   topo,
                   std::make_unique<evb::EventBuildingHubView>(engine, topo, evm, stats),
                   taken_state,
                   {"pull", "tcp", "send"},
                   true};
};

// Hands `cmd` to the hub; true when taken, false when refused.
bool deliver(MonitorHub& hub, PeerId from, const Command& cmd) {
  try {
    hub.on_command(from, cmd);
  } catch (const PeerError& e) {
    FUZZ_ASSERT(e.peer() == from, "a refusal names the sender");
    return false;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    FUZZ_ASSERT(false, "only PeerError escapes the hub");
  }
  return true;
}

// What a taken record must be: from the rank of the unit it names.
void check_taken(const Topology& topo, PeerId from, const Command& cmd) {
  FUZZ_ASSERT(cmd.type == CommandType::stats, "only stats are taken");
  const auto start = std::bit_cast<int64_t>(cmd.pad[0]);
  const auto end = std::bit_cast<int64_t>(cmd.pad[1]);
  FUZZ_ASSERT(interval_fault(start, end).empty(), "a taken record covers a sound interval");
  const auto nodes = static_cast<uint32_t>(topo.nodes);
  const auto rows = static_cast<uint32_t>(matrix_rows(topo.nodes));
  switch (static_cast<MonitorStat>(cmd.slot)) {
    case MonitorStat::matrix:
      FUZZ_ASSERT(cmd.count >= 1 && cmd.count <= 3 && cmd.ru < rows && cmd.ru + cmd.count <= rows,
                  "a taken matrix row lies within the rows");
      [[fallthrough]];
    case MonitorStat::bu:
    case MonitorStat::latency:
      FUZZ_ASSERT(cmd.bu < nodes && topo.bu_rank[cmd.bu] == from, "taken from its BU's rank");
      return;
    case MonitorStat::ru:
      FUZZ_ASSERT(cmd.ru < nodes && topo.ru_rank[cmd.ru] == from, "taken from its RU's rank");
      return;
    case MonitorStat::background: {
      const CongestorRank* k = topo.congestor(from);
      FUZZ_ASSERT(k && cmd.bu == static_cast<uint32_t>(k->entry) &&
                      cmd.ru == static_cast<uint32_t>(k->member) && cmd.count <= 1,
                  "taken from the congestor member it names");
      return;
    }
  }
  FUZZ_ASSERT(false, "a record of an unknown kind was taken");
}

bool rate_sound(double v) {
  return std::isfinite(v) && v >= 0;
}

// Every published figure of the stats, compared exactly (both hubs compute
// them with the same arithmetic from the same records).
bool same(const MonitorSnapshot& a, const MonitorSnapshot& b) {
  auto bu = [](const MonitorBu& u) {
    return std::tie(u.bytes, u.fragments, u.requests_in_flight, u.fu_queue, u.latency_p50_s,
                    u.latency_p90_s, u.latency_p99_s, u.integrity_errors, u.rate_bytes_per_s,
                    u.rate_interval_s, u.rate_carried, u.reported);
  };
  auto ru = [](const MonitorRu& u) {
    return std::tie(u.bytes, u.fragments, u.rate_bytes_per_s, u.rate_interval_s, u.rate_carried,
                    u.reported);
  };
  auto bg = [](const MonitorBackground& g) {
    return std::tie(g.ranks_reported, g.ranks_sending, g.messages, g.bytes, g.rate_bytes_per_s,
                    g.rate_carried);
  };
  if (a.eb.bus.size() != b.eb.bus.size() || a.eb.rus.size() != b.eb.rus.size() ||
      a.background.size() != b.background.size())
    return false;
  for (size_t i = 0; i < a.eb.bus.size(); ++i)
    if (bu(a.eb.bus[i]) != bu(b.eb.bus[i])) return false;
  for (size_t i = 0; i < a.eb.rus.size(); ++i)
    if (ru(a.eb.rus[i]) != ru(b.eb.rus[i])) return false;
  for (size_t i = 0; i < a.background.size(); ++i)
    if (bg(a.background[i]) != bg(b.background[i])) return false;
  return a.eb.matrix == b.eb.matrix && a.eb.matrix_rate == b.eb.matrix_rate;
}

// A publish of the hub that took everything `s` was built from, after `prev`.
void check_published(const Topology& topo, const MonitorSnapshot& s, const MonitorSnapshot& prev) {
  const auto nodes = static_cast<size_t>(topo.nodes);
  const size_t cells = matrix_rows(topo.nodes) * nodes;
  FUZZ_ASSERT(s.eb.bus.size() == nodes && s.eb.rus.size() == nodes && s.eb.matrix.size() == cells &&
                  s.eb.matrix_rate.size() == cells && s.background.size() == 1,
              "the snapshot keeps its shape");
  for (size_t i = 0; i < nodes; ++i) {
    const MonitorBu& b = s.eb.bus[i];
    const MonitorRu& r = s.eb.rus[i];
    FUZZ_ASSERT(rate_sound(b.rate_bytes_per_s) && rate_sound(b.rate_interval_s) &&
                    rate_sound(r.rate_bytes_per_s) && rate_sound(r.rate_interval_s),
                "BU and RU rates are finite and >= 0");
    FUZZ_ASSERT(
        (b.reported || !prev.eb.bus[i].reported) && (r.reported || !prev.eb.rus[i].reported),
        "a unit once reported stays reported");
    FUZZ_ASSERT(b.bytes >= prev.eb.bus[i].bytes && r.bytes >= prev.eb.rus[i].bytes,
                "a BU's or RU's byte counter never goes back");
  }
  for (size_t i = 0; i < cells; ++i) {
    FUZZ_ASSERT(rate_sound(s.eb.matrix_rate[i]), "matrix rates are finite and >= 0");
    FUZZ_ASSERT(s.eb.matrix[i] >= prev.eb.matrix[i], "a matrix cell never goes back");
  }
  const MonitorBackground& g = s.background[0];
  const MonitorBackground& was = prev.background[0];
  FUZZ_ASSERT(rate_sound(g.rate_bytes_per_s), "a background rate is finite and >= 0");
  FUZZ_ASSERT(g.ranks == 2 && g.ranks_sending <= g.ranks_reported && g.ranks_reported <= g.ranks &&
                  g.ranks_reported >= was.ranks_reported,
              "background ranks: sending <= reported <= ranks, reported only grows");
  FUZZ_ASSERT(g.messages >= was.messages && g.bytes >= was.bytes,
              "a background entry's counters never go back");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const Config c = run_config(data[0]);
  EvmRank r(c);
  const Topology& topo = r.topo;
  const int64_t interval = s_to_ns(c.report_interval_s);
  int64_t now = 0;
  MonitorSnapshot prev = r.taking_state.latest();

  auto tick = [&](uint8_t clock) {
    now += interval + (clock & 0x7f) * (interval / 32);
    r.taking.on_tick(now);
    r.taken.on_tick(now);
    const MonitorSnapshot s = r.taking_state.latest();
    FUZZ_ASSERT(same(s, r.taken_state.latest()), "a refused record changes no published figure");
    check_published(topo, s, prev);
    prev = s;
  };

  constexpr size_t kRecord = 2 + sizeof(Command);
  size_t n = 0;
  for (size_t at = 1; at + kRecord <= size && n < 64; at += kRecord, ++n) {
    const auto from = static_cast<PeerId>(data[at] % topo.processes());
    const uint8_t clock = data[at + 1];
    Command cmd;
    std::memcpy(&cmd, data + at + 2, sizeof cmd);
    cmd.magic = kCommandMagic;
    if (deliver(r.taking, from, cmd)) {
      check_taken(topo, from, cmd);
      FUZZ_ASSERT(deliver(r.taken, from, cmd), "a record taken once is taken after the same ones");
    }
    if ((clock & 0x80) || n % 8 == 7) tick(clock);
  }
  tick(0);
  return 0;
}
