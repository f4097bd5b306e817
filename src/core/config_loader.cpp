// Loading a configuration: YAML file, then --set overrides, then the
// consistency rules. Every key goes through the one table (config_table.cpp);
// driver_options.* go through the selected driver's KeySpecs once the final
// driver is known. Errors read FILE:LINE:COLUMN: KEY: reason (1-based
// positions) or --set KEY=VALUE: KEY: reason. Errors of single keys (unknown
// key, bad value, out of range, set twice) are collected and reported
// together, one per line; the rules between keys run only once every key
// read well, and stop at the first broken one.
#include "core/config_loader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/command_batch.hpp"
#include "core/config_detail.hpp"
#include "core/error.hpp"
#include "core/ring_geometry.hpp"

namespace evb {
namespace config_detail {

KeySpec with_plugins(const KeySpec& spec, const PluginKeys& plugins) {
  KeySpec out = spec;
  if (spec.path == "driver") out.choices = plugins.drivers;
  if (spec.path == "bootstrap") out.choices = plugins.bootstraps;
  if (spec.path == "protocol") out.choices = plugins.protocols;
  if (out.type == KeyType::choice && out.choices.empty()) out.type = KeyType::string;
  return out;
}

namespace {

constexpr const char* kOptions = "driver_options";

std::string position(const std::string& name, const YAML::Mark& mark) {
  if (mark.is_null()) return name;
  return name + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// Where values come from: the file (positions from marks) or one --set.
struct Source {
  std::string file;       // file name (or stand-in) for the YAML document
  std::string override;   // "KEY=VALUE" when the value comes from --set
  bool defaults = false;  // the embedded default document, not the user's
  bool from_file() const { return override.empty(); }
  std::string at(const YAML::Mark& mark) const {
    return from_file() ? position(file, mark) : "--set " + override;
  }
};

std::vector<std::string> all_paths() {
  std::vector<std::string> out;
  for (const auto& k : core_key_table()) out.push_back(k.spec.path);
  return out;
}

bool is_group(const std::string& path) {
  for (const auto& k : core_key_table())
    if (k.spec.path.size() > path.size() && k.spec.path.compare(0, path.size(), path) == 0 &&
        k.spec.path[path.size()] == '.')
      return true;
  return false;
}

std::string group_members(const std::string& group) {
  std::string out;
  for (const auto& k : core_key_table())
    if (k.spec.path.rfind(group + ".", 0) == 0) out += (out.empty() ? "" : ", ") + k.spec.path;
  return out;
}

// One driver option as given, validated once the driver is final.
struct PendingOption {
  YAML::Node value;
  std::string key_at;    // "FILE:L:C" of the key, or "--set K=V"
  std::string value_at;  // same for the value
};

class Loader {
 public:
  Loader(std::string name, const PluginKeys& plugins) : name_(std::move(name)), plugins_(plugins) {
    for (const auto& k : core_key_table()) k.set(config_, parse_default(k.spec));
    config_.driver_options.clear();
    config_.source = name_;
  }

  // `defaults`: the document is the embedded default (configs/default.yaml
  // inside the binary): its keys are defaults, not keys the user set.
  void load_document(const std::string& text, bool defaults) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw ConfigError(position(name_, e.mark) + ": YAML syntax error: " + e.msg);
    }
    if (!root.IsDefined() || root.IsNull()) return;  // empty document: defaults
    if (!root.IsMap())
      throw ConfigError(position(name_, root.Mark()) +
                        ": the top level must be a map of key: value, got " +
                        (root.IsSequence() ? "a list" : "'" + root.Scalar() + "'"));
    walk(root, "", Source{name_, "", defaults});
  }

