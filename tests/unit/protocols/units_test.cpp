// Units without I/O: EVM credit accounting, RU fragments and their
// precomputed checksums, BU checks on headers, sizes and checksums.
#include <gtest/gtest.h>

#include <cstring>

#include "core/crc32c.hpp"
#include "units/builder_unit.hpp"
#include "units/event_manager.hpp"
#include "units/filter_units.hpp"
#include "units/fragment_sizes.hpp"
#include "units/readout_unit.hpp"

namespace evb {
namespace {

Config small() {
  Config c;
  c.nodes = 2;
  c.parallel = 1;
  c.fragment.size = 10000;
  c.ru_buffer = 1 << 20;
  c.verify_sample = 1.0;
  return c;
}

TEST(EventManager, AssignsUntilLimitAndDrains) {
  EventManager evm(2, 3);
  EXPECT_EQ(evm.assign(0), 0u);
  EXPECT_EQ(evm.assign(1), 1u);
  EXPECT_EQ(evm.assign(0), 2u);
  EXPECT_FALSE(evm.assign(1).has_value());
  EXPECT_FALSE(evm.drained());
  evm.completed(0, 0);
  evm.completed(0, 2);
  evm.completed(1, 1);
  EXPECT_TRUE(evm.drained());
  EXPECT_EQ(evm.max_outstanding(), 2u);
  EXPECT_THROW(evm.completed(1, 1), std::logic_error);
}

TEST(ReadoutUnit, PrecomputedChecksumMatchesPayload) {
  Config c = small();
  c.fragment.distribution = SizeDistribution::uniform;
  c.fragment.spread = 0.5;
  c.fragment.meta_segments = 2;
  c.fragment.meta_size = 100;
  ReadoutUnit ru(1, c);
  for (uint64_t e = 0; e < 200; ++e) {
    const FragmentView f = ru.fragment(e);
    ASSERT_LE(f.payload_size, max_payload(c, 1));
    ASSERT_EQ(f.crc, crc32c(f.meta, meta_bytes(c) + f.payload_size)) << "event " << e;
  }
}

TEST(FragmentSizes, DistributionsKeepTheMeanAndTheClamp) {
  Config c = small();
  c.fragment.size = 100000;
  c.fragment.distribution = SizeDistribution::lognormal;
  c.fragment.spread = 0.5;
  double sum = 0;
  for (uint64_t e = 0; e < 20000; ++e) {
    const uint64_t s = fragment_payload(c, 0, e);
    ASSERT_LE(s, 400000u);
    sum += static_cast<double>(s);
  }
  EXPECT_NEAR(sum / 20000, 100000, 5000);
  c.ru_rate_factors = {1.0, 2.0};
  c.fragment.distribution = SizeDistribution::fixed;
  EXPECT_EQ(fragment_payload(c, 1, 5), 200000u);
}

// Builds RU 0's fragment for `event` into the BU's window as it would arrive.
size_t deliver(ReadoutUnit& ru, BuilderUnit& bu, uint32_t slot, uint64_t event) {
  const FragmentView f = ru.fragment(event);
  FragmentHeader h;
  ru.fill_header(h, f, event, bu.index());
  uint8_t* w = bu.window(slot, ru.index());
  std::memcpy(w, &h, sizeof h);
  const size_t body = meta_bytes(bu.config()) + f.payload_size;  // metadata, then payload
  std::memcpy(w + sizeof h, f.meta, body);
  return sizeof h + body;
}

FragmentHeader& header_in(BuilderUnit& bu, uint32_t slot) {
  return *reinterpret_cast<FragmentHeader*>(bu.window(slot, 0));
}

TEST(BuilderUnit, AcceptsSoundFragmentsAndCountsCorruption) {
  const Config c = small();
  ReadoutUnit ru(0, c);
  BuilderUnit bu(1, c);
  bu.start(0, 7, std::vector<int>{0, 1}, 0);
  size_t n = deliver(ru, bu, 0, 7);
  EXPECT_TRUE(bu.accept(0, 0, n));
  EXPECT_FALSE(bu.accept(0, 0, n));  // second copy: duplicate
  EXPECT_EQ(bu.integrity().duplicate, 1u);

  bu.start(1, 8, std::vector<int>{0, 1}, 0);
  n = deliver(ru, bu, 1, 8);
  bu.window(1, 0)[sizeof(FragmentHeader) + 10] ^= 0xFF;  // flip a payload byte
  EXPECT_FALSE(bu.accept(1, 0, n));
  EXPECT_EQ(bu.integrity().corrupt, 1u);
  EXPECT_TRUE(bu.slot(1).bad);

  bu.start(0, 9, std::vector<int>{0, 1}, 0);
  n = deliver(ru, bu, 0, 9);
  EXPECT_FALSE(bu.accept(0, 0, n - 1));  // size does not match the header
  bu.start(0, 10, std::vector<int>{0, 1}, 0);
  n = deliver(ru, bu, 0, 10);
  header_in(bu, 0).event_id = 11;  // another event, header not resealed
  EXPECT_FALSE(bu.accept(0, 0, n));
  EXPECT_EQ(bu.integrity().corrupt, 3u);
  EXPECT_EQ(bu.out_of_sync(), nullptr);
}

// A well-formed fragment of another event (every checksum valid): out of
// sync, not corrupt; recorded for the agent, the event marked not built.
TEST(BuilderUnit, WellFormedFragmentOfAnotherEventIsOutOfSync) {
  const Config c = small();
  ReadoutUnit ru(0, c);
  BuilderUnit bu(1, c);
  bu.start(0, 10, std::vector<int>{0, 1}, 0);
  const size_t n = deliver(ru, bu, 0, 13);  // RU 0 serves event 13 when asked for 10
  EXPECT_FALSE(bu.accept(0, 0, n));
  EXPECT_EQ(bu.integrity().corrupt, 0u);
  EXPECT_EQ(bu.integrity().verified, 1u);  // its payload checksum was checked, and held
  ASSERT_NE(bu.out_of_sync(), nullptr);
  EXPECT_EQ(bu.out_of_sync()->ru, 0);
  EXPECT_EQ(bu.out_of_sync()->slot, 0u);
  EXPECT_EQ(bu.out_of_sync()->expected, 10u);
  EXPECT_EQ(bu.out_of_sync()->labelled, 13u);
  EXPECT_EQ(bu.out_of_sync()->expected_from, -1);  // the slot's event was assigned
  EXPECT_TRUE(bu.slot(0).desync);
  EXPECT_FALSE(bu.slot(0).bad);
  EXPECT_TRUE(bu.slot(0).have[0]);  // arrived: the event can finish (unbuilt)
  // A corrupt fragment of another event is corrupt: the checksums come first.
  bu.start(1, 20, std::vector<int>{0, 1}, 0);
  const size_t m = deliver(ru, bu, 1, 21);
  bu.window(1, 0)[sizeof(FragmentHeader) + 3] ^= 0x10;
  EXPECT_FALSE(bu.accept(1, 0, m));
  EXPECT_EQ(bu.integrity().corrupt, 1u);
  EXPECT_EQ(bu.out_of_sync(), nullptr);
}

// PUSH: the slot's event comes from the first sound header, so a second RU
// that disagrees is recorded with the RU that gave the first label.
TEST(BuilderUnit, PushLabelDisagreementNamesBothRus) {
  const Config c = small();
  ReadoutUnit ru0(0, c), ru1(1, c);
  BuilderUnit bu(0, c);
  bu.start(0, BuilderUnit::kEventFromHeader, std::vector<int>{0, 1}, 0);
  auto arrive = [&](ReadoutUnit& ru, uint64_t event) {
    const FragmentView f = ru.fragment(event);
    FragmentHeader h;
    ru.fill_header(h, f, event, bu.index());
    uint8_t* w = bu.window(0, ru.index());
    std::memcpy(w, &h, sizeof h);
    std::memcpy(w + sizeof h, f.meta, meta_bytes(c) + f.payload_size);
    return bu.accept(0, ru.index(), sizeof h + meta_bytes(c) + f.payload_size);
  };
  EXPECT_TRUE(arrive(ru1, 42)) << bu.first_problem();
  EXPECT_EQ(bu.slot(0).event, 42u);
  EXPECT_EQ(bu.slot(0).label_ru, 1);
  EXPECT_FALSE(arrive(ru0, 40));
  ASSERT_NE(bu.out_of_sync(), nullptr);
  EXPECT_EQ(bu.out_of_sync()->ru, 0);
  EXPECT_EQ(bu.out_of_sync()->labelled, 40u);
  EXPECT_EQ(bu.out_of_sync()->expected, 42u);
  EXPECT_EQ(bu.out_of_sync()->expected_from, 1);
  EXPECT_EQ(bu.integrity().corrupt, 0u);
  EXPECT_TRUE(bu.complete(0));
}

// A desynced RU asked for event e serves the fragment of e + K: header
// event id, size and checksum all of e + K, every checksum valid.
TEST(ReadoutUnit, DesyncServesAWellFormedFragmentOfAnotherEvent) {
  Config c = small();
  c.fragment.distribution = SizeDistribution::uniform;
  c.fragment.spread = 0.5;
  ReadoutUnit ru(1, c);
  ReadoutUnit reference(1, c);
  for (const int64_t k : {3, -2}) {
    ru.desync(k);
    for (uint64_t e = 10; e < 60; ++e) {
      const uint64_t served = e + static_cast<uint64_t>(k);
      EXPECT_EQ(ru.served_event(e), served);
      const FragmentView f = ru.fragment(e);
      EXPECT_EQ(f.payload_size, fragment_payload(c, 1, served)) << "event " << e;
      EXPECT_EQ(f.payload_size, reference.fragment(served, f.slot).payload_size);
      EXPECT_EQ(f.crc, crc32c(f.meta, meta_bytes(c) + f.payload_size)) << "event " << e;
      FragmentHeader h;
      ru.fill_header(h, f, e, 0);
      EXPECT_EQ(h.event_id, served);
      EXPECT_EQ(h.payload_size, f.payload_size);
      EXPECT_EQ(h.crc32c, f.crc);
      EXPECT_EQ(h.header_crc, header_checksum(h));
    }
  }
}

// Each header field the BU checks, wrong alone in a header resealed with a
// valid header checksum, is caught and named.
TEST(BuilderUnit, ChecksEveryHeaderField) {
  const Config c = small();
  ReadoutUnit ru(0, c);
  struct Case {
    const char* why;
    void (*corrupt)(FragmentHeader&);
  };
  const Case cases[] = {
      {"bad magic", [](FragmentHeader& h) { h.magic ^= 1; }},
      {"header version 1, expected 2", [](FragmentHeader& h) { h.version = 1; }},
      {"reserved header bytes set", [](FragmentHeader& h) { h.events = 1; }},
      {"reserved header bytes set", [](FragmentHeader& h) { h.table_crc = 1; }},
      {"reserved header bytes set", [](FragmentHeader& h) { h.reserved = uint32_t{1} << 31; }},
      {"header names RU 1", [](FragmentHeader& h) { h.ru = 1; }},
      {"header names BU 0", [](FragmentHeader& h) { h.bu = 0; }},
      {"does not match the header", [](FragmentHeader& h) { h.payload_size -= 1; }},
      {"metadata 1 x 0 B, configured 0 x 0 B", [](FragmentHeader& h) { h.meta_segments = 1; }},
      {"metadata/payload checksum mismatch", [](FragmentHeader& h) { h.crc32c ^= 1; }},
  };
  for (const Case& k : cases) {
    BuilderUnit bu(1, c);
    bu.start(0, 7, std::vector<int>{0, 1}, 0);
    const size_t n = deliver(ru, bu, 0, 7);
    k.corrupt(header_in(bu, 0));
    header_in(bu, 0).header_crc = header_checksum(header_in(bu, 0));
    EXPECT_FALSE(bu.accept(0, 0, n)) << k.why;
    EXPECT_EQ(bu.integrity().corrupt, 1u) << k.why;
    EXPECT_NE(bu.first_problem().find(k.why), std::string::npos) << bu.first_problem();
  }
}

// A message shorter than the metadata its header names, with a payload size
// chosen so that header + metadata + payload wraps around 2^64 to the bytes
// received: refused by the size check, before any checksum reads past it.
TEST(BuilderUnit, SizeArithmeticCannotWrap) {
  Config c = small();
  c.fragment.meta_segments = 2;
  c.fragment.meta_size = 64;
  ReadoutUnit ru(0, c);
  BuilderUnit bu(1, c);
  bu.start(0, 7, std::vector<int>{0, 1}, 0);
  deliver(ru, bu, 0, 7);
  const size_t bytes = sizeof(FragmentHeader) + 10;
  header_in(bu, 0).payload_size = uint64_t{10} - 128;  // 2^64 - 118
  header_in(bu, 0).header_crc = header_checksum(header_in(bu, 0));
  EXPECT_FALSE(bu.accept(0, 0, bytes));
  EXPECT_NE(bu.first_problem().find("does not match the header"), std::string::npos)
      << bu.first_problem();
}

// A flipped bit anywhere in a fragment is caught: in any header byte (the
// sequence number, version and reserved bytes included) by the header
// checksum, in metadata or payload by the body checksum.
TEST(BuilderUnit, EveryBitFlipIsDetected) {
  Config c = small();
  c.fragment.meta_segments = 2;
  c.fragment.meta_size = 64;
  ReadoutUnit ru(0, c);
  BuilderUnit probe(1, c);
  probe.start(0, 7, std::vector<int>{0, 1}, 0);
  const size_t n = deliver(ru, probe, 0, 7);
  ASSERT_TRUE(probe.accept(0, 0, n)) << probe.first_problem();
  for (size_t byte = 0; byte < n; byte += (byte < 300 ? 1 : 997)) {
    BuilderUnit bu(1, c);
    bu.start(0, 7, std::vector<int>{0, 1}, 0);
    ASSERT_EQ(deliver(ru, bu, 0, 7), n);
    bu.window(0, 0)[byte] ^= static_cast<uint8_t>(1u << (byte % 8));
    EXPECT_FALSE(bu.accept(0, 0, n)) << "byte " << byte;
    EXPECT_EQ(bu.integrity().corrupt, 1u) << "byte " << byte;
  }
}

// PUSH: a slot takes its event id from the first sound header; a corrupt
// first fragment neither sets it nor goes unnoticed.
TEST(BuilderUnit, EventIdComesFromASoundHeader) {
  Config c = small();
  c.nodes = 1;
  ReadoutUnit ru(0, c);
  BuilderUnit bu(0, c);
  bu.start(0, BuilderUnit::kEventFromHeader, std::vector<int>{0}, 0);
  size_t n = deliver(ru, bu, 0, 5);
  header_in(bu, 0).event_id = 9;  // not resealed
  EXPECT_FALSE(bu.accept(0, 0, n));
  EXPECT_EQ(bu.slot(0).event, BuilderUnit::kEventFromHeader);
  bu.start(1, BuilderUnit::kEventFromHeader, std::vector<int>{0}, 0);
  n = deliver(ru, bu, 1, 6);
  EXPECT_TRUE(bu.accept(1, 0, n)) << bu.first_problem();
  EXPECT_EQ(bu.slot(1).event, 6u);
}

TEST(FilterUnits, SlotsWaitForAFreeFu) {
  Config c = small();
  c.fu_per_bu = 1;
  c.fu.processing_time_s = 0.001;
  FilterUnits fus(0, c);
  fus.offer(0, 1, 0);
  fus.offer(1, 2, 0);  // waits: one FU only
  EXPECT_TRUE(fus.finished(500000).empty());
  EXPECT_EQ(fus.finished(1000000), std::vector<uint32_t>{0});
  EXPECT_EQ(fus.finished(2000000), std::vector<uint32_t>{1});
  EXPECT_EQ(fus.processed(), 2u);
}

}  // namespace
}  // namespace evb

namespace evb {
namespace {

TEST(FilterUnits, AcceptRatioHoldsOverManyEvents) {
  Config c = small();
  c.fu.accept_ratio = 0.25;
  FilterUnits fus(0, c);
  for (uint64_t e = 0; e < 4000; ++e) {
    fus.offer(0, e, 0);
    fus.finished(0);
  }
  EXPECT_EQ(fus.processed(), 4000u);
  EXPECT_NEAR(static_cast<double>(fus.accepted()), 1000.0, 100.0);
}

}  // namespace
}  // namespace evb
