// parse_control: what POST /control may change, checked against the limits
// set at start; every refusal names the key and the limit, and one bad key
// refuses the whole request.
#include "protocols/monitor/control.hpp"

#include <gtest/gtest.h>

#include <string>

namespace evb {
namespace {

ControlLimits limits() {
  ControlLimits l;
  l.nodes = 4;
  l.credits_allocated = 4;
  l.processing_time_max_s = 0.01;
  l.rate_factor_max = {2, 2, 1, 4};
  return l;
}

// A refusal with `status` whose message contains every one of `parts`.
void expect_refused(const std::string& body, int status, std::initializer_list<const char*> parts,
                    const ControlLimits& l = limits()) {
  const ControlParse p = parse_control(body, l);
  EXPECT_EQ(p.status, status) << body << " -> " << p.message;
  for (const char* part : parts)
    EXPECT_NE(p.message.find(part), std::string::npos)
        << body << ": '" << p.message << "' lacks '" << part << "'";
  EXPECT_FALSE(p.request.parallel || p.request.credits || p.request.processing_time_s ||
               p.request.ru_rate_factors || p.request.pause || !p.request.background.empty())
      << body << ": a refused request carries nothing";
}

TEST(ParseControl, AcceptsEachKeyWithItsValue) {
  ControlParse p = parse_control(R"({"parallel": 2})", limits());
  ASSERT_EQ(p.status, 202) << p.message;
  EXPECT_EQ(p.request.parallel, 2);
  EXPECT_FALSE(p.request.credits.has_value());

  p = parse_control("credits: 4", limits());  // YAML as well as JSON
  ASSERT_EQ(p.status, 202) << p.message;
  EXPECT_EQ(p.request.credits, 4);

  p = parse_control(R"({"ru_rate_factors": [1, 0.5, 1, 4]})", limits());
  ASSERT_EQ(p.status, 202) << p.message;
  ASSERT_TRUE(p.request.ru_rate_factors.has_value());
  EXPECT_EQ(*p.request.ru_rate_factors, (std::vector<double>{1, 0.5, 1, 4}));

  p = parse_control(R"({"pause": true})", limits());
  ASSERT_EQ(p.status, 202) << p.message;
  EXPECT_EQ(p.request.pause, true);
  p = parse_control(R"({"resume": true})", limits());
  ASSERT_EQ(p.status, 202) << p.message;
  EXPECT_EQ(p.request.pause, false);
}

TEST(ParseControl, AcceptsSeveralKeysAtOnce) {
  const ControlParse p =
      parse_control(R"({"parallel": 1, "credits": 1, "fu.processing_time": "2ms"})", limits());
  ASSERT_EQ(p.status, 202) << p.message;
  EXPECT_EQ(p.request.parallel, 1);
  EXPECT_EQ(p.request.credits, 1);
  ASSERT_TRUE(p.request.processing_time_s.has_value());
  EXPECT_DOUBLE_EQ(*p.request.processing_time_s, 0.002);
}

TEST(ParseControl, ProcessingTimeTakesSecondsOrAUnit) {
  const std::pair<const char*, double> cases[] = {{R"({"fu.processing_time": 0.002})", 0.002},
                                                  {R"({"fu.processing_time": "500us"})", 500e-6},
                                                  {R"({"fu.processing_time": "10ms"})", 0.01},
                                                  {"fu.processing_time: 0", 0.0},
                                                  {"fu.processing_time: 3 us", 3e-6}};
  for (const auto& [body, seconds] : cases) {
    const ControlParse p = parse_control(body, limits());
    ASSERT_EQ(p.status, 202) << body << " -> " << p.message;
    ASSERT_TRUE(p.request.processing_time_s.has_value()) << body;
    EXPECT_DOUBLE_EQ(*p.request.processing_time_s, seconds) << body;
  }
}

TEST(ParseControl, RefusesValuesOutOfRangeNamingKeyAndLimit) {
  expect_refused(R"({"credits": 9})", 400,
                 {"credits: 9 exceeds the 4 slots per BU allocated at start", "(1..4)"});
  expect_refused(R"({"credits": 0})", 400, {"credits: 0", "(1..4)"});
  expect_refused(R"({"parallel": 5})", 400, {"parallel: 5 exceeds the 4 nodes", "(1..4)"});
  expect_refused(R"({"parallel": -1})", 400, {"parallel: -1", "(1..4)"});
  expect_refused(R"({"fu.processing_time": "1s"})", 400,
                 {"fu.processing_time: 1 s exceeds 0.01 s", "(0..0.01 s)"});
  expect_refused(R"({"fu.processing_time": "-2ms"})", 400, {"fu.processing_time", "negative"});
}

TEST(ParseControl, RefusesRateFactorsOfTheWrongShapeOrSize) {
  expect_refused(R"({"ru_rate_factors": [1, 1, 1]})", 400, {"ru_rate_factors: 3 entries", "4 RUs"});
  expect_refused(R"({"ru_rate_factors": 1})", 400, {"ru_rate_factors", "list of 4"});
  expect_refused(R"({"ru_rate_factors": [1, 0, 1, 1]})", 400,
                 {"ru_rate_factors[1]: 0 must be above 0", "(0 < factor <= 2)"});
  expect_refused(R"({"ru_rate_factors": [1, 1, 1.5, 1]})", 400,
                 {"ru_rate_factors[2]: 1.5 exceeds 1", "RU 2", "(0 < factor <= 1)"});
  expect_refused(R"({"ru_rate_factors": [1, 1, "x", 1]})", 400,
                 {"ru_rate_factors[2]: expected a number"});
}

TEST(ParseControl, RefusesValuesOfTheWrongType) {
  expect_refused(R"({"parallel": "2"})", 400, {"parallel: expected an integer"});
  expect_refused(R"({"parallel": "two"})", 400, {"parallel: expected an integer", "'two'"});
  expect_refused(R"({"credits": 2.5})", 400, {"credits: expected an integer", "'2.5'"});
  expect_refused(R"({"credits": [2]})", 400, {"credits: expected an integer"});
  expect_refused(R"({"credits": null})", 400, {"credits: a value is required"});
  expect_refused(R"({"fu.processing_time": "fast"})", 400,
                 {"fu.processing_time", "expected a duration"});
  expect_refused(R"({"fu.processing_time": "2 parsecs"})", 400,
                 {"fu.processing_time", "unknown duration unit"});
  expect_refused(R"({"pause": false})", 400, {"pause: the only value is true", "resume"});
  expect_refused(R"({"pause": "true"})", 400, {"pause: the only value is true"});
  expect_refused(R"({"resume": 1})", 400, {"resume: the only value is true"});
}

TEST(ParseControl, PauseAndResumeTogetherAreRefused) {
  expect_refused(R"({"pause": true, "resume": true})", 400, {"pause and resume together"});
}

TEST(ParseControl, UnknownKeyIsNamedWithTheKeysThatCanChange) {
  expect_refused(R"({"paralel": 2})", 400,
                 {"unknown key 'paralel'",
                  "parallel, credits, fu.processing_time, "
                  "ru_rate_factors, pause, resume"});
}

TEST(ParseControl, KeyThisProtocolDoesNotTakeIsAConflictWithItsReason) {
  ControlLimits l = limits();
  l.not_here = {{"parallel", "push does not read parallel"}};
  expect_refused(R"({"parallel": 2})", 409, {"parallel", "push does not read parallel"}, l);
  // The keys listed as changeable leave it out.
  const ControlParse p = parse_control(R"({"nope": 1})", l);
  EXPECT_EQ(p.status, 400);
  EXPECT_NE(p.message.find("credits, fu.processing_time"), std::string::npos) << p.message;
  EXPECT_EQ(p.message.find("parallel"), std::string::npos) << p.message;
}

TEST(ParseControl, BackgroundEntriesAreSwitchedByNumberFromOne) {
  ControlLimits l = limits();
  l.background_entries = 2;
  ControlParse p = parse_control(R"({"background.2.active": false})", l);
  ASSERT_EQ(p.status, 202) << p.message;
  ASSERT_EQ(p.request.background.size(), 1u);
  EXPECT_EQ(p.request.background[0].first, 1);  // entry 2, index 1
  EXPECT_FALSE(p.request.background[0].second);
  p = parse_control("{background.1.active: true, background.2.active: false, parallel: 2}", l);
  ASSERT_EQ(p.status, 202) << p.message;
  ASSERT_EQ(p.request.background.size(), 2u);
  EXPECT_TRUE(p.request.background[0].second);
  EXPECT_EQ(p.request.parallel, 2);
}

TEST(ParseControl, BackgroundKeysOutsideTheRunAreRefusedNamingTheKey) {
  ControlLimits l = limits();
  l.background_entries = 2;
  expect_refused(R"({"background.3.active": true})", 400,
                 {"background.3.active", "no background entry 3", "1..2"}, l);
  expect_refused(R"({"background.0.active": true})", 400, {"background.0.active", "1..2"}, l);
  expect_refused(R"({"background.1.active": "true"})", 400,
                 {"background.1.active", "expected true", "'true'"}, l);
  expect_refused(R"({"background.1.active": 1})", 400, {"background.1.active"}, l);
  expect_refused(R"({"background.one.active": true})", 400,
                 {"unknown key 'background.one.active'", "background.N.active"}, l);
  expect_refused(R"({"background.1.rate": true})", 400, {"'background.1.rate'"}, l);
  // A run without background: the key is named with the reason.
  expect_refused(R"({"background.1.active": false})", 400,
                 {"background.1.active", "no background entries"});
  // One bad background key refuses the rest of the request too.
  expect_refused(R"({"parallel": 2, "background.9.active": false})", 400, {"background.9.active"},
                 l);
}

TEST(ParseControl, TheChangeableKeysNameBackgroundOnlyWhenTheRunHasIt) {
  ControlLimits l = limits();
  expect_refused(R"({"paralel": 2})", 400, {"pause, resume"}, l);
  EXPECT_EQ(parse_control(R"({"paralel": 2})", l).message.find("background"), std::string::npos);
  l.background_entries = 3;
  expect_refused(R"({"paralel": 2})", 400, {"background.N.active (N 1..3)"}, l);
}

TEST(ParseControl, OneBadKeyRefusesTheWholeRequest) {
  expect_refused(R"({"parallel": 2, "credits": 9})", 400, {"credits: 9"});
  expect_refused(R"({"credits": 9, "parallel": 2})", 400, {"credits: 9"});
  expect_refused(R"({"pause": true, "bogus": 1})", 400, {"unknown key 'bogus'"});
}

TEST(ParseControl, RefusesBodiesThatAreNotAMapping) {
  const char* hint = "body must be a mapping such as {\"parallel\": 2}";
  expect_refused("", 400, {hint});
  expect_refused("{}", 400, {hint});
  expect_refused("[1, 2]", 400, {hint});
  expect_refused("parallel", 400, {hint});
  expect_refused(R"({"parallel": 2)", 400, {hint});  // syntax error
  expect_refused("{\"a\": [[[[", 400, {hint});
  expect_refused(R"({"parallel": 1, "parallel": 2})", 400, {"parallel: given twice"});
}

TEST(ParseControl, LongTextFromTheBodyIsShortenedInMessages) {
  const std::string key(500, 'k');
  const ControlParse p = parse_control("{\"" + key + "\": 1}", limits());
  EXPECT_EQ(p.status, 400);
  EXPECT_LT(p.message.size(), 300u) << p.message;
}

}  // namespace
}  // namespace evb
