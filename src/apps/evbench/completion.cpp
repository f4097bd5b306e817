#include "apps/evbench/completion.hpp"

#include <map>
#include <set>
#include <sstream>

#include "apps/evbench/manpage.hpp"
#include "core/config_detail.hpp"

namespace evb {
namespace {

// Words joined by spaces inside single quotes, for `echo '...'` / compgen -W.
std::string quoted(const std::vector<std::string>& words) {
  std::string out = "'";
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) out += ' ';
    for (char c : words[i]) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

// What follows an option: a file name, a --set KEY=VALUE, another word (a
// number, a name) or nothing.
std::string argument_kind(const std::string& option, const std::string& placeholder) {
  if (placeholder.empty()) return "none";
  if (option == "--set") return "key";
  if (placeholder == "FILE" || placeholder == "CONFIG" || placeholder == "PLATFORM") return "file";
  return "word";
}

std::vector<std::string> value_words(const KeySpec& spec) {
  if (spec.type == KeyType::boolean) return {"true", "false"};
  return spec.choices;  // choice keys, and the extra words of others (shift: scan)
}

// The command dispatch of the script: options per command, what each option
// takes, whether the command's operand is a file.
void command_functions(std::string& out, const UsageDoc& doc) {
  std::vector<std::string> names;
  std::string options, arguments, operands;
  for (const auto& c : doc.commands) {
    if (c.name[0] == '-') continue;
    names.push_back(c.name);
    std::vector<std::string> opts;
    for (const auto& [opt, placeholder] : c.options) {
      opts.push_back(opt);
      const std::string kind = argument_kind(opt, placeholder);
      if (kind != "none") arguments += "    '" + c.name + " " + opt + "') echo " + kind + " ;;\n";
    }
    opts.push_back("--help");
    options += "    " + c.name + ") echo " + quoted(opts) + " ;;\n";
    if (!c.positional.empty()) operands += "    " + c.name + ") echo file ;;\n";
  }
  out += "_evbench_commands=" + quoted(names) + "\n\n";
  out += "# _evbench_options COMMAND: its options.\n_evbench_options() {\n  case \"$1\" in\n" +
         options + "  esac\n}\n\n";
  out +=
      "# _evbench_option_arg COMMAND OPTION: what the option takes (file, key, word, none).\n"
      "_evbench_option_arg() {\n  case \"$1 $2\" in\n" +
      arguments + "    *) echo none ;;\n  esac\n}\n\n";
  out +=
      "# _evbench_operand COMMAND: file when the command takes a CONFIG or PLATFORM.\n"
      "_evbench_operand() {\n  case \"$1\" in\n" +
      operands + "  esac\n}\n\n";
}

// Key names and their values: core keys, then driver_options.* per driver
// (the union when the line names no driver).
void key_functions(std::string& out, const PluginKeys& plugins) {
  using namespace config_detail;
  std::vector<std::string> core;
  std::string values;
  for (const auto& k : core_key_table()) {
    const KeySpec spec = with_plugins(k.spec, plugins);
    if (spec.type == KeyType::string_map) continue;  // driver_options: its keys below
    core.push_back(spec.path);
    const auto words = value_words(spec);
    if (!words.empty()) values += "    */" + spec.path + ") echo " + quoted(words) + " ;;\n";
  }
  std::string driver_keys;
  std::set<std::string> all_keys;
  std::map<std::string, std::set<std::string>> union_values;
  for (const auto& driver : plugins.drivers) {
    const auto it = plugins.driver_options.find(driver);
    std::vector<std::string> keys;
    if (it != plugins.driver_options.end())
      for (const auto& spec : it->second) {
        const std::string key = "driver_options." + spec.path;
        keys.push_back(key);
        all_keys.insert(key);
        const auto words = value_words(spec);
        if (words.empty()) continue;
        values += "    " + driver + "/" + key + ") echo " + quoted(words) + " ;;\n";
        union_values[key].insert(words.begin(), words.end());
      }
    driver_keys += "    " + driver + ") echo " + quoted(keys) + " ;;\n";
  }
  for (const auto& [key, words] : union_values)
    values += "    */" + key + ") echo " + quoted({words.begin(), words.end()}) + " ;;\n";
  out += "_evbench_keys=" + quoted(core) + "\n\n";
  out +=
      "# _evbench_driver_keys DRIVER: its driver_options.* keys (every driver's when unknown).\n"
      "_evbench_driver_keys() {\n  case \"$1\" in\n" +
      driver_keys + "    *) echo " + quoted({all_keys.begin(), all_keys.end()}) +
      " ;;\n  esac\n}\n\n";
  out +=
      "# _evbench_values KEY DRIVER: the values KEY accepts, where they are a list.\n"
      "_evbench_values() {\n  case \"$2/$1\" in\n" +
      values + "  esac\n}\n\n";
}

// The completion function itself: fixed text around the generated tables.
// COMP_WORDBREAKS splits KEY=VALUE at '=': the words are joined back first,
// and the replies cut down to what follows the last '=' of the current word.
const char* const kDriver = R"bash(_evbench_reply() {  # $1 current word, then the candidates
  local cur=$1 cut=""
  shift
  [[ $COMP_WORDBREAKS == *=* ]] && cut=${cur%"${cur##*=}"}
  COMPREPLY=()
  local c
  for c in "$@"; do COMPREPLY+=("${c#"$cut"}"); done
}

_evbench() {
  local words=() cword=0 i
  for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
    if ((i > 0)) && [[ ${COMP_WORDS[i]} == "=" || ${COMP_WORDS[i - 1]} == "=" ]]; then
      words[-1]+=${COMP_WORDS[i]}
    else
      words+=("${COMP_WORDS[i]}")
    fi
  done
  cword=$((${#words[@]} - 1))
  local cur=${words[cword]} prev=""
  ((cword > 0)) && prev=${words[cword - 1]}
  if ((cword == 1)); then
    COMPREPLY=($(compgen -W "$_evbench_commands --version --help" -- "$cur"))
    return
  fi
  local cmd=${words[1]} driver="" w
  for w in "${words[@]}"; do
    [[ $w == driver=* || $w == --set=driver=* ]] && driver=${w##*=}
  done
  if [[ $prev == --set || $cur == --set=* ]]; then
    local lead="" item=$cur
    [[ $cur == --set=* ]] && lead=--set= && item=${cur#--set=}
    if [[ $item == *=* ]]; then
      local key=${item%%=*}
      _evbench_reply "$cur" $(compgen -P "$lead$key=" -W "$(_evbench_values "$key" "$driver")" -- "${item#*=}")
    else
      _evbench_reply "$cur" $(compgen -P "$lead" -S = -W "$_evbench_keys $(_evbench_driver_keys "$driver")" -- "$item")
      compopt -o nospace 2>/dev/null
    fi
    return
  fi
  case $(_evbench_option_arg "$cmd" "$prev") in
    file)
      COMPREPLY=($(compgen -f -- "$cur"))
      compopt -o filenames 2>/dev/null
      return
      ;;
    key | word) COMPREPLY=(); return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_evbench_options "$cmd")" -- "$cur"))
  elif [[ $(_evbench_operand "$cmd") == file ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
  fi
}
complete -F _evbench evbench
)bash";

}  // namespace

std::string bash_completion(const PluginKeys& plugins, const std::string& usage) {
  const UsageDoc doc = parse_usage(usage);
  std::string out =
      "# bash completion for evbench. Generated by evbench-docgen from `evbench --help` and the\n"
      "# key table (docs/CONFIG.md): do not edit.\n\n";
  command_functions(out, doc);
  key_functions(out, plugins);
  out += kDriver;
  return out;
}

std::string scan_bash_completion(const std::vector<std::string>& commands) {
  std::vector<std::string> names;
  std::string options;
  for (const auto& line : commands) {
    std::istringstream in(line);
    std::string name, opt;
    in >> name;
    if (name.empty()) continue;
    names.push_back(name);
    std::vector<std::string> opts;
    while (in >> opt) opts.push_back(opt);
    options += "    " + name + ") echo " + quoted(opts) + " ;;\n";
  }
  std::string out =
      "# bash completion for evbench-scan. Generated by evbench-docgen from its argument "
      "parser: do not edit.\n\n";
  out += "_evbench_scan_options() {\n  case \"$1\" in\n" + options + "  esac\n}\n\n";
  out +=
      "_evbench_scan() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]}\n"
      "  if ((COMP_CWORD == 1)); then\n"
      "    COMPREPLY=($(compgen -W " +
      quoted(names) +
      "\" --version --help\" -- \"$cur\"))\n"
      "  elif [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$(_evbench_scan_options \"${COMP_WORDS[1]}\")\" -- "
      "\"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "    compopt -o filenames 2>/dev/null\n"
      "  fi\n"
      "}\n"
      "complete -F _evbench_scan evbench-scan\n";
  return out;
}

}  // namespace evb
