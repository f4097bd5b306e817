// libFuzzer target: the body of POST /control (monitor/control.hpp
// parse_control), as the monitor's HTTP thread hands it over from any client
// holding the token. Limits of a 3-node run with 2 credits.
//
// Asserts: the parser answers 202 or a 4xx (never throws); a refusal has a
// message and sets nothing; an accepted request sets at least one key and
// every value it sets lies within the limits (parallel 1..nodes, credits
// 1..allocated, a finite FU time within the maximum, one factor per RU in
// (0, its maximum]), never pause and resume at once.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_assert.hpp"
#include "protocols/monitor/control.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  evb::ControlLimits limits;
  limits.nodes = 3;
  limits.credits_allocated = 2;
  limits.processing_time_max_s = 30;
  limits.rate_factor_max = {1.0, 2.0, 0.5};
  const evb::ControlParse p =
      evb::parse_control(std::string_view(reinterpret_cast<const char*>(data), size), limits);
  const evb::ControlRequest& r = p.request;
  const bool none =
      !r.parallel && !r.credits && !r.processing_time_s && !r.ru_rate_factors && !r.pause;
  if (p.status != 202) {
    FUZZ_ASSERT(p.status >= 400 && p.status < 500, "a refusal is a 4xx");
    FUZZ_ASSERT(!p.message.empty(), "a refusal says why");
    FUZZ_ASSERT(none, "a refused request sets nothing");
    return 0;
  }
  FUZZ_ASSERT(!none, "an accepted request sets a key");
  if (r.parallel)
    FUZZ_ASSERT(*r.parallel >= 1 && *r.parallel <= limits.nodes, "parallel in 1..nodes");
  if (r.credits)
    FUZZ_ASSERT(*r.credits >= 1 && *r.credits <= limits.credits_allocated,
                "credits in 1..allocated");
  if (r.processing_time_s)
    FUZZ_ASSERT(std::isfinite(*r.processing_time_s) && *r.processing_time_s >= 0 &&
                    *r.processing_time_s <= limits.processing_time_max_s,
                "FU time finite, within the maximum");
  if (r.ru_rate_factors) {
    FUZZ_ASSERT(r.ru_rate_factors->size() == static_cast<size_t>(limits.nodes),
                "one factor per RU");
    for (size_t i = 0; i < r.ru_rate_factors->size(); ++i) {
      const double f = (*r.ru_rate_factors)[i];
      FUZZ_ASSERT(std::isfinite(f) && f > 0 && f <= limits.rate_factor_max[i],
                  "factor within (0, max]");
    }
  }
  return 0;
}
