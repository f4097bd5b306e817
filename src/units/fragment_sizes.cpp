#include "units/fragment_sizes.hpp"

#include <algorithm>
#include <cmath>

#include "core/rng.hpp"

namespace evb {
double rate_factor(const Config& c, int ru) {
  return c.ru_rate_factors.empty() ? 1.0 : c.ru_rate_factors.at(ru);
}

uint64_t fragment_payload(const Config& c, int ru, uint64_t event) {
  return fragment_payload(c, ru, event, rate_factor(c, ru));
}

uint64_t fragment_payload(const Config& c, int ru, uint64_t event, double factor) {
  const double mean = static_cast<double>(c.fragment.size);
  double size = mean;
  const uint64_t bits = mix(c.seed, static_cast<uint64_t>(ru) + 1, event);
  switch (c.fragment.distribution) {
    case SizeDistribution::fixed:
      break;
    case SizeDistribution::uniform:
      size = mean * (1.0 + c.fragment.spread * (2.0 * to_unit(bits) - 1.0));
      break;
    case SizeDistribution::lognormal: {
      // Box-Muller from two uniforms; mean preserved: mu = ln(mean) - sigma^2/2.
      const double u1 = std::max(to_unit(bits), 1e-12);
      const double u2 = to_unit(splitmix64(bits));
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
      const double sigma = c.fragment.spread;
      size = std::exp(std::log(mean) - sigma * sigma / 2.0 + sigma * z);
      break;
    }
  }
  size *= factor;
  const double hi = static_cast<double>(max_payload(c, ru));
  return static_cast<uint64_t>(std::clamp(size, 8.0, hi));
}

}  // namespace evb
