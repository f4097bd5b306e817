// Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/) from
// valid messages made by the project's own encoders, so the seeds follow the
// wire formats when they change: scripts/fuzz.sh --seeds runs it.
//   evbench_fuzz_seeds OUTDIR
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "apps/evbench/cli.hpp"
#include "apps/evbench/default_config.hpp"
#include "bootstrap/rendezvous_protocol.hpp"
#include "core/command_batch.hpp"
#include "core/config_loader.hpp"
#include "core/crc32c.hpp"
#include "core/messages.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/tcp/tcp_wire.hpp"

namespace {

namespace fs = std::filesystem;
using namespace evb;

void write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

template <typename T>
std::string raw(const T& v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof v);
}

// Records of fuzz_command: agent (0 RU on rank 0, 1 EVM on rank 2), sender
// rank, the command.
std::string record(uint8_t agent, uint8_t from, const Command& c) {
  return std::string{static_cast<char>(agent), static_cast<char>(from)} + raw(c);
}

void command_seeds(const fs::path& dir) {
  using T = CommandType;
  auto cmd = [](T t, uint32_t bu, uint32_t slot, uint64_t event, uint64_t value) {
    return Command{.type = t, .event_id = event, .slot = slot, .bu = bu, .ru = 0, .value = value};
  };
  write(dir, "ru_pull",
        record(0, 1, cmd(T::pull_request, 1, 0, 5, 0)) +
            record(0, 0, cmd(T::pull_request, 0, 1, 6, 0)));
  write(dir, "ru_push_stop",
        record(0, 2, cmd(T::push_assign, 1, 1, 5, 0)) + record(0, 2, cmd(T::stop, 0, 0, 0, 0)));
  write(dir, "ru_bu_done",
        record(0, 0, cmd(T::bu_done, 0, 0, 0, 0)) + record(0, 1, cmd(T::bu_done, 1, 0, 0, 0)));
  write(dir, "evm_credits",
        record(1, 0, cmd(T::credit, 0, 0, 0, 0)) + record(1, 1, cmd(T::credit, 1, 0, 0, 0)) +
            record(1, 0, cmd(T::credit, 0, 0, 0, 1)) + record(1, 0, cmd(T::credit, 0, 1, 0, 0)));
  // on_failure exclude (bit 1 of the first agent byte): RU 0 serves events 0
  // and 1, a request made under release 1 waits for it, the release frees
  // event 0's slot and serves it; then the stop.
  auto req = [&](uint64_t event, uint32_t slot, uint64_t released) {
    return cmd(T::pull_request, 1, slot, event, released);
  };
  write(dir, "ru_exclude_release",
        record(2, 1, req(0, 0, 0)) + record(2, 1, req(1, 1, 0)) + record(2, 1, req(4, 0, 1)) +
            record(2, 2, cmd(T::release, 0, 0, 0, 1)) + record(2, 2, cmd(T::stop, 0, 0, 0, 0)));
  // The EVM under exclude with rings of 4 slots: four offers take events
  // 0..3, finishing event 1 holds event 4 back, finishing event 0 releases
  // events below 2 and serves the waiting slots.
  write(dir, "evm_exclude_backpressure",
        record(3, 0, cmd(T::credit, 0, 0, 0, 0)) + record(3, 1, cmd(T::credit, 1, 0, 0, 0)) +
            record(3, 0, cmd(T::credit, 0, 1, 0, 0)) + record(3, 1, cmd(T::credit, 1, 1, 0, 0)) +
            record(3, 1, cmd(T::credit, 1, 0, 1, 1)) + record(3, 0, cmd(T::credit, 0, 0, 0, 1)));
  // One command alone, in a larger command_size slot: padding behind it.
  write(dir, "padded", raw(cmd(T::credit, 0, 0, 0, 0)) + std::string(64, '\0'));
}

// Messages of fuzz_command_batch: batch.events (less one) in a byte, then a
// batch as the Engine sends it, padded to command_size or not.
void command_batch_seeds(const fs::path& dir) {
  auto batch = [](uint8_t max_events, CommandType type, int n, size_t pad) {
    std::vector<Command> cmds;
    for (int i = 0; i < n; ++i)
      cmds.push_back(Command{.type = type,
                             .event_id = static_cast<uint64_t>(i),
                             .slot = static_cast<uint32_t>(i),
                             .bu = 1,
                             .value = 1});
    std::string bytes(batch_message_size(n), '\0');
    encode_batch(cmds, bytes.data());
    return std::string(1, static_cast<char>(max_events - 1)) + bytes + std::string(pad, '\0');
  };
  write(dir, "credits16", batch(16, CommandType::credit, 16, 0));
  write(dir, "assign3_padded", batch(16, CommandType::assign, 3, 64 * 13));
  write(dir, "requests7", batch(7, CommandType::pull_request, 7, 0));
  write(dir, "push_assign2", batch(64, CommandType::push_assign, 2, 0));
}

