#include "apps/evbench/manpage.hpp"

#include <cctype>
#include <sstream>
#include <stdexcept>

#include "core/config_detail.hpp"
#include "core/config_loader.hpp"

namespace evb {
namespace {

// ---- reading the usage text ----

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(' ');
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(' ') - a + 1);
}

size_t indent_of(const std::string& s) {
  const size_t a = s.find_first_not_of(' ');
  return a == std::string::npos ? s.size() : a;
}

// "[--json" -> "--json", "KEY=VALUE]..." -> "KEY=VALUE", "--version," -> "--version".
std::string bare(const std::string& token) {
  const size_t a = token.find_first_not_of("[|");
  if (a == std::string::npos) return "";
  const size_t b = token.find_last_not_of("].,|");
  return b < a ? "" : token.substr(a, b - a + 1);
}

bool is_placeholder(const std::string& word) {
  if (word.empty() || !std::isupper(static_cast<unsigned char>(word[0]))) return false;
  for (char c : word)
    if (!std::isupper(static_cast<unsigned char>(c)) && c != '=' && c != '_') return false;
  return true;
}

// Options and the operand placeholder of one command, from its synopsis.
void read_synopsis(CommandDoc& c) {
  std::vector<std::string> words;
  for (const auto& line : c.synopsis) {
    std::istringstream in(line);
    for (std::string t; in >> t;) words.push_back(bare(t));
  }
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.size() > 1 && w[0] == '-') {
      std::string arg;
      if (i + 1 < words.size() && is_placeholder(words[i + 1])) arg = words[++i];
      bool seen = false;
      for (const auto& o : c.options) seen = seen || o.first == w;
      if (!seen) c.options.emplace_back(w, arg);
    } else if (is_placeholder(w) && c.positional.empty()) {
      c.positional = w;
    }
  }
}

// "0 success; 1 runtime failure (a; b); 2 ..." -> {"0", "success"}, ...: split
// at semicolons outside parentheses.
std::vector<std::pair<std::string, std::string>> read_exit_codes(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::string> items{""};
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ';' && depth == 0)
      items.emplace_back();
    else
      items.back() += c;
  }
  for (std::string item : items) {
    item = trim(item);
    if (!item.empty() && item.back() == '.') item.pop_back();
    const size_t sp = item.find(' ');
    if (sp == std::string::npos) continue;
    out.emplace_back(item.substr(0, sp), item.substr(sp + 1));
  }
  return out;
}

}  // namespace

UsageDoc parse_usage(const std::string& usage) {
  UsageDoc doc;
  const auto lines = lines_of(usage);
  size_t i = 0;
  while (i < lines.size() && trim(lines[i]) != "Commands:") ++i;
  if (i == lines.size()) throw std::runtime_error("usage text: no 'Commands:' list");
  for (++i; i < lines.size() && !trim(lines[i]).empty(); ++i) {
    const std::string& line = lines[i];
    const size_t indent = indent_of(line);
    if (indent <= 2) {
      CommandDoc c;
      const std::string text = trim(line);
      c.name = text[0] == '-' ? text : text.substr(0, text.find(' '));
      c.synopsis.push_back(text);
      doc.commands.push_back(c);
    } else if (!doc.commands.empty()) {
      CommandDoc& c = doc.commands.back();
      const std::string text = trim(line);
      if (c.description.empty() && (text[0] == '[' || text[0] == '|'))
        c.synopsis.push_back(text);
      else
        c.description += (c.description.empty() ? "" : " ") + text;
    }
  }
  if (doc.commands.empty()) throw std::runtime_error("usage text: empty command list");
  for (auto& c : doc.commands) read_synopsis(c);
  std::string exits;
  for (; i < lines.size(); ++i) {
    const std::string text = trim(lines[i]);
    if (!exits.empty() && text.empty()) break;
    if (exits.empty() && text.rfind("Exit codes:", 0) != 0) continue;
    exits += (exits.empty() ? "" : " ") + text;
  }
  if (!exits.empty())
    doc.exit_codes = read_exit_codes(exits.substr(std::string("Exit codes:").size()));
  return doc;
}

