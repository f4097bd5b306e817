#pragma once
// The metric table's rows for background traffic (metric_table.cpp appends
// them after the event builder's knobs): per `background` entry, labelled
// `entry` (1, 2, ... as background.N.active counts them) and `pattern`,
// one series each however many congestor ranks the entry has, read through
// background_figures.hpp. A run without background has none of them.
#include <vector>

#include "protocols/monitor/metric_table.hpp"

namespace evb {

void append_background_families(std::vector<MetricDescriptor>& table);

}  // namespace evb
