#pragma once
// Bash completion for evbench, generated at build time (src/apps/docgen) from
// the usage text (commands and their options, see manpage.hpp) and the key
// table: `--set KEY=` completes core keys and driver_options.* (those of the
// driver named by a --set driver=NAME on the line, else every driver's),
// `--set KEY=` + TAB the key's choices (booleans: true false), options taking
// a file and CONFIG / PLATFORM complete file names.
#include <string>
#include <vector>

#include "core/config_table.hpp"

namespace evb {

std::string bash_completion(const PluginKeys& plugins, const std::string& usage);

// evbench-scan's: its subcommands and their options (argparse's lists, handed
// over by the generator), file names elsewhere. Each entry: "command --opt1 --opt2".
std::string scan_bash_completion(const std::vector<std::string>& commands);

}  // namespace evb