namespace {

// ---- writing roff ----

// Text for a roff line: backslashes and hyphens escaped, a leading control
// character ('.' or '\'') neutralised.
std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

// A synopsis line: options bold, placeholders italic, brackets plain.
std::string synopsis_markup(const std::string& line) {
  std::string out;
  std::istringstream in(line);
  for (std::string t; in >> t;) {
    const std::string core = bare(t);
    const size_t at = core.empty() ? t.size() : t.find(core);
    const std::string head = t.substr(0, at), tail = t.substr(at + core.size());
    std::string styled = esc(core);
    if (!core.empty() && (core[0] == '-' || std::islower(static_cast<unsigned char>(core[0]))))
      styled = "\\fB" + styled + "\\fR";
    else if (is_placeholder(core))
      styled = "\\fI" + styled + "\\fR";
    out += (out.empty() ? "" : " ") + esc(head) + styled + esc(tail);
  }
  return out;
}

// A synopsis continued over several lines of the usage text, as one line.
std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += (out.empty() ? "" : " ") + line;
  return out;
}

void key_entry(std::string& out, const KeySpec& spec, const std::string& prefix) {
  using namespace config_detail;
  out += ".TP\n.B " + esc(prefix + spec.path) + "\n";
  std::string facts = "\\fI" + esc(type_name(spec.type)) + "\\fR";
  if (!spec.default_value.empty()) facts += ", default \\fB" + esc(spec.default_value) + "\\fR";
  if (!spec.unit.empty()) facts += ", unit " + esc(spec.unit);
  const std::string range = range_text(spec);
  if (!range.empty())
    facts += std::string(spec.type == KeyType::choice ? "; one of: " : "; range: ") + esc(range);
  out += facts + "\n.br\n" + esc(spec.doc) + "\n";
}

// The value-syntax notes: the "# ..." lines that close `config --explain`.
std::vector<std::string> syntax_notes(const PluginKeys& plugins) {
  const std::string text = explain_text(plugins);
  std::vector<std::string> notes;
  const size_t last_block = text.rfind("\n\n");
  for (const auto& line : lines_of(text.substr(last_block == std::string::npos ? 0 : last_block)))
    if (line.rfind("# ", 0) == 0) notes.push_back(line.substr(2));
  return notes;
}

}  // namespace

