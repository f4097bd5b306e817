#include "protocols/monitor/traffic_metrics.hpp"

#include <string>

#include "protocols/monitor/traffic.hpp"

namespace evb {
namespace {

std::vector<MetricSample> cells(const MetricInput& in) {
  std::vector<MetricSample> out;
  const MonitorSnapshot& s = in.latest;
  if (s.nodes > kMatrixFullNodes) return out;
  const auto n = static_cast<size_t>(s.nodes > 0 ? s.nodes : 0);
  if (s.eb.matrix.size() != n * n) return out;
  for (size_t r = 0; r < n; ++r) {
    for (size_t b = 0; b < n; ++b) {
      out.push_back(
          {{{"ru", std::to_string(r)}, {"bu", std::to_string(b)}}, s.eb.matrix[r * n + b]});
    }
  }
  return out;
}

std::vector<MetricSample> groups(const MetricInput& in) {
  std::vector<MetricSample> out;
  const MonitorSnapshot& s = in.latest;
  if (s.nodes <= kMatrixFullNodes) return out;
  const std::vector<uint64_t> m = grouped_matrix(s.eb.matrix, s.nodes);
  const size_t g = matrix_groups(s.nodes);
  if (m.size() != g * g) return out;
  for (size_t r = 0; r < g; ++r) {
    for (size_t b = 0; b < g; ++b) {
      out.push_back({{{"ru_group", matrix_group_label(s.nodes, r)},
                      {"bu_group", matrix_group_label(s.nodes, b)}},
                     m[r * g + b]});
    }
  }
  return out;
}

}  // namespace

void append_traffic_families(std::vector<MetricDescriptor>& t) {
  const std::string full = std::to_string(kMatrixFullNodes);
  t.push_back({"evbench_traffic_bytes_total",
               MetricType::counter,
               "bytes",
               {{"ru", ""}, {"bu", ""}},
               "Payload bytes RU `ru` sent to BU `bu` since t0.",
               {"matrix.bytes"},
               false,
               cells});
  t.push_back({"evbench_traffic_group_bytes_total",
               MetricType::counter,
               "bytes",
               {{"ru_group", "`0-31`"}, {"bu_group", "`0-31`"}},
               "Payload bytes the RUs of `ru_group` sent to the BUs of `bu_group` since t0 (runs "
               "of over " +
                   full + " nodes: at most " + std::to_string(kMatrixGroups) +
                   " groups of consecutive indices a side).",
               {"matrix.bytes"},
               false,
               groups});
}

}  // namespace evb
