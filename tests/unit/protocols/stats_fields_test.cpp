// What a rank sends rank 0, written from one field table per record
// (protocols/common/stats_fields.hpp for the common part, each protocol's
// own for its part): every field of RankStats, of the protocols' parts and
// of the records inside them survives the wire with a value of its own,
// and reading refuses, with an error naming the field, what a peer should
// never send (unknown or missing fields, values of another shape, lists of
// the wrong length, text that is not a record).
#include "protocols/common/stats_fields.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/error.hpp"
#include "protocols/event_building/event_building_stats_fields.hpp"
#include "protocols/microbench/microbench_stats_fields.hpp"

namespace evb {
namespace {

// A value unlike the member's default, different for each `k`.
void sample(bool& v, int) {
  v = true;
}
void sample(int& v, int k) {
  v = 1000 + k;
}
void sample(int64_t& v, int k) {
  v = -1'000'003'000'007 - k;
}
void sample(uint64_t& v, int k) {
  v = 18'000'000'000'000'000'000ull + static_cast<uint64_t>(k);
}
void sample(double& v, int k) {
  v = (k + 1) / 3.0;
}
void sample(std::string& v, int k) {
  v = "v" + std::to_string(k) + ": a, [b] {c} 'd' #e";
}
void sample(Histogram& h, int k) {
  h.add(1'000 + k);
  h.add(2'000'000);
}
void sample(HostLoadWindow& w, int k) {
  w.measured = true;
  w.start.t_ns = 5 + k;
  w.start.loadavg = 0.5;
  w.end.ticks = CpuTicks{1, 2, 3, 4};
  w.end.freq_mhz = 2400.5;
}
template <class T>
void sample(std::vector<T>& v, int k);
template <class T, size_t N>
void sample(std::array<T, N>& v, int k);
template <TabledRecord T>
void sample(T& record, int k);

template <class T>
void sample(std::vector<T>& v, int k) {
  v.assign(2, T{});
  sample(v[0], k);
  sample(v[1], k + 1);
}
template <class T, size_t N>
void sample(std::array<T, N>& v, int k) {
  for (size_t i = 0; i < N; ++i) sample(v[i], k + static_cast<int>(i));
}
template <TabledRecord T>
void sample(T& record, int k) {
  for_each_field<T>([&](const auto& f) { sample(f.of(record), k++); });
}

template <class T>
std::string text_of(const T& value) {
  YAML::Emitter out;
  write_value(out, value);
  return out.c_str();
}

// Each field of `back` reads as in `sent`, and differs from its default
// (so the field was set, and carried).
template <TabledRecord T>
void expect_every_field_carried(const T& sent, const T& back) {
  const T fresh{};
  for_each_field<T>([&](const auto& f) {
    EXPECT_NE(text_of(f.of(sent)), text_of(f.of(fresh))) << f.name << " keeps its default";
    EXPECT_EQ(text_of(f.of(back)), text_of(f.of(sent))) << f.name;
  });
}

template <TabledRecord T>
std::set<std::string> names() {
  std::set<std::string> out;
  for_each_field<T>([&](const auto& f) { out.insert(f.name); });
  return out;
}

// The message of the evb::Error that `decode` throws, or "" when none.
template <class Fn>
std::string error_of(Fn&& decode) {
  try {
    decode();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// `record`'s text with `edit` applied to its map.
template <class Edit>
std::string edited(const std::string& record, Edit&& edit) {
  YAML::Node n = YAML::Load(record);
  edit(n);
  YAML::Emitter out;
  out << YAML::Flow << n;
  return out.c_str();
}

TEST(StatsFields, EveryRankStatsFieldSurvivesTheWire) {
  RankStats sent;
  sample(sent, 0);
  const RankStats back = RankStats::deserialize(sent.serialize());
  expect_every_field_carried(sent, back);
  EXPECT_TRUE(back.host_load.measured);
  EXPECT_EQ(back.host_load.end.freq_mhz, sent.host_load.end.freq_mhz);
}

TEST(StatsFields, EveryEventBuildingStatsFieldSurvivesTheWire) {
  EventBuildingStats sent;
  sample(sent, 0);
  const auto back = decode_record<EventBuildingStats>(encode_record(sent));
  expect_every_field_carried(sent, back);
  // Spot checks beyond the text: the members themselves.
  EXPECT_EQ(back.integrity.detected_in, sent.integrity.detected_in);
  EXPECT_EQ(back.failures.size(), 2u);
  EXPECT_EQ(back.failures[1].unit, sent.failures[1].unit);
  EXPECT_EQ(back.control[0].source, sent.control[0].source);
  EXPECT_EQ(back.latency.count(), sent.latency.count());
  // Doubles exactly, not only as the same text.
  EXPECT_EQ(back.rate_bin_s, sent.rate_bin_s);
  EXPECT_EQ(back.failures[0].lost_at_s, sent.failures[0].lost_at_s);
}

TEST(StatsFields, EveryMicrobenchStatsFieldSurvivesTheWire) {
  MicrobenchStats sent;
  sample(sent, 0);
  const auto back = decode_record<MicrobenchStats>(encode_record(sent));
  expect_every_field_carried(sent, back);
  EXPECT_EQ(back.step_window_s, sent.step_window_s);
}

// A protocol's part travels inside the rank's record (RankStats::own) and
// is read back, rank by rank, as that protocol's record; a rank that sent
// none reads as nothing counted.
TEST(StatsFields, AProtocolsPartTravelsInsideTheRanksRecord) {
  EventBuildingStats part;
  sample(part, 7);
  RankStats sent;
  sent.rank = 3;
  encode_own_part(sent, part);
  const std::vector<RankStats> ranks = {RankStats::deserialize(sent.serialize()), RankStats{}};
  const std::vector<EventBuildingStats> back = own_parts<EventBuildingStats>(ranks);
  ASSERT_EQ(back.size(), 2u);
  expect_every_field_carried(part, back[0]);
  EXPECT_EQ(text_of(back[1]), text_of(EventBuildingStats{}));
}

TEST(StatsFields, APartOfAnotherProtocolIsRefused) {
  RankStats sent;
  encode_own_part(sent, MicrobenchStats{});
  const std::string wrong =
      error_of([&] { own_parts<EventBuildingStats>(std::vector<RankStats>{sent}); });
  EXPECT_NE(wrong.find("event-building statistics"), std::string::npos) << wrong;
  sent.own = "{bu: [";
  EXPECT_NE(error_of([&] { own_parts<MicrobenchStats>(std::vector<RankStats>{sent}); }), "");
}

TEST(StatsFields, EveryFailureRecordFieldSurvivesTheWire) {
  FailureRecord sent;
  sample(sent, 3);
  expect_every_field_carried(sent, FailureRecord::decode(sent.encode()));
}

TEST(StatsFields, NamesAreUniqueAndTheTextIsKeyedByThem) {
  EXPECT_EQ(names<RankStats>().size(), field_count<RankStats>());
  EXPECT_EQ(names<EventBuildingStats>().size(), field_count<EventBuildingStats>());
  EXPECT_EQ(names<MicrobenchStats>().size(), field_count<MicrobenchStats>());
  EXPECT_EQ(names<FailureRecord>().size(), field_count<FailureRecord>());
  const YAML::Node n = YAML::Load(RankStats{}.serialize());
  ASSERT_TRUE(n.IsMap());
  std::set<std::string> keys;
  for (const auto& kv : n) keys.insert(kv.first.as<std::string>());
  EXPECT_EQ(keys, names<RankStats>());
}

TEST(StatsFields, AFailureRecordReadsInAnyOrder) {
  const FailureRecord r = FailureRecord::decode(
      "{recovered_at_s: 2.5, reassigned: 4, detected_at_s: 1.5, lost_at_s: 1, action: masked, "
      "cause: silent, rank: 3, ru: 1, bu: -1, unit: RU 1}");
  EXPECT_EQ(r.unit, "RU 1");
  EXPECT_EQ(r.ru, 1);
  EXPECT_EQ(r.bu, -1);
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.cause, "silent");
  EXPECT_EQ(r.action, "masked");
  EXPECT_EQ(r.reassigned, 4u);
  EXPECT_DOUBLE_EQ(r.recovered_at_s, 2.5);
}

TEST(StatsFields, AFailureRecordOfTheWrongShapeIsRefused) {
  FailureRecord r;
  r.unit = "BU 1";
  const std::string good = r.encode();
  const auto decode = [](const std::string& text) {
    return error_of([&] { FailureRecord::decode(text); });
  };
  EXPECT_EQ(decode(good), "");
  EXPECT_NE(decode(edited(good, [](YAML::Node& n) { n["colour"] = "red"; }))
                .find("unknown field 'colour'"),
            std::string::npos);
  EXPECT_NE(
      decode(edited(good, [](YAML::Node& n) { n.remove("cause"); })).find("missing field 'cause'"),
      std::string::npos);
  EXPECT_NE(decode(edited(good, [](YAML::Node& n) { n["rank"] = "three"; })).find("'rank'"),
            std::string::npos);
  EXPECT_NE(decode(edited(good, [](YAML::Node& n) { n["reassigned"] = -2; })).find("'reassigned'"),
            std::string::npos);
  EXPECT_NE(
      decode(edited(good, [](YAML::Node& n) { n["unit"] = YAML::Load("[1]"); })).find("'unit'"),
      std::string::npos);
  // Lists (an earlier evbench's records) of 7 or 8 values only.
  EXPECT_NE(decode("[BU 1, 3, peer lost]").find("not 7 or 8"), std::string::npos);
  EXPECT_NE(decode("[BU 1, 3, peer lost, 1, 1.1, 4, 1.2, masked, 9]").find("not 7 or 8"),
            std::string::npos);
  EXPECT_NE(decode("[BU 1, x, peer lost, 1, 1.1, 4, 1.2]").find("'rank'"), std::string::npos);
  EXPECT_NE(decode("just words"), "");
  EXPECT_NE(decode("{unit: [BU"), "");
  EXPECT_NE(decode(""), "");
}

TEST(StatsFields, RankStatsOfTheWrongShapeAreRefused) {
  const std::string good = RankStats{}.serialize();
  const auto decode = [](const std::string& text) {
    return error_of([&] { RankStats::deserialize(text); });
  };
  EXPECT_EQ(decode(good), "");
  const std::string unknown = decode(edited(good, [](YAML::Node& n) { n["colour"] = 1; }));
  EXPECT_NE(unknown.find("rank statistics"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("unknown field 'colour'"), std::string::npos) << unknown;
  EXPECT_NE(decode(edited(good, [](YAML::Node& n) { n.remove("peak_rss_bytes"); }))
                .find("missing field 'peak_rss_bytes'"),
            std::string::npos);
  EXPECT_NE(decode(edited(good, [](YAML::Node& n) { n["lifecycle"] = 1; })).find("'lifecycle'"),
            std::string::npos);
  EXPECT_NE(decode(edited(good, [](YAML::Node& n) { n["own"] = YAML::Load("[1]"); })).find("'own'"),
            std::string::npos);
  EXPECT_NE(decode("[1, 2]"), "");
  EXPECT_NE(decode("{rank: 0"), "");
}

TEST(StatsFields, AnEventBuildingPartOfTheWrongShapeIsRefused) {
  const std::string good = encode_record(EventBuildingStats{});
  const auto decode = [](const std::string& text) {
    return error_of([&] { decode_record<EventBuildingStats>(text); });
  };
  EXPECT_EQ(decode(good), "");
  const std::string unknown = decode(edited(good, [](YAML::Node& n) { n["colour"] = 1; }));
  EXPECT_NE(unknown.find("event-building statistics"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("unknown field 'colour'"), std::string::npos) << unknown;
  EXPECT_NE(decode(edited(good, [](YAML::Node& n) { n.remove("bytes_total"); }))
                .find("missing field 'bytes_total'"),
            std::string::npos);
  // A fixed-length list of another length.
  EXPECT_NE(decode(edited(good, [](YAML::Node& n) { n["injected_in"].push_back(0); }))
                .find("'injected_in'"),
            std::string::npos);
  // A record inside: a failure record with a field too many.
  const std::string inner = decode(edited(good, [](YAML::Node& n) {
    YAML::Node f = YAML::Load(FailureRecord{}.encode());
    f["colour"] = 1;
    n["failures"].push_back(f);
  }));
  EXPECT_NE(inner.find("'failures'"), std::string::npos) << inner;
  EXPECT_NE(inner.find("failure record: unknown field 'colour'"), std::string::npos) << inner;
  // A latency histogram that is not what Histogram::serialize writes.
  const std::string latency =
      decode(edited(good, [](YAML::Node& n) { n["latency"] = "3:1,x:2,;3;5"; }));
  EXPECT_NE(latency.find("field 'latency': latency histogram:"), std::string::npos) << latency;
  EXPECT_NE(decode("[1, 2]"), "");
}

}  // namespace
}  // namespace evb
