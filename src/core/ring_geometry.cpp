#include "core/ring_geometry.hpp"

#include <algorithm>
#include <cmath>

#include "core/messages.hpp"

namespace evb {
namespace {

double factor(const Config& c, int ru) {
  return c.ru_rate_factors.empty() ? 1.0 : c.ru_rate_factors.at(ru);
}

uint64_t clamp_max(const Config& c) {
  if (c.fragment.distribution == SizeDistribution::fixed) return c.fragment.size;
  return c.fragment.max_size ? c.fragment.max_size : 4 * c.fragment.size;
}

}  // namespace

uint64_t max_payload(const Config& c, int ru) {
  return std::max<uint64_t>(8, static_cast<uint64_t>(std::ceil(clamp_max(c) * factor(c, ru))));
}

uint64_t max_payload(const Config& c) {
  uint64_t m = 0;
  for (int r = 0; r < c.nodes; ++r) m = std::max(m, max_payload(c, r));
  return m;
}

uint64_t head_bytes(const Config& c) {
  const uint64_t p = mep_events(c);
  return sizeof(FragmentHeader) + (p > 1 ? p * sizeof(MepEntry) : 0);
}

size_t ring_slots(const Config& c, int ru) {
  return std::max<size_t>(1, c.ru_buffer / (meta_bytes(c) + max_mep_payload(c, ru)));
}

size_t min_ring_slots(const Config& c) {
  size_t m = ring_slots(c, 0);
  for (int r = 1; r < c.nodes; ++r) m = std::min(m, ring_slots(c, r));
  return m;
}

uint64_t ring_bytes(const Config& c, uint64_t fragments) {
  return fragments * (meta_bytes(c) + mep_events(c) * max_payload(c));
}

uint64_t exclude_min_ru_buffer(const Config& c) {
  return ring_bytes(c, static_cast<uint64_t>(c.nodes) * static_cast<uint64_t>(c.credits));
}

uint64_t exclude_default_ru_buffer(const Config& c) {
  return 2 * exclude_min_ru_buffer(c);
}

}  // namespace evb
