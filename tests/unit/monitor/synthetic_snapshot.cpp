#include "synthetic_snapshot.hpp"

#include <cstddef>
#include <cstdint>

namespace evb::test_support {

MonitorSnapshot synthetic_snapshot(int nodes, int k) {
  MonitorSnapshot s;
  const auto n = static_cast<size_t>(nodes);
  const auto kk = static_cast<uint64_t>(k);
  s.t_s = 0.5 * k + 0.123456;
  s.interval_s = 0.5;
  s.protocol = "pull";
  s.variant = "ucx/sm write";
  s.data_path = "write";
  s.nodes = nodes;
  s.eb.events_assigned = 123456ULL * kk + 7;
  s.eb.events_built = 123450ULL * kk;
  s.eb.bytes_built = 98765432109ULL * kk;
  for (size_t i = 0; i < n; ++i) {
    MonitorBu b;
    b.bytes = 1234567890123ULL * kk + i * 7919;
    b.fragments = 7654321ULL * kk + i;
    b.events_built = 24117ULL * kk + i;
    b.events_in_flight = 16;
    b.requests_in_flight = static_cast<uint32_t>(i % 7);
    b.fu_queue = static_cast<uint32_t>(i % 3);
    b.latency_p50_s = 0.00123456 + 1e-7 * static_cast<double>(i);
    b.latency_p90_s = 0.00234567 + 1e-7 * static_cast<double>(i);
    b.latency_p99_s = 0.00345678 + 1e-7 * static_cast<double>(i);
    b.integrity_errors = i % 5 == 0 ? 3 : 0;
    b.rate_bytes_per_s = 3.1234567e9 + 1.234567e6 * static_cast<double>(i * kk);
    b.rate_interval_s = 0.50012345;
    b.rate_carried = (i + kk) % 11 == 0;
    b.excluded = i == 1;
    b.reported = true;
    s.eb.bus.push_back(b);
    MonitorRu r;
    r.bytes = 1234567000123ULL * kk + i * 104729;
    r.fragments = 7654320ULL * kk + i;
    r.rate_bytes_per_s = 3.2345678e9 + 2.345678e6 * static_cast<double>(i);
    r.rate_interval_s = 0.49987654;
    r.rate_factor = i % 4 == 0 ? 0.75 : 1.0;
    r.masked = i == 2;
    r.reported = true;
    s.eb.rus.push_back(r);
    s.eb.params.ru_rate_factors.push_back(r.rate_factor);
  }
  s.eb.matrix.resize(n * n);
  s.eb.matrix_rate.resize(n * n);
  for (size_t c = 0; c < n * n; ++c) {
    s.eb.matrix[c] = 2411234567ULL * kk + c * 131;
    s.eb.matrix_rate[c] = 6.1234567e6 + 1234.5678 * static_cast<double>(c % 977);
  }
  s.eb.faults.push_back({"BU 1", "peer lost", "reassigned", 1.25, 1.5, 1.75, 17});
  s.eb.faults.push_back({"RU 2", "silent", "masked", 2.25, 2.5, -1, 0});
  s.eb.control.push_back({0.75, "parallel", "4", 1200, "http"});
  s.eb.control.push_back({1.0, "credits", "8", 2400, "config"});
  s.eb.params.parallel = 4;
  s.eb.params.credits = 8;
  s.eb.params.credits_allocated = 16;
  s.eb.params.processing_time_s = 0.001;
  return s;
}

}  // namespace evb::test_support
