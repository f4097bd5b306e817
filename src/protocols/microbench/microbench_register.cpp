// The micro-benchmarks as plug-ins: one factory per pattern (one-to-one,
// many-to-one, the gathers, alltoall), all running run_microbench on the
// rank's driver. Their keys: `parallel` exchanges in flight per pair,
// `receive_slots` (the receiver's buffers per source), `shift` for
// one-to-one (and the platform a shift scan's predicted rates come from),
// `senders` (which RUs send), `data_path` (send, or one-sided writes into
// windows the receivers advertise); no credits, EVM, FUs or integrity
// sampling.
#include <algorithm>
#include <array>

#include "core/config_detail.hpp"
#include "core/error.hpp"
#include "protocols/api/protocol_registry.hpp"
#include "protocols/common/data_path.hpp"
#include "protocols/microbench/microbench.hpp"
#include "protocols/microbench/microbench_agent.hpp"
#include "protocols/microbench/microbench_detail.hpp"
#include "protocols/microbench/microbench_report.hpp"
#include "protocols/microbench/microbench_stats_fields.hpp"

namespace evb::micro {
namespace {

struct Named {
  Pattern pattern;
  const char* name;
  const char* summary;
};
constexpr std::array kPatterns{
    Named{Pattern::one_to_one, "one-to-one",
          "micro-benchmark: every node sends to node + shift (shift: scan, every shift in turn)"},
    Named{Pattern::many_to_one, "many-to-one", "micro-benchmark: every node sends to node 0"},
    Named{Pattern::gather, "gather",
          "micro-benchmark: every node sends to every node in barrel-shift order"},
    Named{Pattern::gather_cmd, "gather-cmd",
          "micro-benchmark: gather plus a command message (`command_size`) per exchange"},
    Named{Pattern::gather_cmd_meta, "gather-cmd-meta",
          "micro-benchmark: gather-cmd plus a metadata message per exchange"},
    Named{Pattern::alltoall, "alltoall",
          "baseline: the driver library's all-to-all (MPI_Alltoall) in a loop"},
};

// One rank's micro-benchmark: everything happens in run() (steps are
// separated by bootstrap barriers); what it counted goes to rank 0 as the
// statistics' own part.
class MicrobenchRun final : public ProtocolRun {
 public:
  explicit MicrobenchRun(const ProtocolContext& ctx) : ctx_(ctx) {}
  void set_up() override {}
  void run() override {
    anon_huge_bytes_ = run_microbench(ctx_.driver, ctx_.boot, ctx_.topo, ctx_.config, ctx_.mode,
                                      ctx_.peer_names, own_, ctx_.live);
  }
  void finish(RankStats& stats) override {
    stats.anon_huge_bytes = anon_huge_bytes_;
    encode_own_part(stats, own_);
  }

