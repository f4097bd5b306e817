#include "protocols/microbench.hpp"

#include "core/error.hpp"

namespace evb {

void run_microbench(Driver&, Bootstrap&, const Topology&, const Config& config, PollMode,
                    const std::vector<std::string>&, RankStats&) {
  throw ConfigError(std::string("protocol ") + to_string(config.protocol) + " is not available yet");
}

}  // namespace evb
