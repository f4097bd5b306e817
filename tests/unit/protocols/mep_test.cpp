// Multi-event fragments (fragment.events = p > 1): the RU's header version 3
// and its table of events, the BU's checks on hostile tables (each resealed
// with valid checksums, so only the table check can catch it), and the
// event numbers inside a MEP checked one by one.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "core/crc32c.hpp"
#include "units/builder_unit.hpp"
#include "units/fragment_sizes.hpp"
#include "units/readout_unit.hpp"
#include "units/window_layout.hpp"

namespace evb {
namespace {

Config mep_config(uint32_t events) {
  Config c;
  c.nodes = 2;
  c.parallel = 1;
  c.fragment.size = 200;
  c.fragment.distribution = SizeDistribution::uniform;
  c.fragment.spread = 0.5;
  c.fragment.events = events;
  c.ru_buffer = 8 << 20;
  c.verify_sample = 1.0;
  return c;
}

// RU 0's fragment of MEP `mep` built into the BU's window as it would arrive
// (the header and table written straight into the window's head room).
size_t deliver(ReadoutUnit& ru, BuilderUnit& bu, uint32_t slot, uint64_t mep) {
  const FragmentView f = ru.fragment(mep);
  uint8_t* w = bu.window(slot, ru.index());
  ru.fill_header(*reinterpret_cast<FragmentHeader*>(w), f, mep, bu.index());
  const size_t body = meta_bytes(bu.config()) + f.payload_size;
  std::memcpy(w + ru.head_bytes(), f.meta, body);
  return ru.head_bytes() + body;
}

FragmentHeader& header_in(BuilderUnit& bu, uint32_t slot) {
  return *reinterpret_cast<FragmentHeader*>(bu.window(slot, 0));
}

MepEntry* table_in(BuilderUnit& bu, uint32_t slot) {
  return reinterpret_cast<MepEntry*>(bu.window(slot, 0) + sizeof(FragmentHeader));
}

// Recomputes both checksums that cover the table, as a forger would.
void reseal(BuilderUnit& bu, uint32_t slot, uint32_t events) {
  FragmentHeader& h = header_in(bu, slot);
  h.table_crc = crc32c(table_in(bu, slot), events * sizeof(MepEntry));
  h.header_crc = header_checksum(h);
}

TEST(Mep, HeaderVersionThreeWithOneEntryPerEvent) {
  const Config c = mep_config(4);
  ReadoutUnit ru(1, c);
  EXPECT_EQ(ru.head_bytes(), sizeof(FragmentHeader) + 4 * sizeof(MepEntry));
  std::vector<uint64_t> head(ru.head_bytes() / 8);
  auto& h = *reinterpret_cast<FragmentHeader*>(head.data());
  const auto* table = reinterpret_cast<const MepEntry*>(head.data() + sizeof(FragmentHeader) / 8);
  for (uint64_t mep = 0; mep < 50; ++mep) {
    const FragmentView f = ru.fragment(mep);
    ru.fill_header(h, f, mep, 0);
    EXPECT_EQ(h.version, kMepFragmentVersion);
    EXPECT_EQ(h.events, 4u);
    EXPECT_EQ(h.event_id, mep);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < 4; ++i) {
      EXPECT_EQ(table[i].event, 4 * mep + i);
      EXPECT_EQ(table[i].size, fragment_payload(c, 1, 4 * mep + i));
      sum += table[i].size;
    }
    EXPECT_EQ(h.payload_size, sum);
    EXPECT_EQ(f.crc, crc32c(f.meta, f.payload_size));
    EXPECT_EQ(h.table_crc, crc32c(table, 4 * sizeof(MepEntry)));
    EXPECT_EQ(h.header_crc, header_checksum(h));
  }
}

TEST(Mep, OneEventPerFragmentKeepsVersionTwo) {
  const Config c = mep_config(1);
  ReadoutUnit ru(0, c);
  EXPECT_EQ(ru.head_bytes(), sizeof(FragmentHeader));
  FragmentHeader h;
  ru.fill_header(h, ru.fragment(3), 3, 0);
  EXPECT_EQ(h.version, kFragmentVersion);
  EXPECT_EQ(h.events, 0u);
  EXPECT_EQ(h.table_crc, 0u);
}

// Windows and rings hold p events of the largest payload behind the head.
TEST(Mep, BuffersHoldPEventsBehindTheTable) {
  const Config one = mep_config(1);
  const Config many = mep_config(1000);
  EXPECT_GE(WindowLayout(many).size(0),
            head_bytes(many) + 1000 * max_payload(many, 0) + meta_bytes(many));
  EXPECT_GE(ReadoutUnit::slot_stride(many, 0), head_bytes(many) + 1000 * max_payload(many, 0));
  EXPECT_LT(ring_slots(many, 0), ring_slots(one, 0));
}

TEST(Mep, BuilderAcceptsSoundMepsOfAThousandEvents) {
  const Config c = mep_config(1000);
  ReadoutUnit ru(0, c);
  BuilderUnit bu(1, c);
  for (uint64_t mep = 0; mep < 20; ++mep) {
    bu.start(0, mep, std::vector<int>{0, 1}, 0);
    const size_t n = deliver(ru, bu, 0, mep);
    EXPECT_TRUE(bu.accept(0, 0, n)) << bu.first_problem();
    bu.release(0);
  }
  EXPECT_EQ(bu.integrity().corrupt, 0u);
  EXPECT_EQ(bu.integrity().out_of_sync, 0u);
}

// Hostile tables with every checksum valid: corrupt, named, never out of sync.
TEST(Mep, HostileTablesAreCorrupt) {
  const Config c = mep_config(8);
  struct Case {
    const char* why;
    void (*forge)(FragmentHeader&, MepEntry*);
  };
  const Case cases[] = {
      {"a MEP of 7 events, configured 8", [](FragmentHeader& h, MepEntry*) { h.events = 7; }},
      {"a MEP of 4294967295 events", [](FragmentHeader& h, MepEntry*) { h.events = UINT32_MAX; }},
      {"exceed the", [](FragmentHeader&, MepEntry* t) { t[3].size = UINT64_MAX; }},
      {"exceed the",
       [](FragmentHeader&, MepEntry* t) {  // two sizes that wrap to the right sum
         t[1].size += uint64_t{1} << 63;
         t[2].size += uint64_t{1} << 63;
       }},
      {"sizes add up to", [](FragmentHeader&, MepEntry* t) { t[7].size -= 1; }},
      {"header version 2, expected 3", [](FragmentHeader& h, MepEntry*) { h.version = 2; }},
  };
  for (const Case& k : cases) {
    ReadoutUnit ru(0, c);
    BuilderUnit bu(1, c);
    bu.start(0, 5, std::vector<int>{0, 1}, 0);
    const size_t n = deliver(ru, bu, 0, 5);
    k.forge(header_in(bu, 0), table_in(bu, 0));
    reseal(bu, 0, 8);
    EXPECT_FALSE(bu.accept(0, 0, n)) << k.why;
    EXPECT_EQ(bu.integrity().corrupt, 1u) << k.why;
    EXPECT_EQ(bu.out_of_sync(), nullptr) << k.why;
    EXPECT_NE(bu.first_problem().find(k.why), std::string::npos) << bu.first_problem();
  }
  // A table changed without resealing: its checksum (held in the header).
  ReadoutUnit ru(0, c);
  BuilderUnit bu(1, c);
  bu.start(0, 5, std::vector<int>{0, 1}, 0);
  const size_t n = deliver(ru, bu, 0, 5);
  table_in(bu, 0)[2].event ^= 1;
  EXPECT_FALSE(bu.accept(0, 0, n));
  EXPECT_NE(bu.first_problem().find("MEP table checksum mismatch"), std::string::npos)
      << bu.first_problem();
}

// A sound MEP whose label is right but one event inside is not: out of sync,
// that event named; the RU is the BU's to name (expected_from -1).
TEST(Mep, WrongEventInsideAMepIsOutOfSyncAndNamed) {
  const Config c = mep_config(8);
  ReadoutUnit ru(0, c);
  BuilderUnit bu(1, c);
  bu.start(0, 5, std::vector<int>{0, 1}, 0);
  const size_t n = deliver(ru, bu, 0, 5);
  table_in(bu, 0)[6].event = 1234;
  reseal(bu, 0, 8);
  EXPECT_FALSE(bu.accept(0, 0, n));
  EXPECT_EQ(bu.integrity().corrupt, 0u);
  ASSERT_NE(bu.out_of_sync(), nullptr);
  EXPECT_TRUE(bu.out_of_sync()->in_mep);
  EXPECT_EQ(bu.out_of_sync()->mep, 5u);
  EXPECT_EQ(bu.out_of_sync()->expected, 5u * 8 + 6);
  EXPECT_EQ(bu.out_of_sync()->labelled, 1234u);
  EXPECT_EQ(bu.out_of_sync()->expected_from, -1);
  EXPECT_TRUE(bu.slot(0).desync);
}

// A desync by K shifts event numbers: by less than p the label stays and the
// table shows it; by a multiple of p the label moves (out of sync as with
// p = 1); backwards by one the label is the MEP before.
TEST(Mep, DesyncShiftsEventsAndTheLabelFollowsTheFirst) {
  const Config c = mep_config(8);
  struct Case {
    int64_t by;
    uint64_t label;  // for MEP 5
    bool in_mep;
  };
  for (const Case& k : {Case{3, 5, true}, Case{16, 7, false}, Case{-1, 4, false}}) {
    ReadoutUnit ru(0, c);
    ru.desync(k.by);
    BuilderUnit bu(1, c);
    bu.start(0, 5, std::vector<int>{0, 1}, 0);
    const size_t n = deliver(ru, bu, 0, 5);
    EXPECT_EQ(header_in(bu, 0).event_id, k.label) << k.by;
    EXPECT_EQ(table_in(bu, 0)[0].event, static_cast<uint64_t>(40 + k.by)) << k.by;
    EXPECT_FALSE(bu.accept(0, 0, n)) << k.by;
    EXPECT_EQ(bu.integrity().corrupt, 0u) << bu.first_problem();
    ASSERT_NE(bu.out_of_sync(), nullptr) << k.by;
    EXPECT_EQ(bu.out_of_sync()->in_mep, k.in_mep) << k.by;
  }
}

}  // namespace
}  // namespace evb
