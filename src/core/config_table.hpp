#pragma once
// The one table of configuration keys.
//
// Every key evbench accepts is declared once as a KeySpec: validation, the
// `evbench config --explain` text and docs/CONFIG.md are all generated from
// it. Drivers declare their own driver_options.* keys the same way and hand
// them over through PluginKeys.
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/capabilities.hpp"

namespace evb {

struct Config;

enum class KeyType {
  integer,          // 64-bit signed
  real,             // double
  boolean,          // true/false
  size,             // bytes: 512, 64KiB, 1.5MiB, 2GiB (B, KiB, MiB, GiB, also KB/MB/GB = 10^3..)
  duration,         // seconds: 250ms, 3s, 2min (bare number = seconds)
  string,           // free text
  choice,           // one of `choices`
  real_list,        // YAML sequence of reals
  string_map,       // YAML map of scalars (driver_options)
  fault_list,       // YAML sequence of fault maps (faults: {at: 2s, kill: bu2} ...)
  control_list,     // YAML sequence of timed changes (control: {at: 5s, parallel: 2} ...)
  background_list,  // YAML sequence of congestors (background: {pattern: incast} ...)
};

struct KeySpec {
  std::string path;  // dotted: "fragment.size"
  KeyType type = KeyType::string;
  std::string default_value;  // as written in YAML
  std::string unit;           // "B", "s", "events", "" ...
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // for choice (and accepted extra words, e.g. shift: scan)
  std::string doc;                   // one line
};

// A consistency rule between keys that a plug-in (a protocol) adds to the
// core ones: what it requires (one line, for docs/CONFIG.md) and the check,
// which names the keys involved (the first one set is reported) and why.
struct KeyProblem {
  std::vector<std::string> keys;
  std::string reason;
};
struct PluginKeys;
struct KeyRule {
  std::string doc;
  std::function<std::optional<KeyProblem>(const Config&, const PluginKeys&)> check;
};

// Names and option tables of the plug-ins that were built, for validation.
struct PluginKeys {
  std::vector<std::string> drivers;
  std::vector<std::string> bootstraps;
  std::map<std::string, std::vector<KeySpec>> driver_options;  // driver -> its keys
  // protocol name -> the keys it reads beyond those every run reads (each
  // protocol factory declares its own: src/protocols/*/*_register.cpp).
  std::map<std::string, std::vector<std::string>> protocol_keys;
  // The built protocols (registration order: the `protocol` key's choices),
  // those whose plan has an EVM rank (Config::with_evm), and the rules each
  // adds, checked only when it is the selected one.
  std::vector<std::string> protocols;
  std::map<std::string, std::string> protocol_summaries;  // one line each
  std::vector<std::string> protocols_with_evm;
  std::vector<std::string> event_builders;  // protocols with RUs, BUs and fragments
  std::map<std::string, std::vector<KeyRule>> protocol_rules;
  // What the config's driver will report once started with its
  // driver_options (the registry's DriverFactory::query; fields only known at
  // run time hold the most they can be, core/capabilities.hpp); nullopt when
  // that driver is not built. May be empty (no plug-in information).
  std::function<std::optional<Capabilities>(const Config&)> driver_capabilities;
  // Bootstraps under which the other ranks go on when one dies, and for the
  // others what happens instead.
  std::vector<std::string> bootstraps_surviving_rank_loss;
  std::map<std::string, std::string> bootstrap_loss_notes;
};

// The core keys (everything except driver_options.*), in documentation order.
const std::vector<KeySpec>& core_keys();

}  // namespace evb
