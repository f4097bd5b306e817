#pragma once
// The metrics table of docs/MONITORING.md (Markdown), written from the
// metric table (metric_table.hpp): one row per family, in /metrics order.
// tests/unit/monitor/metrics_doc_test.cpp fails when the page's copy
// differs, and rewrites it when asked (EVBENCH_UPDATE_DOCS=1).
#include <string>

namespace evb {

std::string metrics_markdown();

}  // namespace evb