  void apply_override(const std::string& text) {
    const Source src{name_, text};
    const auto eq = text.find('=');
    const std::string key = eq == std::string::npos ? "" : trim_blanks(text.substr(0, eq));
    if (key.empty()) {
      errors_.push_back("--set " + text + ": expected KEY=VALUE (e.g. --set credits=4)");
      return;
    }
    YAML::Node value;
    try {
      value = YAML::Load(text.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      return fail(src.at(YAML::Mark::null_mark()), key, "cannot parse the value: " + e.msg);
    }
    assign(key, YAML::Mark::null_mark(), value, src);
  }

  Config finish() {
    // Driver options are checked against the driver's table only when the
    // driver itself was given well.
    if (!bad_keys_.count("driver")) resolve_driver_options();
    throw_collected();
    // Keys the user did not set adapt to the ones they did (`--set nodes=3`).
    if (!origin_.count("parallel")) config_.parallel = std::min(config_.parallel, config_.nodes);
    adapt_to_batch();
    // on_ru_loss mask goes on after a lost peer: on_failure exclude, unless
    // the user said otherwise (then the checks name both keys).
    if (config_.on_ru_loss == OnRuLoss::mask && !origin_.count("on_failure"))
      config_.on_failure = OnFailure::exclude;
    // on_failure exclude keeps every fragment until its event is built: a
    // ring the user did not size grows to hold what can be in flight.
    const bool factors_fit = config_.ru_rate_factors.empty() ||
                             config_.ru_rate_factors.size() == static_cast<size_t>(config_.nodes);
    if (!origin_.count("ru_buffer") && config_.on_failure == OnFailure::exclude && factors_fit)
      config_.ru_buffer = std::max(config_.ru_buffer, exclude_default_ru_buffer(config_));
    if (!origin_.count("fragment.spread"))
      config_.fragment.spread =
          default_spread(config_.fragment.distribution, config_.fragment.spread);
    merge_corruption();
    if (const std::string why = resolve_background_shares(config_); !why.empty())
      throw ConfigError(where_set("background") + ": background: " + why);
    if (!plugins_.protocols.empty())
      config_.with_evm =
          std::find(plugins_.protocols_with_evm.begin(), plugins_.protocols_with_evm.end(),
                    config_.protocol) != plugins_.protocols_with_evm.end();
    warn_unread_keys();
    if (const auto nodes = origin_.find("nodes"); nodes != origin_.end())
      if (const auto note = single_node_note(config_, plugins_))
        config_.warnings.push_back(nodes->second + ": nodes: " + *note);
    check_consistency(config_, plugins_, [this](const KeyProblem& p) {
      return located_problem(p, name_, origin_, default_origin_);
    });
    return config_;
  }

 private:
  // batch.events > 1: unset `credits` rise to two batches (one being built
  // while the next fills), unset `command_size` to hold a full list.
  void adapt_to_batch() {
    const int k = config_.batch.events;
    if (k <= 1) return;
    if (!origin_.count("credits")) config_.credits = std::max(config_.credits, 2 * k);
    if (!origin_.count("command_size"))
      config_.command_size = std::max<uint64_t>(config_.command_size, batch_message_size(k));
  }

  // Where a key was set: by the user, else by the embedded default.
  std::string where_set(const std::string& key) const {
    const auto it = origin_.find(key);
    if (it != origin_.end()) return it->second;
    const auto d = default_origin_.find(key);
    return d != default_origin_.end() ? d->second : name_;
  }

  // `faults: [{corrupt: P}]` and `fault.corrupt: P` are one setting: the
  // entry sets the key, and both given must agree.
  void merge_corruption() {
    for (const FaultSpec& f : config_.faults) {
      if (f.kind != FaultSpec::Kind::corrupt) continue;
      const auto key = origin_.find("fault.corrupt");
      if (key != origin_.end() && config_.corrupt_probability != f.probability)
        throw ConfigError(where_set("faults") + ": faults: the corrupt entry (" +
                          format_real(f.probability) + ") contradicts " + key->second +
                          ": fault.corrupt (" + format_real(config_.corrupt_probability) +
                          "); give one of them");
      config_.corrupt_probability = f.probability;
    }
  }

  // Keys some protocol reads, set explicitly, that the selected one does not.
  void warn_unread_keys() {
    const auto mine = plugins_.protocol_keys.find(config_.protocol);
    if (mine == plugins_.protocol_keys.end()) return;
    auto reads = [](const std::vector<std::string>& keys, const std::string& k) {
      return std::find(keys.begin(), keys.end(), k) != keys.end();
    };
    for (const auto& [key, where] : origin_) {
      if (reads(mine->second, key)) continue;
      std::string readers;
      for (const auto& [protocol, keys] : plugins_.protocol_keys)
        if (reads(keys, key)) readers += (readers.empty() ? "" : ", ") + protocol;
      if (!readers.empty())
        config_.warnings.push_back(where + ": " + key + ": not read by protocol " +
                                   config_.protocol + " (read by " + readers + ")");
    }
  }

  // Notes an error of one key; reading goes on with the next key.
  void fail(const std::string& at, const std::string& key, const std::string& reason) {
    errors_.push_back(at + ": " + key + ": " + reason);
    bad_keys_.insert(key);
  }

  // Every collected error, one per line, in the order found (the file's
  // keys in file order, then the --set overrides, then driver options).
  void throw_collected() const {
    if (errors_.empty()) return;
    std::string all;
    for (const auto& e : errors_) all += (all.empty() ? "" : "\n") + e;
    throw ConfigError(all);
  }

  void walk(const YAML::Node& map, const std::string& prefix, const Source& src) {
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) {
        fail(src.at(kv.first.Mark()), prefix.empty() ? "(top level)" : prefix,
             "keys must be plain names");
        continue;
      }
      const std::string& name = kv.first.Scalar();
      const std::string path = prefix.empty() ? name : prefix + "." + name;
      assign(path, kv.first.Mark(), kv.second, src);
    }
  }

