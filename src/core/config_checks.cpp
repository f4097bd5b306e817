// Consistency rules between keys, checked once every key (file, then --set
// overrides) has been read. Each rule names the keys it involves; the error
// points at the first of them that was set explicitly.
#include <arpa/inet.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/config_detail.hpp"
#include "core/error.hpp"
#include "core/ring_geometry.hpp"

namespace evb::config_detail {

std::optional<Capabilities> capabilities_of(const Config& c, const PluginKeys& p) {
  if (!p.driver_capabilities) return std::nullopt;
  return p.driver_capabilities(c);
}

std::vector<std::string> drivers_with(const Config& c, const PluginKeys& p,
                                      bool (*has)(const Capabilities&)) {
  std::vector<std::string> out;
  for (const auto& d : p.drivers) {
    Config other = c;
    other.driver = d;
    other.driver_options.clear();  // c's options belong to c.driver
    const auto caps = capabilities_of(other, p);
    if (caps && has(*caps)) out.push_back(d);
  }
  return out;
}

namespace {

using Failure = KeyProblem;  // the first of its keys that was set is reported

using Check = std::optional<Failure> (*)(const Config&, const PluginKeys&);

struct Rule {
  const char* doc;
  Check check;
};

std::string num(uint64_t v) {
  return std::to_string(v);
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// "pull or push": the built protocols that have some trait.
std::string either(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

// Whether the selected protocol builds events (RUs, BUs, fragments); any
// protocol does when no registry says (PluginKeys without protocols).
bool builds_events(const Config& c, const PluginKeys& p) {
  return p.protocols.empty() || contains(p.event_builders, c.protocol);
}

// Largest fragment an RU can produce, metadata included.
uint64_t max_fragment_bytes(const Config& c) {
  double factor = 1.0;
  for (double f : c.ru_rate_factors) factor = std::max(factor, f);
  const auto& f = c.fragment;
  double payload = 0;
  if (f.distribution == SizeDistribution::fixed)
    payload = std::ceil(static_cast<double>(f.size) * factor);
  else if (f.max_size != 0)
    payload = static_cast<double>(f.max_size);
  else
    payload = 4.0 * static_cast<double>(f.size) * factor;
  // A multi-event fragment carries fragment.events payloads of one event each.
  return static_cast<uint64_t>(payload) * f.events + f.meta_size * f.meta_segments;
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {"`driver` must be one of the drivers built into this binary",
       [](const Config& c, const PluginKeys& p) -> std::optional<Failure> {
         if (p.drivers.empty() || contains(p.drivers, c.driver)) return std::nullopt;
         return Failure{{"driver"},
                        "driver '" + c.driver + "' is not built here (built: " + join(p.drivers) +
                            ")" + did_you_mean(c.driver, p.drivers)};
       }},
      {"`bootstrap` must be one of the bootstraps built into this binary",
       [](const Config& c, const PluginKeys& p) -> std::optional<Failure> {
         if (p.bootstraps.empty() || contains(p.bootstraps, c.bootstrap)) return std::nullopt;
         return Failure{{"bootstrap"},
                        "bootstrap '" + c.bootstrap + "' is not built here (built: " +
                            join(p.bootstraps) + ")" + did_you_mean(c.bootstrap, p.bootstraps)};
       }},
      {"`scheduling: topology` needs `topology.platform`; `topology.order` needs a platform",
       [](const Config& c, const PluginKeys&) -> std::optional<Failure> {
         if (c.scheduling == Scheduling::topology && c.topology.platform.empty())
           return Failure{{"scheduling", "topology.platform"},
                          "topology needs topology.platform (a platform file, see "
                          "configs/platforms/)"};
         if (!c.topology.order.empty() && c.topology.platform.empty())
           return Failure{{"topology.order", "topology.platform"},
                          "an order file needs topology.platform too"};
         return std::nullopt;
       }},
      {"`ru_rate_factors` is empty or has one entry per RU (`nodes`)",
       [](const Config& c, const PluginKeys&) -> std::optional<Failure> {
         const size_t n = c.ru_rate_factors.size();
         if (n == 0 || n == static_cast<size_t>(c.nodes)) return std::nullopt;
         return Failure{{"ru_rate_factors", "nodes"},
                        "has " + num(n) + " entries but there are " + std::to_string(c.nodes) +
                            " RUs (nodes); give one factor per RU or none"};
       }},
      {"`fragment.max_size` (when not 0) is at least `fragment.size`",
       [](const Config& c, const PluginKeys&) -> std::optional<Failure> {
         const auto& f = c.fragment;
         if (f.max_size == 0 || f.max_size >= f.size) return std::nullopt;
         return Failure{{"fragment.max_size", "fragment.size"},
                        "fragment.max_size (" + num(f.max_size) +
                            " B) is smaller than fragment.size (" + num(f.size) + " B)"};
       }},
      {"uniform and lognormal `fragment.distribution` need `fragment.spread` > 0; uniform at "
       "most 1",
       [](const Config& c, const PluginKeys&) -> std::optional<Failure> {
         const auto& f = c.fragment;
         if (f.distribution == SizeDistribution::fixed) return std::nullopt;
         const std::string d = to_string(f.distribution);
         if (f.spread <= 0)
           return Failure{{"fragment.spread", "fragment.distribution"},
                          "distribution " + d + " needs fragment.spread > 0"};
         if (f.distribution == SizeDistribution::uniform && f.spread > 1)
           return Failure{{"fragment.spread", "fragment.distribution"},
                          "fragment.spread (" + format_real(f.spread) +
                              ") must be at most 1 for the uniform distribution"};
         return std::nullopt;
       }},
      {"`fragment.data_segments` does not exceed the bytes of a fragment",
       [](const Config& c, const PluginKeys&) -> std::optional<Failure> {
         const auto& f = c.fragment;
         if (f.data_segments <= f.size) return std::nullopt;
         return Failure{{"fragment.data_segments", "fragment.size"},
                        "fragment.data_segments (" + num(f.data_segments) +
                            ") exceeds fragment.size (" + num(f.size) + " B)"};
       }},
      {"`data_path: write` needs a `driver` that can rdma_write",
       [](const Config& c, const PluginKeys& p) -> std::optional<Failure> {
         if (c.data_path != DataPath::write) return std::nullopt;
         const auto caps = capabilities_of(c, p);
         if (!caps || caps->rdma_write) return std::nullopt;
         return Failure{{"data_path", "driver"},
                        "data_path write needs one-sided writes, and driver " + c.driver +
                            " has no rdma_write (use data_path send, or a driver with "
                            "rdma_write such as libfabric)"};
       }},
      {"`fragment.meta_size` and `fragment.meta_segments` are both 0 or both non-zero",
       [](const Config& c, const PluginKeys&) -> std::optional<Failure> {
         const auto& f = c.fragment;
         if ((f.meta_size == 0) == (f.meta_segments == 0)) return std::nullopt;
         if (f.meta_size == 0)
           return Failure{{"fragment.meta_segments", "fragment.meta_size"},
                          "fragment.meta_segments is " + num(f.meta_segments) +
                              " but fragment.meta_size is 0"};
         return Failure{
             {"fragment.meta_size", "fragment.meta_segments"},
             "fragment.meta_size is " + num(f.meta_size) + " B but fragment.meta_segments is 0"};
       }},
      {"`ru_buffer` holds at least one maximal fragment (largest payload + metadata)",
       [](const Config& c, const PluginKeys&) -> std::optional<Failure> {
         const uint64_t need = max_fragment_bytes(c);
         if (c.ru_buffer >= need) return std::nullopt;
         return Failure{{"ru_buffer", "fragment.size", "fragment.max_size"},
                        "ru_buffer (" + format_size(c.ru_buffer) +
                            ") is smaller than one maximal fragment (" + num(need) +
                            " B with metadata" +
                            (c.fragment.events > 1
                                 ? ", " + num(c.fragment.events) + " events (fragment.events)"
                                 : std::string()) +
                            ")"};
       }},
      {"`events` is a multiple of `fragment.events` (whole multi-event fragments are built)",
       [](const Config& c, const PluginKeys&) -> std::optional<Failure> {
         if (c.events % c.fragment.events == 0) return std::nullopt;
         return Failure{{"events", "fragment.events"},
                        "events (" + num(c.events) + ") is not a multiple of fragment.events (" +
                            num(c.fragment.events) + "): events are built in MEPs of " +
                            num(c.fragment.events)};
       }},
      {"with `events` = 0, `warmup` is shorter than `duration`",
       [](const Config& c, const PluginKeys&) -> std::optional<Failure> {
         if (c.events != 0 || c.warmup_s < c.duration_s) return std::nullopt;
         return Failure{{"warmup", "duration"},
                        "warmup (" + format_duration(c.warmup_s) +
                            ") must be shorter than duration (" + format_duration(c.duration_s) +
                            ")"};
       }},
      {"`on_ru_loss: mask` needs `on_failure: exclude` (implied when on_failure is not set) and "
       "an EVM (pull, push)",
       [](const Config& c, const PluginKeys& p) -> std::optional<Failure> {
         if (c.on_ru_loss != OnRuLoss::mask) return std::nullopt;
         if (c.on_failure != OnFailure::exclude)
           return Failure{{"on_ru_loss", "on_failure"},
                          std::string("on_ru_loss mask goes on building after a lost RU, which "
                                      "needs on_failure exclude; on_failure is ") +
                              to_string(c.on_failure)};
         if (!c.with_evm)
           return Failure{{"on_ru_loss", "protocol"},
                          "on_ru_loss mask needs the EVM to go on assigning; protocol " +
                              c.protocol + " has none (use " + either(p.protocols_with_evm) + ")"};
         return std::nullopt;
       }},
      {"`monitor.bind` is an IPv4 or IPv6 address (not a host name: the EVM's rank listens there)",
       [](const Config& c, const PluginKeys&) -> std::optional<Failure> {
         if (c.monitor.port == 0) return std::nullopt;
         in6_addr any{};
         if (::inet_pton(AF_INET, c.monitor.bind.c_str(), &any) == 1 ||
             ::inet_pton(AF_INET6, c.monitor.bind.c_str(), &any) == 1)
           return std::nullopt;
         return Failure{{"monitor.bind"},
                        "'" + c.monitor.bind +
                            "' is not an IP address (127.0.0.1: this host only; 0.0.0.0: every "
                            "network of the host; or one of its addresses)"};
       }},
      {"`monitor.port` and `control` need an EVM (pull, push): its rank serves the monitor "
       "and applies the changes",
       [](const Config& c, const PluginKeys& p) -> std::optional<Failure> {
         if ((c.monitor.port == 0 && c.control.empty()) || c.with_evm) return std::nullopt;
         const bool port = c.monitor.port != 0;
         return Failure{
             {port ? "monitor.port" : "control", "protocol"},
             std::string(port ? "the monitor is served" : "run-time changes are applied") +
                 " by the EVM's rank, which gathers the run's figures and applies "
                 "changes; protocol " +
                 c.protocol + " has none (use " + either(p.protocols_with_evm) + ")"};
       }},
      {"`on_failure: exclude` needs an EVM (pull, push) and a `driver` that survives a peer's "
       "death",
       [](const Config& c, const PluginKeys& p) -> std::optional<Failure> {
         if (c.on_failure != OnFailure::exclude) return std::nullopt;
         if (!c.with_evm)
           return Failure{{"on_failure", "protocol"},
                          "on_failure exclude reassigns a lost BU's events through the EVM; "
                          "protocol " +
                              c.protocol + " has none (use abort, or " +
                              either(p.protocols_with_evm) + ")"};
         if (p.drivers.empty()) return std::nullopt;
         if (const auto caps = capabilities_of(c, p); caps && caps->survives_peer_loss)
           return std::nullopt;
         const auto surviving =
             drivers_with(c, p, [](const Capabilities& k) { return k.survives_peer_loss; });
         // The driver survives with its default options, not with the ones set.
         if (std::find(surviving.begin(), surviving.end(), c.driver) != surviving.end())
           return Failure{{"on_failure", "driver_options"},
                          "on_failure exclude needs a driver that goes on when a peer dies; "
                          "driver " +
                              c.driver +
                              " ends the whole job with the driver_options set here (with its "
                              "defaults it goes on: docs/drivers/" +
                              c.driver + ".md)"};
         return Failure{{"on_failure", "driver"},
                        "on_failure exclude needs a driver that goes on when a peer dies; driver " +
                            c.driver + " ends the whole job (surviving: " + join(surviving) + ")"};
       }},
      {"`on_failure: exclude` needs a `bootstrap` under which the other ranks go on when one "
       "dies (local, env; not mpi)",
       [](const Config& c, const PluginKeys& p) -> std::optional<Failure> {
         if (c.on_failure != OnFailure::exclude) return std::nullopt;
         auto note = p.bootstrap_loss_notes.find(c.bootstrap);
         if (note == p.bootstrap_loss_notes.end()) return std::nullopt;
         return Failure{{"on_failure", "bootstrap"},
                        "on_failure exclude cannot survive a lost rank under bootstrap " +
                            c.bootstrap + ": " + note->second};
       }},
      {"corruption (fault.corrupt, fault.corrupt_every) is found by payload checks: not with "
       "verify.payload off",
       [](const Config& c, const PluginKeys&) -> std::optional<Failure> {
         if (c.verify_payload != VerifyPayload::off) return std::nullopt;
         if (c.corrupt_probability > 0)
           return Failure{{"fault.corrupt", "verify.payload"},
                          "fault.corrupt needs payload checks, and verify.payload is off"};
         if (c.corrupt_every > 0)
           return Failure{{"fault.corrupt_every", "verify.payload"},
                          "fault.corrupt_every needs payload checks, and verify.payload is off"};
         return std::nullopt;
       }},
      {"each of `faults` names a unit of this run (ru<N>, bu<N> below `nodes`; evm only with an "
       "EVM; a desync an RU of an event builder); under "
       "`on_failure: exclude` no kill hits rank 0, which writes the results",
       [](const Config& c, const PluginKeys& p) -> std::optional<Failure> {
         for (size_t i = 0; i < c.faults.size(); ++i) {
           const FaultSpec& f = c.faults[i];
           if (f.kind == FaultSpec::Kind::corrupt) {
             if (!builds_events(c, p))
               return Failure{{"faults", "protocol"},
                              "entry " + num(i + 1) + ": corrupt: protocol " + c.protocol +
                                  " builds no events"};
             continue;
           }
           const std::string at = "entry " + num(i + 1) + ": " + to_string(f.kind) + ": ";
           const auto unit = parse_unit_name(f.unit);
           if (!unit) return Failure{{"faults"}, at + "'" + f.unit + "' is not a unit"};
           if (unit->first == 'e' && !c.with_evm)
             return Failure{{"faults", "protocol"}, at + "protocol " + c.protocol + " has no EVM"};
           if (unit->first != 'e' && unit->second >= c.nodes)
             return Failure{{"faults", "nodes"},
                            at + f.unit + " does not exist with nodes " + std::to_string(c.nodes)};
           if (unit->first != 'e' && !builds_events(c, p))
             return Failure{{"faults", "protocol"},
                            at + "protocol " + c.protocol + " has no RUs or BUs"};
           const bool on_rank0 =
               unit->first == 'e'
                   ? c.evm == EvmPlacement::with_rank0
                   : unit->second == 0 && (c.layout == Layout::rubu || unit->first == 'r');
           if (f.kind == FaultSpec::Kind::kill && c.on_failure == OnFailure::exclude && on_rank0)
             return Failure{{"faults", "layout"},
                            at + f.unit +
                                " lives on rank 0, which gathers and writes the results: kill "
                                "another unit (layout split puts each BU on its own rank)"};
         }
         return std::nullopt;
       }},
      {"`background` runs beside a protocol that builds events (pull, push, ...), each entry "
       "starting before the run's end (warmup + duration); a write-incast needs a `driver` "
       "that can rdma_write",
       [](const Config& c, const PluginKeys& p) -> std::optional<Failure> {
         return background_problem(c, p, builds_events(c, p));
       }},
  };
  return table;
}

}  // namespace

void check_consistency(const Config& config, const PluginKeys& plugins, const Locator& located) {
  // The selected protocol's own rules first (ProtocolFactory::rules: what
  // it cannot do at all comes before how the keys fit), then the core ones.
  const auto mine = plugins.protocol_rules.find(config.protocol);
  if (mine != plugins.protocol_rules.end())
    for (const KeyRule& rule : mine->second) {
      if (auto failure = rule.check(config, plugins)) throw ConfigError(located(*failure));
    }
  for (const Rule& rule : rules()) {
    if (auto failure = rule.check(config, plugins)) throw ConfigError(located(*failure));
  }
}

std::optional<std::string> single_node_note(const Config& c, const PluginKeys& p) {
  if (c.nodes != 1 || p.protocols.empty() || !builds_events(c, p)) return std::nullopt;
  return "1 node builds each event from one fragment (the only RU's): this measures one RU "
         "feeding one BU, not event building, which needs nodes >= 2";
}

const std::vector<std::string>& consistency_rules() {
  static const std::vector<std::string> docs = [] {
    std::vector<std::string> out;
    for (const Rule& r : rules()) out.emplace_back(r.doc);
    return out;
  }();
  return docs;
}

}  // namespace evb::config_detail