std::string man_page(const PluginKeys& plugins, const std::string& usage,
                     const std::string& version, const InstallLayout& layout) {
  using namespace config_detail;
  const UsageDoc doc = parse_usage(usage);
  std::string out;
  out +=
      ".\\\" Generated by evbench-docgen from `evbench --help` and the key table: do not edit.\n";
  out += ".TH EVBENCH 1 \"\" \"evbench " + esc(version) + "\" \"User Commands\"\n";
  out += ".SH NAME\nevbench \\- protocol\\-independent event\\-building evaluator\n";
  out += ".SH SYNOPSIS\n.nf\n";
  for (const auto& c : doc.commands)
    if (c.name[0] != '-') out += "\\fBevbench\\fR " + synopsis_markup(joined(c.synopsis)) + "\n";
  out += "\\fBevbench\\fR \\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR\n.fi\n";
  out +=
      ".SH DESCRIPTION\n"
      "evbench runs readout units, builder units, an event manager and filter units that build "
      "events over an interchangeable network driver, and reports throughput, latency and "
      "integrity. A configuration is a YAML file of the keys below; every key can also be set "
      "on the command line with \\fB\\-\\-set\\fR \\fIKEY\\fR=\\fIVALUE\\fR.\n";
  out += ".SH COMMANDS\n";
  for (const auto& c : doc.commands) {
    if (c.name[0] == '-') continue;
    out += ".TP\n" + synopsis_markup(joined(c.synopsis)) + "\n" + esc(c.description) + "\n";
  }
  out +=
      ".SH OPTIONS\n.TP\n.B \\-\\-version\nPrint the version and the source revision.\n"
      ".TP\n.BR \\-\\-help \", \" \\-h\nPrint the usage text.\n";
  out +=
      ".SH CONFIGURATION\nThe same table validates configurations and generates "
      "\\fBevbench config \\-\\-explain\\fR and CONFIG.md.\n";
  for (const auto& note : syntax_notes(plugins)) out += ".PP\n" + esc(note) + "\n";
  out += ".SS Core keys\n";
  for (const auto& k : core_key_table()) key_entry(out, with_plugins(k.spec, plugins), "");
  for (const auto& driver : plugins.drivers) {
    out += ".SS Driver options: " + esc(driver) + "\n";
    const auto it = plugins.driver_options.find(driver);
    if (it == plugins.driver_options.end() || it->second.empty()) {
      out += "This driver has no options.\n";
      continue;
    }
    for (const auto& spec : it->second) key_entry(out, spec, "driver_options.");
  }
  out += ".SH EXIT STATUS\n";
  for (const auto& [code, what] : doc.exit_codes)
    out += ".TP\n.B " + esc(code) + "\n" + esc(what) + "\n";
  const std::string data = layout.datadir + "/evbench";
  out += ".SH ENVIRONMENT\n";
  out +=
      ".TP\n.B EVBENCH_PLUGIN_DIR\nDirectory of the driver modules "
      "(libevbench\\-\\fIdriver\\fR.so); "
      "default: \\fI" +
      esc(layout.libdir) +
      "/evbench\\fR under the installation prefix, found "
      "from the evbench executable's own location.\n";
  out +=
      ".TP\n.B EVBENCH_SMPI_BUILD\nDirectory holding the SMPI build used by \\fBevbench sim\\fR "
      "(bin/evbench\\-smpi and lib/libevbench\\-simplatform.so); default: \\fI" +
      esc(layout.libexecdir) +
      "/evbench\\fR under the installation prefix, then build\\-sim "
      "beside the build directory the executable came from.\n";
  out +=
      ".TP\n.BR EVBENCH_RANK \", \" EVBENCH_SIZE \", \" EVBENCH_RENDEZVOUS\n"
      "Rank, number of ranks and rank 0's address for the \\fBenv\\fR bootstrap "
      "(BOOTSTRAP.md).\n";
  out += ".SH FILES\n";
  out += ".TP\n.I " + esc(data) +
         "/configs/\nShipped configurations (default.yaml is also "
         "embedded in the binary) and platforms/, the platform files for \\fBtopo\\fR, "
         "\\fBsim\\fR and scheduling: topology.\n";
  out += ".TP\n.I " + esc(data) + "/examples/\nExample scan files for \\fBevbench\\-scan\\fR.\n";
  out += ".TP\n.I " + esc(layout.libdir) +
         "/evbench/\nDriver modules, loaded when a driver is used.\n";
  out += ".TP\n.I " + esc(layout.libexecdir) +
         "/evbench/\nThe SMPI build for \\fBevbench sim\\fR, "
         "when it was installed.\n";
  out += ".TP\n.I " + esc(layout.docdir) +
         "/\nThe documentation: USER_GUIDE.md, CONFIG.md, "
         "INSTALL.md and the rest.\n";
  out +=
      ".PP\nPaths are relative to the installation prefix; the installed tree can be moved "
      "as a whole.\n";
  out +=
      ".SH SEE ALSO\n.nf\n\\fBevbench\\-scan \\-\\-help\\fR, \\fBevbench config \\-\\-explain\\fR\n"
      "\\fBmpirun\\fR(1), \\fBsmpirun\\fR(1)\n" +
      esc(layout.docdir) + "/USER_GUIDE.md, " + esc(layout.docdir) + "/INSTALL.md\n.fi\n";
  return out;
}

}  // namespace evb