  // Value position, falling back to the key's (null values have none).
  static YAML::Mark value_mark(const YAML::Node& value, const YAML::Mark& key_mark) {
    return value.IsDefined() && !value.IsNull() && !value.Mark().is_null() ? value.Mark()
                                                                           : key_mark;
  }

  void note_seen(const std::string& path, const YAML::Mark& key_mark, const Source& src) {
    if (!src.from_file()) return;
    auto [it, fresh] = seen_.emplace(path, key_mark);
    if (!fresh)
      fail(src.at(key_mark), path,
           "set twice (first on line " + std::to_string(it->second.line + 1) + ")");
  }

  void assign(const std::string& path, const YAML::Mark& key_mark, const YAML::Node& value,
              const Source& src) {
    const std::string options_prefix = std::string(kOptions) + ".";
    if (path == kOptions || path.rfind(options_prefix, 0) == 0) {
      if (value.IsMap() || (path == kOptions && (!value.IsDefined() || value.IsNull()))) {
        if (value.IsMap()) walk(value, path, src);
        return;
      }
      if (path == kOptions)
        return fail(src.at(value_mark(value, key_mark)), path, "expected a map of option: value");
      note_seen(path, key_mark, src);
      options_[path.substr(options_prefix.size())] =
          PendingOption{value, src.at(key_mark), src.at(value_mark(value, key_mark))};
      return;
    }
    if (const CoreKey* key = find_core_key(path)) {
      note_seen(path, key_mark, src);
      std::string reason;
      YAML::Mark where = value_mark(value, key_mark);
      auto v = parse_value(with_plugins(key->spec, plugins_), value, reason, where);
      if (!v) return fail(src.at(where), path, reason);
      key->set(config_, *v);
      (src.defaults ? default_origin_ : origin_)[path] = src.at(key_mark);
      return;
    }
    if (is_group(path)) {
      if (value.IsMap()) return walk(value, path, src);
      if (!value.IsDefined() || value.IsNull()) return;  // "fragment:" with nothing below
      return fail(src.at(value_mark(value, key_mark)), path,
                  "is a group of keys (" + group_members(path) + "), expected a map");
    }
    auto candidates = all_paths();
    candidates.emplace_back(kOptions);
    std::string hint = did_you_mean(path, candidates);
    if (hint.empty()) hint = " (see `evbench config --explain`)";
    fail(src.at(key_mark), path, "unknown key" + hint);
  }

