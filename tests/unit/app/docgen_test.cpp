// The man page and bash completion generators (src/apps/evbench/manpage.cpp,
// completion.cpp): the usage text taken apart as the pages need it, and every
// key of the real plug-ins' tables in both outputs.
#include <gtest/gtest.h>

#include <string>

#include "../config/real_plugins.hpp"
#include "apps/evbench/completion.hpp"
#include "apps/evbench/manpage.hpp"
#include "core/config_table.hpp"

namespace evb {
namespace {

const char* const kUsage = R"(usage: evbench <command> [options]

Commands:
  run [CONFIG] [--set KEY=VALUE]... [--json FILE] [--quiet]
        Run an evaluation.
        --json FILE: the results document.
  topo PLATFORM [--order FILE] [--nodes N]
        [--keep-hosts]  |  topo --reference
        Barrel-shift scan.
  drivers [--json]
        List the drivers.
  --version, --help

Exit codes: 0 success; 1 runtime failure (peer lost; timeout); 2 usage
error; 130 interrupted.
)";

TEST(Docgen, UsageCommandsOptionsAndOperands) {
  const UsageDoc doc = parse_usage(kUsage);
  ASSERT_EQ(doc.commands.size(), 4u);
  const CommandDoc& run = doc.commands[0];
  EXPECT_EQ(run.name, "run");
  EXPECT_EQ(run.positional, "CONFIG");
  EXPECT_EQ(run.description, "Run an evaluation. --json FILE: the results document.");
  ASSERT_EQ(run.options.size(), 3u);
  EXPECT_EQ(run.options[0], (std::pair<std::string, std::string>{"--set", "KEY=VALUE"}));
  EXPECT_EQ(run.options[1], (std::pair<std::string, std::string>{"--json", "FILE"}));
  EXPECT_EQ(run.options[2], (std::pair<std::string, std::string>{"--quiet", ""}));
  // A synopsis continued on a second line; the alternative form after '|'.
  const CommandDoc& topo = doc.commands[1];
  EXPECT_EQ(topo.synopsis.size(), 2u);
  EXPECT_EQ(topo.positional, "PLATFORM");
  EXPECT_EQ(topo.options.back().first, "--reference");
  EXPECT_EQ(doc.commands[2].positional, "");
  EXPECT_EQ(doc.commands[3].name, "--version, --help");
}

TEST(Docgen, ExitCodesSplitOutsideParentheses) {
  const UsageDoc doc = parse_usage(kUsage);
  ASSERT_EQ(doc.exit_codes.size(), 4u);
  EXPECT_EQ(doc.exit_codes[1],
            (std::pair<std::string, std::string>{"1", "runtime failure (peer lost; timeout)"}));
  EXPECT_EQ(doc.exit_codes[3], (std::pair<std::string, std::string>{"130", "interrupted"}));
}

TEST(Docgen, UsageWithoutCommandListIsAnError) {
  EXPECT_THROW(parse_usage("usage: evbench\n"), std::runtime_error);
}

// Every core key and every driver option of the real tables is in both.
TEST(Docgen, EveryKeyInThePageAndTheCompletion) {
  const PluginKeys& keys = test::real_plugins();
  const std::string page = man_page(keys, kUsage, "1.2.3", InstallLayout{});
  const std::string bash = bash_completion(keys, kUsage);
  auto roff = [](std::string s) {
    std::string out;
    for (char c : s) out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
  };
  EXPECT_NE(page.find(".TH EVBENCH 1 \"\" \"evbench 1.2.3\""), std::string::npos);
  for (const KeySpec& k : core_keys()) {
    EXPECT_NE(page.find(".B " + roff(k.path) + "\n"), std::string::npos) << k.path;
    if (k.type != KeyType::string_map) {
      EXPECT_NE(bash.find(k.path), std::string::npos) << k.path;
    }
  }
  for (const auto& [driver, specs] : keys.driver_options)
    for (const KeySpec& k : specs) {
      EXPECT_NE(page.find(".B driver_options." + roff(k.path) + "\n"), std::string::npos)
          << driver << " " << k.path;
      EXPECT_NE(bash.find("driver_options." + k.path), std::string::npos) << k.path;
    }
  EXPECT_NE(bash.find("    run) echo '--set --json --quiet --help' ;;"), std::string::npos);
  EXPECT_NE(bash.find("    'run --json') echo file ;;"), std::string::npos);
  EXPECT_NE(bash.find("complete -F _evbench evbench"), std::string::npos);
}

}  // namespace
}  // namespace evb
