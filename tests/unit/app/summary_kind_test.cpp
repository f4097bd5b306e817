// Each protocol family's report makes its own kind of summary and reads
// back only that kind; the event builders tell a lost BU from an RU by the
// failure record's role, not by its name.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/json_writer.hpp"
#include "core/topology.hpp"
#include "summarize.hpp"

namespace evb {
namespace {

Config config_of(const std::string& protocol) {
  Config c;
  c.nodes = 2;
  c.protocol = protocol;
  c.with_evm = protocol == "pull";  // what the loader sets from the protocol's factory
  c.warmup_s = 0;
  return c;
}

const ProtocolReport& report_of(const Config& c) {
  static ProtocolRegistry protocols = [] {
    ProtocolRegistry r;
    register_builtin_protocols(r);
    return r;
  }();
  return *protocols.of(c).report;
}

// What print_body writes for `s` under `c`.
std::string body(const Config& c, const Summary& s) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  report_of(c).print_body(out, c, s, ReportContext{});
  std::fclose(out);
  std::string result(text, size);
  std::free(text);
  return result;
}

TEST(SummaryKind, EachFamilyMakesItsOwn) {
  const Config pull = config_of("pull");
  const std::unique_ptr<Summary> eb =
      report_of(pull).summarize(pull, make_topology(pull), {}, false);
  EXPECT_NE(dynamic_cast<const EventBuildingSummary*>(eb.get()), nullptr);
  EXPECT_EQ(dynamic_cast<const MicrobenchSummary*>(eb.get()), nullptr);

  const Config oto = config_of("one-to-one");
  const std::unique_ptr<Summary> micro =
      report_of(oto).summarize(oto, make_topology(oto), {}, false);
  EXPECT_NE(dynamic_cast<const MicrobenchSummary*>(micro.get()), nullptr);
  EXPECT_EQ(dynamic_cast<const EventBuildingSummary*>(micro.get()), nullptr);
}

TEST(SummaryKind, AReportRefusesAnotherFamilysSummary) {
  const Config pull = config_of("pull");
  const Config oto = config_of("one-to-one");
  const MicrobenchSummary micro;
  const EventBuildingSummary eb;
  EXPECT_THROW(report_of(pull).status(micro), std::bad_cast);
  EXPECT_THROW(report_of(oto).print_body(stdout, oto, eb, ReportContext{}), std::bad_cast);
}

// An `events:` run measured whole: the event builders' body says so first.
TEST(SummaryKind, TheWholeRunLineIsTheEventBuilders) {
  const Config pull = config_of("pull");
  EventBuildingSummary s;
  EXPECT_EQ(body(pull, s).find("the whole run is measured"), std::string::npos);
  s.warmup_ignored = true;
  EXPECT_EQ(body(pull, s).rfind("# every event finished within the warm-up", 0), 0u);
}

// A BU whose name does not say so is still a BU: its line and its entry
// tell whether its events were rebuilt; an RU's entry has no rebuild.
TEST(SummaryKind, ABuIsToldByItsRoleNotItsName) {
  const Config pull = config_of("pull");
  EventBuildingSummary s;
  FailureRecord f;
  f.unit = "node 1";
  f.bu = 1;
  f.rank = 1;
  f.cause = "peer lost";
  f.action = "reassigned";
  s.failures.push_back(f);
  EXPECT_NE(body(pull, s).find("node 1 (rank 1) lost at"), std::string::npos);
  EXPECT_NE(body(pull, s).find("(not all built)"), std::string::npos);
  s.failures[0].bu = -1;
  s.failures[0].ru = 1;
  EXPECT_EQ(body(pull, s).find("(not all built)"), std::string::npos);
}

}  // namespace
}  // namespace evb
