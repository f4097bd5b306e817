#pragma once
// The metric table's rows for the RU->BU traffic matrix (metric_table.cpp
// appends them after the per-RU families): evbench_traffic_bytes_total, one
// series per cell, up to kMatrixFullNodes nodes; above, the same bytes
// summed over groups of units (traffic.hpp) as
// evbench_traffic_group_bytes_total, so /metrics stays bounded.
#include <vector>

#include "protocols/monitor/metric_table.hpp"

namespace evb {

void append_traffic_families(std::vector<MetricDescriptor>& table);

}  // namespace evb
