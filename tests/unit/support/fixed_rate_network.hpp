#pragma once
// A stand-in for the credit model's network in the tests of its execution
// side: every message is delivered a fixed latency plus one nanosecond per
// byte after it was sent (no links, no contention), in time order.
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "sim/exec/world.hpp"

namespace evb::test {

class FixedRateNetwork : public simexec::Network {
 public:
  static constexpr int64_t kLatency = 1000;  // ns; then 1 ns per byte

  uint64_t send(int, int, uint64_t bytes, int64_t now, int) override {
    const uint64_t id = next_++;
    due_.emplace(std::make_pair(now + kLatency + static_cast<int64_t>(bytes), id), id);
    return id;
  }
  int64_t next_event_ns() const override {
    return due_.empty() ? std::numeric_limits<int64_t>::max() : due_.begin()->first.first;
  }
  void advance(int64_t t, std::vector<simnet::Delivery>& out) override {
    while (!due_.empty() && due_.begin()->first.first <= t) {
      out.push_back({due_.begin()->second, due_.begin()->first.first});
      due_.erase(due_.begin());
    }
  }

 private:
  uint64_t next_ = 1;
  std::map<std::pair<int64_t, uint64_t>, uint64_t> due_;
};

}  // namespace evb::test
