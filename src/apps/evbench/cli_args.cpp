// Reading the options of run, sim, validate, drivers and config, and the
// messages for the mistakes a user makes with them.
#include "apps/evbench/cli_args.hpp"

#include <algorithm>

#include "apps/evbench/smpi_args.hpp"
#include "core/config_table.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"

namespace evb {
namespace {

// `--set KEY VALUE` and `--set KEY`: the '=' is missing. With a value after
// it, say the joined form; the value would otherwise be taken for CONFIG.
std::string set_without_equals(const std::string& command, const std::string& key,
                               const std::string* next) {
  const std::string value = next && !next->empty() && (*next)[0] != '-' ? *next : "VALUE";
  return command + ": --set takes KEY=VALUE: use --set " + key + "=" + value;
}

// "--peer-timeout=5s" -> "peer_timeout" when that is a configuration key
// (core key or driver option), else "".
std::string config_key_of_option(const std::string& option) {
  const auto start = option.find_first_not_of('-');
  if (start == std::string::npos) return "";  // "-", "--"
  std::string name = option.substr(start);
  name = name.substr(0, name.find('='));
  std::replace(name.begin(), name.end(), '-', '_');
  if (name.rfind("driver_options.", 0) == 0 && name.size() > 15) return name;
  for (const KeySpec& k : core_keys())
    if (k.path == name) return name;
  return "";
}

// An option evbench does not have. When it is a configuration key, say how
// keys are set: `--nodes 4` -> --set nodes=4.
std::string unknown_option(const std::string& command, const std::string& option,
                           const std::string* next) {
  const std::string key = config_key_of_option(option);
  if (key.empty()) return command + ": unknown option '" + option + "' (see evbench --help)";
  const auto eq = option.find('=');
  std::string value = "VALUE";
  if (eq != std::string::npos)
    value = option.substr(eq + 1);
  else if (next && !next->empty() && (*next)[0] != '-')
    value = *next;
  return command + ": unknown option " + option.substr(0, eq) +
         ": configuration keys go through --set " + key + "=" + value;
}

}  // namespace

const std::vector<std::string>& cli_commands() {
  static const std::vector<std::string> commands = {"run",    "sim",  "validate", "drivers",
                                                    "config", "topo", "help"};
  return commands;
}

void check_command(const std::string& command) {
  const auto& all = cli_commands();
  if (std::find(all.begin(), all.end(), command) != all.end()) return;
  if (command.size() > 1 && command[0] == '-')  // an option before any command
    throw UsageError("'" + command +
                     "' is not a command: evbench <command> [options] (see evbench --help)");
  // A configuration file where the command goes: the command was forgotten.
  const auto ends_with = [&](const char* tail) {
    const std::string t(tail);
    return command.size() > t.size() &&
           command.compare(command.size() - t.size(), t.size(), t) == 0;
  };
  if (ends_with(".yaml") || ends_with(".yml"))
    throw UsageError("'" + command + "' is a configuration, not a command: evbench run " + command +
                     " (or validate, sim)");
  const std::string hint = did_you_mean(command, all);
  throw UsageError("unknown command '" + command + "'" +
                   (hint.empty() ? " (see evbench --help)" : hint));
}

Args parse_args(const std::vector<std::string>& args, const std::string& command) {
  Args a;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& s = args[i];
    const std::string* next = i + 1 < args.size() ? &args[i + 1] : nullptr;
    auto need = [&](const char* what) -> std::string {
      if (!next) throw UsageError(command + ": " + s + " needs " + what);
      ++i;
      return *next;
    };
    if (s == "--set" || s.rfind("--set=", 0) == 0) {
      const bool joined = s != "--set";
      const std::string kv = joined ? s.substr(6) : need("KEY=VALUE");
      if (kv.find('=') == std::string::npos) {
        const std::string* after = joined ? next : (i + 1 < args.size() ? &args[i + 1] : nullptr);
        throw UsageError(set_without_equals(command, kv, after));
      }
      a.sets.push_back(kv);
    } else if (s == "--json" && (command == "config" || command == "drivers")) {
      a.json_reference = true;
    } else if (s == "--json") {
      a.json = need("a file name");
    } else if (s == "--platform" && command == "sim") {
      a.platform = need("a platform file");
    } else if (s == "--order" && command == "sim") {
      a.order = need("a rank order file");
    } else if (s == "--model" && command == "sim") {
      a.model = need("a model: fluid or credit");
      if (a.model != "fluid" && a.model != "credit")
        throw UsageError("--model " + a.model + ": the models are fluid and credit" +
                         did_you_mean(a.model, {"fluid", "credit"}));
    } else if (s == "--smpi-factors" && command == "sim") {
      a.smpi_factors = need("default or one");
      if (a.smpi_factors != "default" && a.smpi_factors != "one")
        throw UsageError("--smpi-factors " + a.smpi_factors + ": expected default or one" +
                         did_you_mean(a.smpi_factors, {"default", "one"}));
    } else if (s == "--calibrate" && command == "sim") {
      a.calibrate.push_back(need("a measured results JSON (evbench run --json)"));
    } else if (s == "--calibration" && command == "sim") {
      a.calibration = need("a calibration overlay file");
    } else if (s == "--simulated-on" && command == "run") {
      // Internal: `evbench sim` starts evbench-smpi with it, the name
      // escaped for smpirun's word splitting (smpi_args.hpp).
      a.simulated_on = smpi_arg_decode(need("a platform name"));
    } else if (s == "--quiet" || s == "-q") {
      a.quiet = true;
    } else if (s == "--explain") {
      a.explain = true;
    } else if (s == "--markdown") {
      a.markdown = true;
    } else if (s == "--resolved") {
      a.resolved = true;
    } else if (s == "--help" || s == "-h") {
      a.help = true;
    } else if (!s.empty() && s[0] == '-') {
      throw UsageError(unknown_option(command, s, next));
    } else if (a.config.empty()) {
      a.config = s;
    } else {
      throw UsageError(command + ": more than one CONFIG given ('" + a.config + "', '" + s + "')");
    }
  }
  return a;
}

}  // namespace evb
