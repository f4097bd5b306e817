#include "drivers/psm2/psm2_options.hpp"

#include <cmath>

#include "drivers/common/option_values.hpp"

namespace evb::psm2 {

const std::vector<KeySpec>& psm2_option_specs() {
  static const std::vector<KeySpec> specs = {
      duration_option("connect_timeout", "30s", "how long psm2_ep_connect waits for every peer"),
      duration_option("shutdown_timeout", "10s",
                      "how long shutdown() waits to deliver its goodbyes and close the endpoint"),
  };
  return specs;
}

Psm2Options parse_psm2_options(const Config* config) {
  Psm2Options o;
  if (!config) return o;
  for (const auto& [raw_key, value] : config->driver_options) {
    const std::string key = option_key(raw_key);
    if (key == "connect_timeout") {
      o.connect_timeout = option_ms(key, value);
    } else if (key == "shutdown_timeout") {
      o.shutdown_timeout = option_ms(key, value);
    }
    // Other drivers' keys may share the map; the config validator rejects typos.
  }
  return o;
}

}  // namespace evb::psm2
