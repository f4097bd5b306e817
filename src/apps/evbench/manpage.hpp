#pragma once
// evbench(1), generated at build time (src/apps/docgen) from the same sources
// as `evbench --help` and docs/CONFIG.md: the usage text (commands, their
// options, exit codes) and the key table with the drivers' option tables.
#include <string>
#include <vector>

#include "core/config_table.hpp"

namespace evb {

// One entry of the usage text's command list, e.g.
//   run [CONFIG] [--set KEY=VALUE]... [--json FILE] [--quiet]
//         Run an evaluation. ...
// Options are read from the synopsis: each with the placeholder that follows
// it ("FILE", "KEY=VALUE", "" for a flag). `positional` is the command's
// operand placeholder (CONFIG, PLATFORM) or "".
struct CommandDoc {
  std::string name;
  std::vector<std::string> synopsis;  // lines, the first one starting with the name
  std::string description;            // the indented lines below, joined
  std::vector<std::pair<std::string, std::string>> options;
  std::string positional;
};

// The usage text taken apart: commands (global options such as --version
// are a command named "--version, --help" with no description) and the exit
// codes ("0" -> "success", ...). Throws std::runtime_error when the text has
// no command list, so a changed layout fails the build, not the page.
struct UsageDoc {
  std::vector<CommandDoc> commands;
  std::vector<std::pair<std::string, std::string>> exit_codes;
};
UsageDoc parse_usage(const std::string& usage);

// Where the install puts things, relative to the prefix (GNUInstallDirs).
struct InstallLayout {
  std::string bindir = "bin", datadir = "share", libdir = "lib", libexecdir = "libexec",
              docdir = "share/doc/evbench";
};

// The roff source of evbench(1): NAME, SYNOPSIS, COMMANDS, CONFIGURATION
// (value syntax, every core key and every driver option with type, default,
// unit and range or choices), EXIT STATUS, ENVIRONMENT, FILES, SEE ALSO.
std::string man_page(const PluginKeys& plugins, const std::string& usage,
                     const std::string& version, const InstallLayout& layout);

}  // namespace evb
