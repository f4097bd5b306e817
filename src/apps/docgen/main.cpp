// evbench-docgen: writes evbench(1) and the bash completions at build time.
//
//   evbench-docgen --evbench BIN --man OUT.1 --bash OUT [--scan-commands IN --scan-bash OUT]
//                  [--datadir D --libdir L --libexecdir X --docdir DOC]
//
// The key table comes from the plug-ins linked in here (the same registry as
// `evbench config --markdown`); the commands, their options and the exit
// codes from BIN's own `--help` text, so neither is written down twice.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "apps/evbench/cli.hpp"
#include "apps/evbench/completion.hpp"
#include "apps/evbench/manpage.hpp"
#include "apps/evbench/versions.hpp"
#include "drivers/api/registry.hpp"

namespace {

// stdout of `BIN --help`; throws when it cannot run or fails.
std::string usage_of(const std::string& bin) {
  const std::string command = "'" + bin + "' --help";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  if (::pclose(pipe) != 0) throw std::runtime_error(command + " failed");
  return text;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args;
  for (int i = 1; i + 1 < argc; i += 2) args[argv[i]] = argv[i + 1];
  if (argc % 2 == 0 || !args.count("--evbench") || !args.count("--man") || !args.count("--bash")) {
    std::cerr << "usage: evbench-docgen --evbench BIN --man OUT.1 --bash OUT [--scan-commands IN "
                 "--scan-bash OUT] [--datadir D --libdir L --libexecdir X --docdir DOC]\n";
    return 2;
  }
  try {
    evb::PluginRegistry registry;
    evb::register_builtin_plugins(registry);
    evb::ProtocolRegistry protocols;
    evb::register_builtin_protocols(protocols);
    const evb::PluginKeys keys = evb::plugin_keys(registry, protocols);
    const std::string usage = usage_of(args["--evbench"]);
    evb::InstallLayout layout;
    for (auto [flag, field] : {std::pair<const char*, std::string*>{"--datadir", &layout.datadir},
                               {"--libdir", &layout.libdir},
                               {"--libexecdir", &layout.libexecdir},
                               {"--docdir", &layout.docdir}})
      if (args.count(flag)) *field = args[flag];
    write_file(args["--man"], evb::man_page(keys, usage, evb::evbench_version(), layout));
    write_file(args["--bash"], evb::bash_completion(keys, usage));
    if (args.count("--scan-commands") && args.count("--scan-bash"))
      write_file(args["--scan-bash"],
                 evb::scan_bash_completion(read_lines(args["--scan-commands"])));
  } catch (const std::exception& e) {
    std::cerr << "evbench-docgen: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
