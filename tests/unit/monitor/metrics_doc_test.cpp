// docs/MONITORING.md's metrics table is the one metrics_markdown() writes
// from the metric table. When it is stale, run this test with
// EVBENCH_UPDATE_DOCS=1 to rewrite it:
//   EVBENCH_UPDATE_DOCS=1 build/tests/evbench_monitor_tests --gtest_filter='MetricsDoc.*'
#include "protocols/monitor/metrics_doc.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "protocols/monitor/metric_table.hpp"
#include "support/source_dir.hpp"

namespace evb {
namespace {

const std::string kDoc = std::string(EVBENCH_SOURCE_DIR) + "/docs/MONITORING.md";
const std::string kBegin =
    "<!-- monitor-metrics:begin (generated from src/protocols/monitor/metric_table.cpp) -->\n";
const std::string kEnd = "<!-- monitor-metrics:end -->";

TEST(MetricsDoc, EveryFamilyHasARow) {
  const std::string md = metrics_markdown();
  for (const MetricDescriptor& d : metric_table()) {
    EXPECT_NE(md.find("| `" + d.name + "` | "), std::string::npos) << d.name;
  }
}

TEST(MetricsDoc, MonitoringMdIsCurrent) {
  std::ifstream in(kDoc);
  ASSERT_TRUE(in) << kDoc;
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  const size_t begin = text.find(kBegin);
  const size_t end = text.find(kEnd);
  ASSERT_NE(begin, std::string::npos) << kDoc << ": the monitor-metrics markers are missing";
  ASSERT_NE(end, std::string::npos) << kDoc << ": the monitor-metrics markers are missing";
  ASSERT_LT(begin, end);
  const size_t from = begin + kBegin.size();
  const std::string generated = metrics_markdown();
  if (text.substr(from, end - from) == generated) return;
  const char* update = std::getenv("EVBENCH_UPDATE_DOCS");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(kDoc) << text.substr(0, from) << generated << text.substr(end);
    ADD_FAILURE() << kDoc << " was stale and has been rewritten";
  } else {
    ADD_FAILURE() << kDoc << " is stale: run this test with EVBENCH_UPDATE_DOCS=1 to rewrite it";
  }
}

}  // namespace
}  // namespace evb