// A fragment as fuzz_fragment_header's configuration expects it (2 x 8 B of
// metadata), behind the target's flag byte.
std::string fragment(uint8_t flags, uint32_t ru, uint64_t payload) {
  std::string body(16 + payload, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>(i * 7 + ru);
  FragmentHeader h{};
  h.event_id = 42;
  h.ru = ru;
  h.bu = 1;
  h.sequence = 5;
  h.payload_size = payload;
  h.meta_segments = 2;
  h.meta_size = 8;
  h.crc32c = crc32c(body.data(), body.size());
  h.header_crc = header_checksum(h);
  return std::string(1, static_cast<char>(flags)) + raw(h) + body;
}

void fragment_seeds(const fs::path& dir) {
  write(dir, "ru0", fragment(0x00, 0, 100));
  write(dir, "ru1", fragment(0x10, 1, 256));
  write(dir, "ru0_empty", fragment(0x00, 0, 0));
  write(dir, "ru1_from_header", fragment(0x18, 1, 32));
  write(dir, "repairs", fragment(0x07, 0, 64));
}

std::string frame(tcp::FrameKind kind, uint32_t tag, const std::string& payload) {
  tcp::FrameHeader h{};
  h.kind = static_cast<uint16_t>(kind);
  h.tag = tag;
  h.length = payload.size();
  return raw(h) + payload;
}

void tcp_seeds(const fs::path& dir) {
  // Policy bytes: max_message 2^30, receives of up to 200 B, no refusals,
  // a split seed; then the stream.
  const std::string policy = {30, static_cast<char>(200), 0, 17};
  const std::string data = frame(tcp::FrameKind::data, 9, "hello") +
                           frame(tcp::FrameKind::data, 12, std::string(64, 'x')) +
                           frame(tcp::FrameKind::data, 4, "");
  write(dir, "frames", policy + data);
  write(dir, "frames_bye", policy + data + frame(tcp::FrameKind::bye, 0, ""));
  write(dir, "truncating",
        std::string{30, 8, 0, 3} + frame(tcp::FrameKind::data, 1, std::string(300, 'y')));
  write(dir, "refusing",
        std::string{30, 64, static_cast<char>(130), 5} +
            frame(tcp::FrameKind::data, 1, std::string(200, 'z')));
  write(dir, "too_long",
        std::string{4, 64, 0, 5} + frame(tcp::FrameKind::data, 1, std::string(17, 'w')));
}

void rendezvous_seeds(const fs::path& dir) {
  using namespace evb::boot;
  Hello hello;
  hello.token = "0123456789abcdef";
  hello.rank = 1;
  hello.size = 4;
  hello.hostname = "node1";
  write(dir, "hello", encode_hello(hello));
  write(dir, "hello_contrib_goodbye",
        encode_hello(hello) + encode_contrib({.seq = 1, .op = Op::allgather, .data = "addr"}) +
            encode_goodbye());
  write(dir, "abort", encode_abort("stopped by the user"));
  write(dir, "welcome", encode_welcome({"node0", "node1"}));
  write(dir, "reject", encode_reject("refused"));
  write(dir, "result", encode_result({.seq = 2, .values = {"a", "bc", ""}}));
  write(dir, "fail", encode_fail({.kind = FailKind::peer_lost, .rank = 2, .message = "gone"}));
  write(dir, "bye", encode_bye());
}

void config_seeds(const fs::path& dir) {
  PluginRegistry registry;
  register_builtin_plugins(registry);
  ProtocolRegistry protocols;
  register_builtin_protocols(protocols);
  const PluginKeys keys = plugin_keys(registry, protocols);
  write(dir, "default", default_config_yaml());
  write(dir, "resolved", to_yaml(load_config_text(default_config_yaml(), "default", {}, keys)));
  write(dir, "small",
        "nodes: 3\nprotocol: push\nfragment: {size: 4KiB, distribution: lognormal}\n");
  write(dir, "flow", "{nodes: 2, duration: 250ms, credits: 4, layout: {ranks_per_node: 2}}\n");
  write(dir, "faults",
        "on_failure: exclude\nlayout: split\nfault.corrupt: 0.01\nfaults:\n"
        "  - {corrupt: 0.01}\n  - {at: 1s, stall: ru1, for: 800ms}\n"
        "  - {at: 2s, kill: bu2}\n  - {at: 3s, delay: ru0, by: 5ms, for: 1s}\n");
}

// Bodies of POST /control (fuzz_control).
void control_seeds(const fs::path& dir) {
  write(dir, "parallel", "{\"parallel\": 2}");
  write(dir, "several", "{\"credits\": 1, \"fu.processing_time\": \"2ms\"}");
  write(dir, "factors", "ru_rate_factors: [1, 0.5, 1]\n");
  write(dir, "pause", "{\"pause\": true}");
  write(dir, "bad", "{\"credits\": 9, \"resume\": true}");
}

// Records of fuzz_monitor_stats: a config byte (0: 4 nodes, rubu: rank n
// hosts RU n and BU n, the EVM rank 4, the background entry's ranks 5 and
// 6; 2: 65 nodes, the matrix by RU group), then [sender, clock (bit 7: a
// tick after it), the stats record covering [start_s, end_s] of its clock].
std::string stat(uint8_t from, bool tick, MonitorStat kind, uint32_t bu, uint32_t ru,
                 uint32_t count, uint64_t event_id, uint64_t bytes, uint64_t value, int start_s,
                 int end_s) {
  Command c{.type = CommandType::stats,
            .event_id = event_id,
            .slot = static_cast<uint32_t>(kind),
            .bu = bu,
            .ru = ru,
            .count = count,
            .bytes = bytes,
            .value = value};
  c.pad[0] = static_cast<uint64_t>(start_s) * 1000000000u;
  c.pad[1] = static_cast<uint64_t>(end_s) * 1000000000u;
  return std::string{static_cast<char>(from), static_cast<char>(tick ? 0x80 : 0)} + raw(c);
}

void monitor_stats_seeds(const fs::path& dir) {
  using S = MonitorStat;
  const std::string small(1, '\0'), grouped(1, '\2');
  // BU 0 (rank 0): two intervals of its clock, its latency, a tick after each.
  write(dir, "bu_report",
        small + stat(0, false, S::bu, 0, 0, 2, 10, 1000, 0, 0, 1) +
            stat(0, true, S::latency, 0, 0, 0, 1000000, 2000000, 5000000, 0, 1) +
            stat(0, true, S::bu, 0, 0, 1, 30, 3000, 0, 1, 2));
  // BU 1's rows: RUs 0-2 and RU 3, twice.
  write(dir, "matrix_row",
        small + stat(1, false, S::matrix, 1, 0, 3, 100, 200, 300, 0, 1) +
            stat(1, true, S::matrix, 1, 3, 1, 400, 0, 0, 0, 1) +
            stat(1, false, S::matrix, 1, 0, 3, 150, 260, 390, 1, 2) +
            stat(1, true, S::matrix, 1, 3, 1, 480, 0, 0, 1, 2));
  // RU 2 (rank 2), twice.
  write(dir, "ru_report",
        small + stat(2, true, S::ru, 0, 2, 0, 8, 8000, 0, 0, 1) +
            stat(2, true, S::ru, 0, 2, 0, 20, 20000, 0, 1, 2));
  // The background entry's members 0 and 1 (ranks 5, 6), sending, twice each.
  write(dir, "background",
        small + stat(5, false, S::background, 0, 0, 1, 4, 4096, 1024, 0, 1) +
            stat(6, true, S::background, 0, 1, 1, 2, 2048, 0, 0, 1) +
            stat(5, false, S::background, 0, 0, 1, 9, 9216, 2048, 1, 2) +
            stat(6, true, S::background, 0, 1, 0, 3, 3072, 0, 1, 2));
  // 65 nodes: BU 9 (rank 9) reports rows of RU groups 0-2, and its bytes.
  write(dir, "grouped_matrix",
        grouped + stat(9, false, S::matrix, 9, 0, 3, 700, 700, 700, 0, 1) +
            stat(9, true, S::bu, 9, 0, 0, 3, 2100, 0, 0, 1));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  const fs::path out = argv[1];
  command_seeds(out / "command");
  command_batch_seeds(out / "command_batch");
  fragment_seeds(out / "fragment_header");
  tcp_seeds(out / "tcp_framing");
  rendezvous_seeds(out / "rendezvous");
  config_seeds(out / "config");
  control_seeds(out / "control");
  monitor_stats_seeds(out / "monitor_stats");
  return 0;
}