 private:
  ProtocolContext ctx_;
  MicrobenchStats own_;
  uint64_t anon_huge_bytes_ = 0;
};

// The send pool and receive arena (or all-to-all buffers) of a rank.
std::vector<MemoryNeed> memory_of(const Config& c, const RankRoles& roles) {
  std::vector<MemoryNeed> out;
  auto add = [&](const char* what, const char* keys, uint64_t bytes) {
    if (bytes > 0) out.push_back({what, keys, mapped_bytes(bytes, c.page_size)});
  };
  const uint64_t data = data_message_size(c);
  if (pattern_of(c) == Pattern::alltoall) {
    const uint64_t block = data * static_cast<uint64_t>(c.nodes);
    add("send pool", "ru_buffer", DataPool::size_for(c.ru_buffer, block));
    add("receive buffer", "nodes, fragment.size", block);
    return out;
  }
  if (roles.ru >= 0)
    add("send pool", "ru_buffer", DataPool::size_for(c.ru_buffer, data + meta_message_size(c)));
  add("receive arena", "nodes, parallel, receive_slots, fragment.size",
      MicroAgent::arena_bytes(c, max_sources_of(c, roles.bu)));
  return out;
}

// The rules every micro-benchmark adds.
std::vector<KeyRule> common_rules() {
  return {
      {"micro-benchmark protocols need at least 2 nodes (they measure transfers between nodes)",
       [](const Config& c, const PluginKeys&) -> std::optional<KeyProblem> {
         if (c.nodes >= 2) return std::nullopt;
         return KeyProblem{{"nodes", "protocol"},
                           "protocol " + c.protocol +
                               " measures transfers between nodes: it needs at least 2 nodes, "
                               "got " +
                               std::to_string(c.nodes)};
       }},
      {"micro-benchmarks send one message per transfer: `fragment.events` is 1",
       [](const Config& c, const PluginKeys&) -> std::optional<KeyProblem> {
         if (c.fragment.events == 1) return std::nullopt;
         return KeyProblem{{"fragment.events", "protocol"},
                           "protocol " + c.protocol +
                               " sends plain messages, not multi-event fragments: "
                               "fragment.events must be 1, got " +
                               std::to_string(c.fragment.events)};
       }},
      {"`senders` is at most `nodes`",
       [](const Config& c, const PluginKeys&) -> std::optional<KeyProblem> {
         if (c.senders <= c.nodes) return std::nullopt;
         return KeyProblem{{"senders", "nodes"},
                           "senders (" + std::to_string(c.senders) + ") must be at most nodes (" +
                               std::to_string(c.nodes) + ")"};
       }},
  };
}

KeyRule shift_below_nodes() {
  return {"`shift` is less than `nodes`",
          [](const Config& c, const PluginKeys&) -> std::optional<KeyProblem> {
            if (c.shift_scan || c.shift < c.nodes) return std::nullopt;
            return KeyProblem{{"shift", "nodes"},
                              "shift (" + std::to_string(c.shift) + ") must be less than nodes (" +
                                  std::to_string(c.nodes) + ")"};
          }};
}

// The all-to-all baseline is one library collective: there is no window to
// write into and nothing of the driver's rdma_write it could use.
KeyRule alltoall_sends() {
  return {"`alltoall` takes no `data_path: write` (a library collective, not one-sided writes)",
          [](const Config& c, const PluginKeys&) -> std::optional<KeyProblem> {
            if (c.data_path != DataPath::write) return std::nullopt;
            return KeyProblem{{"data_path", "protocol"},
                              "data_path write does not apply to protocol alltoall: it calls the "
                              "library's all-to-all collective (MPI_Alltoall), which has no "
                              "one-sided path; use data_path send or auto"};
          }};
}

// The collective receives every rank's block into one buffer per call:
// there are no receive slots to set.
KeyRule alltoall_has_no_slots() {
  return {"`alltoall` takes no `receive_slots` (the collective has one receive buffer)",
          [](const Config& c, const PluginKeys&) -> std::optional<KeyProblem> {
            if (c.receive_slots == 0) return std::nullopt;
            return KeyProblem{{"receive_slots", "protocol"},
                              "receive_slots does not apply to protocol alltoall: the library's "
                              "all-to-all receives every block of a call into one buffer; "
                              "leave receive_slots unset"};
          }};
}

KeyRule driver_has_alltoall() {
  return {
      "protocol `alltoall` (the library all-to-all baseline) needs a driver that has one "
      "(`mpi`)",
      [](const Config& c, const PluginKeys& p) -> std::optional<KeyProblem> {
        if (const auto caps = config_detail::capabilities_of(c, p); caps && caps->alltoall)
          return std::nullopt;
        std::string have;
        for (const auto& d :
             config_detail::drivers_with(c, p, [](const Capabilities& k) { return k.alltoall; }))
          have += (have.empty() ? "" : ", ") + d;
        return KeyProblem{{"protocol", "driver"},
                          "protocol alltoall needs a driver with a library all-to-all (" +
                              (have.empty() ? std::string("none built") : have) + "), driver is " +
                              c.driver};
      }};
}

// A node sending to itself has no route on a simulated platform (SMPI and
// the credit model both move it at no cost): a scan leaves shift 0 out,
// asked alone it is an error.
void check_one_to_one_simulated(const Config& c) {
  if (c.shift_scan || c.shift % c.nodes != 0) return;
  throw ConfigError("shift: " + std::to_string(c.shift) +
                    " sends every node's data to itself, which sim does not simulate (no "
                    "route from a host to itself: it would cost nothing); use a shift of 1.." +
                    std::to_string(c.nodes - 1) + " or scan");
}

ProtocolFactory factory_of(const Named& n) {
  ProtocolFactory f;
  f.name = n.name;
  f.summary = n.summary;
  f.rules = common_rules();
  switch (n.pattern) {
    case Pattern::one_to_one:
      f.keys = {"parallel", "receive_slots",     "shift",         "senders", "data_path",
                "seed",     "topology.platform", "topology.order"};
      f.rules.push_back(shift_below_nodes());
      f.steps = [](const Config& c) { return c.shift_scan ? c.nodes : 1; };
      f.check_simulated = check_one_to_one_simulated;
      break;
    case Pattern::alltoall:
      f.keys = {"seed"};
      f.rules.push_back(alltoall_sends());
      f.rules.push_back(alltoall_has_no_slots());
      f.rules.push_back(driver_has_alltoall());
      f.sim_waits_for_any = true;
      break;
    default:
      f.keys = {"parallel", "receive_slots", "senders", "data_path", "seed"};
  }
  f.memory_needs = memory_of;
  // The point-to-point patterns take the event builders' choice (write when
  // asked or, under auto, when the driver can); the collective only sends.
  f.resolve = [alltoall = n.pattern == Pattern::alltoall](const Config& config,
                                                          const Driver& driver) {
    Config resolved = config;
    resolved.data_path = alltoall ? DataPath::send : resolve_data_path(config, driver);
    resolved.shared_memory_path = driver.capabilities().shared_memory_path;
    resolved.read_rendezvous_above = driver.capabilities().read_rendezvous_above;
    return resolved;
  };
  f.create = [](const ProtocolContext& ctx) -> std::unique_ptr<ProtocolRun> {
    return std::make_unique<MicrobenchRun>(ctx);
  };
  f.report = std::make_shared<MicrobenchReport>();
  return f;
}

}  // namespace

Pattern pattern_of(const Config& config) {
  for (const Named& n : kPatterns)
    if (config.protocol == n.name) return n.pattern;
  throw ConfigError("protocol " + config.protocol + " is not a micro-benchmark");
}

}  // namespace evb::micro

void evb_register_protocol_microbench(evb::ProtocolRegistry& registry) {
  for (const auto& named : evb::micro::kPatterns) registry.add(evb::micro::factory_of(named));
}
