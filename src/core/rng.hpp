#pragma once
// Small deterministic generators: results depend only on `seed` and the ids
// mixed into it, so runs with the same seed schedule identically.
#include <cstdint>

namespace evb {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline uint64_t mix(uint64_t a, uint64_t b) {
  return splitmix64(a ^ splitmix64(b));
}
inline uint64_t mix(uint64_t a, uint64_t b, uint64_t c) {
  return mix(mix(a, b), c);
}

// Uniform double in [0, 1) from 64 random bits.
inline double to_unit(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// Stateful generator for loops (xorshift over splitmix seeding).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(splitmix64(seed) | 1) {}
  uint64_t next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  double unit() { return to_unit(next()); }

 private:
  uint64_t s_;
};

}  // namespace evb
