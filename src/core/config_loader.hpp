#pragma once
// Loading, validating and describing configurations.
//
// load_config() reads YAML, applies --set overrides and validates everything
// before any process starts. Errors are evb::ConfigError whose message reads
//   FILE:LINE:COLUMN: KEY: reason [(did you mean 'x'?)]
// (overrides are reported as --set KEY=VALUE: KEY: reason).
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"

namespace evb {

// path empty: built-in defaults only. overrides: "key.path=value" strings.
Config load_config(const std::string& path, const std::vector<std::string>& overrides,
                   const PluginKeys& plugins);

// Same, from YAML text (tests); `name` stands in for the file name in messages.
Config load_config_text(const std::string& yaml_text, const std::string& name,
                        const std::vector<std::string>& overrides, const PluginKeys& plugins);

// The embedded default configuration (configs/default.yaml inside the
// binary) with the user's overrides: its keys count as defaults, not as keys
// the user set. A broken rule is reported at the --set the user gave, naming
// the default's key to set too; a key the selected protocol does not read
// draws no warning; keys the user did not set adapt (parallel to nodes).
Config load_default_config_text(const std::string& yaml_text, const std::string& name,
                                const std::vector<std::string>& overrides,
                                const PluginKeys& plugins);

// The fully resolved configuration as YAML (every key, defaults included).
std::string to_yaml(const Config& config);

// The same as a JSON object (for results documents).
std::string to_json(const Config& config);

// Text for `evbench config --explain`, Markdown for docs/CONFIG.md, and JSON
// for tools (`evbench config --json`: every key with its type, default in
// canonical units, unit, range, choices and doc; the drivers' option tables;
// the size and duration unit words with their factors).
std::string explain_text(const PluginKeys& plugins);
std::string reference_markdown(const PluginKeys& plugins);
std::string reference_json(const PluginKeys& plugins);

// Parsers shared with the CLI (throw ConfigError with `what` in the message).
uint64_t parse_size(const std::string& text, const std::string& what);
double parse_duration(const std::string& text, const std::string& what);
bool parse_boolean(const std::string& text, const std::string& what);  // true/false/yes/no/on/off

}  // namespace evb
