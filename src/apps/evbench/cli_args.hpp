#pragma once
// The command line of `evbench` (every command but topo, which has its own):
// the command word and the options after it, read into Args. A mistake is a
// UsageError that says what to write instead (`--set credits 4`: use --set
// credits=4; `--duration=1s`: configuration keys go through --set).
#include <string>
#include <vector>

namespace evb {

struct Args {
  std::string config;
  std::vector<std::string> sets;
  std::string json;
  std::string platform, order, simulated_on;  // sim: --platform, --order; run: --simulated-on
  std::string model = "fluid";                // sim: --model
  std::string smpi_factors;                   // sim: --smpi-factors (empty: not given)
  std::vector<std::string> calibrate;         // sim: --calibrate (repeatable)
  std::string calibration;                    // sim: --calibration
  bool quiet = false;
  bool explain = false, markdown = false, json_reference = false, resolved = false, help = false;
};

// The commands cli_main dispatches (help, --help and --version aside).
const std::vector<std::string>& cli_commands();

// Throws UsageError for a word that is not a command, with the nearest one
// ("unknown command 'valdate' (did you mean 'validate'?)").
void check_command(const std::string& command);

// The arguments after the command word.
Args parse_args(const std::vector<std::string>& args, const std::string& command);

}  // namespace evb
