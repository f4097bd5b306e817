#pragma once
// Internals of the configuration system, shared by src/core/config_*.cpp only.
//
// The key table (config_table.cpp) pairs every KeySpec with a setter and a
// getter on Config; the loader, the emitters (YAML, JSON) and the documentation
// generators all walk that one table. Values travel between the YAML parser
// and the bindings as a typed Value.
#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/capabilities.hpp"
#include "core/config.hpp"
#include "core/config_table.hpp"
#include "core/suggest.hpp"

namespace evb::config_detail {

// A parsed, validated value of one key; which member is meaningful depends on
// the key's KeyType (word: an accepted extra word such as `shift: scan`).
struct Value {
  int64_t integer = 0;  // integer
  uint64_t bytes = 0;   // size
  double real = 0.0;    // real, duration (seconds)
  bool boolean = false;
  std::string text;  // string, choice, or the word of an integer key
  std::vector<double> reals;
  std::map<std::string, std::string> map;
  std::vector<FaultSpec> faults;
  std::vector<ControlStep> controls;
  std::vector<BackgroundSpec> background;
};

// One core key: its spec and how it reads and writes Config.
struct CoreKey {
  KeySpec spec;
  void (*set)(Config&, const Value&);
  Value (*get)(const Config&);
};

// The table behind core_keys(), in documentation order.
const std::vector<CoreKey>& core_key_table();
const CoreKey* find_core_key(const std::string& path);

// Enum <-> YAML spelling, driven by the to_string() overloads in config.cpp.
template <class E>
struct EnumValues;
template <>
struct EnumValues<Layout> {
  static constexpr std::array values{Layout::rubu, Layout::split};
};
template <>
struct EnumValues<EvmPlacement> {
  static constexpr std::array values{EvmPlacement::dedicated, EvmPlacement::with_rank0};
};
template <>
struct EnumValues<Scheduling> {
  static constexpr std::array values{Scheduling::barrel, Scheduling::random, Scheduling::topology};
};
template <>
struct EnumValues<SizeDistribution> {
  static constexpr std::array values{SizeDistribution::fixed, SizeDistribution::uniform,
                                     SizeDistribution::lognormal};
};
template <>
struct EnumValues<PollMode> {
  static constexpr std::array values{PollMode::automatic, PollMode::busy, PollMode::yield,
                                     PollMode::block};
};

template <>
struct EnumValues<PageSize> {
  static constexpr std::array values{PageSize::normal, PageSize::huge};
};

template <>
struct EnumValues<DataPath> {
  static constexpr std::array values{DataPath::automatic, DataPath::send, DataPath::write};
};

template <>
struct EnumValues<LocalFragment> {
  static constexpr std::array values{LocalFragment::copy, LocalFragment::in_place};
};
template <>
struct EnumValues<VerifyPayload> {
  static constexpr std::array values{VerifyPayload::automatic, VerifyPayload::on,
                                     VerifyPayload::off};
};
template <>
struct EnumValues<Bind> {
  static constexpr std::array values{Bind::core, Bind::none};
};
template <>
struct EnumValues<OnFailure> {
  static constexpr std::array values{OnFailure::abort, OnFailure::exclude};
};
template <>
struct EnumValues<OnRuLoss> {
  static constexpr std::array values{OnRuLoss::stop, OnRuLoss::mask};
};

template <class E>
std::vector<std::string> enum_choices() {
  std::vector<std::string> out;
  for (E e : EnumValues<E>::values) out.emplace_back(to_string(e));
  return out;
}

// `text` has already been checked against enum_choices<E>().
template <class E>
E enum_from(const std::string& text) {
  for (E e : EnumValues<E>::values)
    if (text == to_string(e)) return e;
  return EnumValues<E>::values[0];
}

// ---- units (config_units.cpp): nullopt + reason instead of throwing ----
std::optional<uint64_t> try_parse_size(const std::string& text, std::string& reason);
// A bare number is seconds, below kBareSecondsLimit: `duration: 2000` (most
// likely meant as milliseconds: 33 min as seconds) must say its unit.
constexpr double kBareSecondsLimit = 1000;
std::optional<double> try_parse_duration(const std::string& text, std::string& reason);
// A duration as YAML text that try_parse_duration reads back: bare seconds
// ("0.5", "30"), with the unit from kBareSecondsLimit on ("7200s").
std::string duration_scalar(double seconds);
std::optional<int64_t> try_parse_integer(const std::string& text);
std::optional<double> try_parse_real(const std::string& text);
std::optional<bool> try_parse_boolean(const std::string& text);
std::string trim_blanks(const std::string& text);  // without leading/trailing spaces, tabs

// The unit words sizes and durations accept, in table order, with their
// factors (bytes; seconds). A bare number is bytes or seconds.
std::vector<std::pair<std::string, uint64_t>> size_units();
std::vector<std::pair<std::string, double>> duration_units();

std::string format_real(double v);            // shortest text that reads back exactly
std::string format_size(uint64_t bytes);      // "512 KiB", "1000 B"
std::string format_duration(double seconds);  // "250 ms", "3 s"
std::string type_name(KeyType type);          // "integer", "size", ...
std::string range_text(const KeySpec& spec);  // "1 .. 1024", "pull | push", ""

// The nearest candidate within a sensible distance (core/suggest.hpp).
using evb::did_you_mean;
using evb::edit_distance;
using evb::nearest;

// ---- values (config_values.cpp) ----
// Validates `node` against `spec`. On failure returns nullopt, sets `reason`
// (e.g. "expected an integer, got 'abc'") and points `where` at the offending
// node (a list element, say) when it has a position.
std::optional<Value> parse_value(const KeySpec& spec, const YAML::Node& node, std::string& reason,
                                 YAML::Mark& where);
Value parse_default(const KeySpec& spec);  // throws std::logic_error on a bad table
// The value as a YAML scalar in canonical form (sizes in bytes, durations in s).
std::string canonical_scalar(const KeySpec& spec, const Value& value);
// The value as JSON in the same canonical form (lists as arrays, maps as objects).
std::string json_value(const KeySpec& spec, const Value& value);

// ---- fault lists (config_faults.cpp) ----
// Parses `faults:`; the reason names the entry and key ("entry 2: for: ...").
std::optional<std::vector<FaultSpec>> parse_faults(const YAML::Node& node, std::string& reason,
                                                   YAML::Mark& where);
std::string faults_yaml(const std::vector<FaultSpec>& faults);  // flow style
std::string faults_json(const std::vector<FaultSpec>& faults);
// ---- control lists (config_control.cpp) ----
// Parses `control:` (each entry a map with `at` and the keys of a /control
// body); the reason names the entry ("entry 2: ...").
std::optional<std::vector<ControlStep>> parse_controls(const YAML::Node& node, std::string& reason,
                                                       YAML::Mark& where);
std::string controls_yaml(const std::vector<ControlStep>& steps);  // flow style
std::string controls_json(const std::vector<ControlStep>& steps);
// ---- background lists (config_background.cpp) ----
// Parses `background:` (each entry a congestor map); the reason names the
// entry and the field ("entry 2: size: ...").
std::optional<std::vector<BackgroundSpec>> parse_background(const YAML::Node& node,
                                                            std::string& reason, YAML::Mark& where);
// `ranks: P%`: P % of `nodes`, rounded to the nearest whole (halves up), at
// least 2 (every pattern needs a sender and a receiver).
int background_share_ranks(double hosts_percent, int nodes);
// Resolves every `ranks: P%` entry's ranks from c.nodes (after every key is
// read); "" or why an entry is refused once resolved ("entry N: ...").
std::string resolve_background_shares(Config& c);
std::string background_yaml(const std::vector<BackgroundSpec>& list);  // flow style
std::string background_json(const std::vector<BackgroundSpec>& list);
// What keeps the list from running with this configuration (the rule in
// config_checks.cpp): no event builder (`event_builder` false), an entry
// starting after the run's end, a write-incast without rdma_write.
std::optional<KeyProblem> background_problem(const Config& c, const PluginKeys& p,
                                             bool event_builder);
// "bu2" -> ('b', 2); "evm" -> ('e', 0); nullopt when not a unit name.
std::optional<std::pair<char, int>> parse_unit_name(const std::string& name);

// The spec with the run-time choices filled in: driver and bootstrap accept the
// names of the built plug-ins (any name when PluginKeys lists none).
KeySpec with_plugins(const KeySpec& spec, const PluginKeys& plugins);

// What the config's driver will report once started (nullopt: not built, or
// no plug-in information): PluginKeys::driver_capabilities.
std::optional<Capabilities> capabilities_of(const Config& c, const PluginKeys& p);
// The built drivers whose capabilities (with their default options) have
// `has`: the alternatives an error message names.
std::vector<std::string> drivers_with(const Config& c, const PluginKeys& p,
                                      bool (*has)(const Capabilities&));

// ---- consistency checks (config_checks.cpp) ----
// Rules between keys, checked after every key is read. `located(problem)`
// gives the error line: "FILE:LINE:COLUMN: KEY" (or "--set K=V: KEY") of the
// first of the problem's keys that was set explicitly (of the first key
// otherwise), then the reason.
using Locator = std::function<std::string(const KeyProblem& problem)>;
void check_consistency(const Config& config, const PluginKeys& plugins, const Locator& located);
// ---- where a broken rule is reported (config_blame.cpp) ----
// key -> where it was set ("FILE:LINE:COLUMN" or "--set K=V").
using Origins = std::map<std::string, std::string>;
// The error line of a broken rule: "WHERE: KEY: reason" at the first of its
// keys the user set (`user`); its keys the embedded default set
// (`defaults`) are named, to be set too. `name`: the document's name.
std::string located_problem(const KeyProblem& problem, const std::string& name, const Origins& user,
                            const Origins& defaults);
// An event builder on one node runs, but builds nothing from several
// sources: the warning that says so (nullopt otherwise).
std::optional<std::string> single_node_note(const Config& config, const PluginKeys& plugins);
// One line per rule, for the reference documentation.
const std::vector<std::string>& consistency_rules();

}  // namespace evb::config_detail