  void resolve_driver_options() {
    const auto table_it = plugins_.driver_options.find(config_.driver);
    const bool validate = !plugins_.drivers.empty() || table_it != plugins_.driver_options.end();
    static const std::vector<KeySpec> kNone;
    const auto& specs = table_it == plugins_.driver_options.end() ? kNone : table_it->second;
    std::vector<std::string> names;
    for (const auto& s : specs) names.push_back(s.path);

    for (const auto& [name, pending] : options_) {
      const std::string path = std::string(kOptions) + "." + name;
      const KeySpec* spec = nullptr;
      for (const auto& s : specs)
        if (s.path == name) spec = &s;
      if (!spec && validate) {
        std::string reason = "unknown option of driver '" + config_.driver + "'";
        std::string hint = did_you_mean(name, names);
        if (specs.empty()) {
          hint = " (it has no options)";
        } else if (hint.empty()) {
          hint = " (its options:";
          for (const auto& n : names) hint += " " + n;
          hint += ")";
        }
        reason += hint;
        fail(pending.key_at, path, reason);
        continue;
      }
      if (!spec) {  // no plug-in information: keep the text as given
        if (!pending.value.IsDefined() || !pending.value.IsScalar()) {
          fail(pending.value_at, path, "expected a single value");
          continue;
        }
        config_.driver_options[name] = pending.value.Scalar();
        continue;
      }
      std::string reason;
      YAML::Mark where;
      auto v = parse_value(*spec, pending.value, reason, where);
      if (!v) {
        fail(pending.value_at, path, reason);
        continue;
      }
      config_.driver_options[name] = canonical_scalar(*spec, *v);
    }
    for (const auto& s : specs)
      if (!s.default_value.empty() && !config_.driver_options.count(s.path))
        config_.driver_options[s.path] = canonical_scalar(s, parse_default(s));
  }

  std::string name_;
  const PluginKeys& plugins_;
  Config config_;
  std::map<std::string, std::string> origin_;          // key the user set -> where it was last set
  std::map<std::string, std::string> default_origin_;  // key the embedded default set -> where
  std::map<std::string, YAML::Mark> seen_;             // keys set in the file
  std::map<std::string, PendingOption> options_;       // driver option -> value given
  std::vector<std::string> errors_;                    // errors of single keys, in order found
  std::set<std::string> bad_keys_;                     // the keys they name
};

}  // namespace
}  // namespace config_detail

Config load_config_text(const std::string& yaml_text, const std::string& name,
                        const std::vector<std::string>& overrides, const PluginKeys& plugins) {
  config_detail::Loader loader(name, plugins);
  loader.load_document(yaml_text, false);
  for (const auto& o : overrides) loader.apply_override(o);
  return loader.finish();
}

Config load_default_config_text(const std::string& yaml_text, const std::string& name,
                                const std::vector<std::string>& overrides,
                                const PluginKeys& plugins) {
  config_detail::Loader loader(name, plugins);
  loader.load_document(yaml_text, true);
  for (const auto& o : overrides) loader.apply_override(o);
  return loader.finish();
}

Config load_config(const std::string& path, const std::vector<std::string>& overrides,
                   const PluginKeys& plugins) {
  if (path.empty()) return load_config_text("", "<defaults>", overrides, plugins);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(path + ": cannot read the configuration: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot read the configuration: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return load_config_text(text.str(), path, overrides, plugins);
}

}  // namespace evb
