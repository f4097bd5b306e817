// on_ru_loss mask without I/O: the EVM's books go on assigning after an RU
// is masked and count the events built without it; a BU slot is complete
// "but" the lost RUs only when every other fragment is there; failure
// records keep what was done (masked) through serialization.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

#include "core/ring_geometry.hpp"
#include "protocols/common/failure_record.hpp"
#include "units/builder_unit.hpp"
#include "units/event_manager.hpp"
#include "units/readout_unit.hpp"

namespace evb {
namespace {

TEST(Masking, AssignmentGoesOnAndMaskedEventsAreCounted) {
  EventManager evm(4, 0);
  EXPECT_EQ(evm.assign(0), 0u);
  EXPECT_EQ(evm.mask(2), 3);
  EXPECT_TRUE(evm.masked(2));
  EXPECT_FALSE(evm.masked(1));
  EXPECT_EQ(evm.masked_count(), 1);
  EXPECT_FALSE(evm.stopping());
  EXPECT_EQ(evm.assign(1), 1u);  // a masked RU stops nothing
  evm.completed_masked(0, 0);
  evm.completed(1, 1);
  EXPECT_EQ(evm.masked_events(), 1u);
  EXPECT_EQ(evm.completed_total(), 2u);
  EXPECT_THROW(evm.mask(2), std::logic_error);
  EXPECT_EQ(evm.mask(0), 2);
}

Config three_nodes() {
  Config c;
  c.nodes = 3;
  c.parallel = 1;
  c.fragment.size = 4096;
  c.ru_buffer = 1 << 20;
  c.verify_sample = 1.0;
  return c;
}

// RU `ru`'s fragment for `event`, written into the BU's window as it arrives.
size_t deliver(ReadoutUnit& ru, BuilderUnit& bu, uint32_t slot, uint64_t event) {
  const FragmentView f = ru.fragment(event);
  FragmentHeader h;
  ru.fill_header(h, f, event, bu.index());
  uint8_t* w = bu.window(slot, ru.index());
  std::memcpy(w, &h, sizeof h);
  const size_t body = meta_bytes(bu.config()) + f.payload_size;
  std::memcpy(w + sizeof h, f.meta, body);
  return sizeof h + body;
}

TEST(Masking, CompleteButTheLostRusOnly) {
  const Config c = three_nodes();
  ReadoutUnit ru0(0, c), ru2(2, c);
  BuilderUnit bu(0, c);
  const std::vector<uint8_t> lost{0, 1, 0};
  const std::vector<uint8_t> none{0, 0, 0};
  const int order[] = {0, 1, 2};
  EXPECT_FALSE(bu.complete_but(0, lost));  // free slot
  bu.start(0, 7, order, 0);
  ASSERT_TRUE(bu.accept(0, 0, deliver(ru0, bu, 0, 7))) << bu.first_problem();
  EXPECT_FALSE(bu.complete_but(0, lost));  // RU 2's fragment is still to come
  ASSERT_TRUE(bu.accept(0, 2, deliver(ru2, bu, 0, 7))) << bu.first_problem();
  EXPECT_TRUE(bu.complete_but(0, lost));   // all but lost RU 1's
  EXPECT_FALSE(bu.complete_but(0, none));  // nobody lost: RU 1 is awaited
  EXPECT_FALSE(bu.complete(0));
  const std::vector<uint8_t> lost2{0, 1, 1};
  EXPECT_TRUE(bu.complete_but(0, lost2));  // a lost RU whose fragment came is no matter
}

TEST(Masking, FailureRecordKeepsItsAction) {
  FailureRecord r;
  r.unit = "RU 2";
  r.rank = 2;
  r.cause = "peer lost";
  r.action = "masked";
  r.lost_at_s = 1.0;
  r.detected_at_s = 1.01;
  const FailureRecord back = FailureRecord::decode(r.encode());
  EXPECT_EQ(back.action, "masked");
  EXPECT_EQ(back.unit, "RU 2");
  // A record of an earlier evbench (no action) still reads.
  const FailureRecord old = FailureRecord::decode("[BU 1, 3, peer lost, 1, 1.1, 4, 1.2]");
  EXPECT_EQ(old.action, "");
  EXPECT_EQ(old.reassigned, 4u);
}

}  // namespace
}  // namespace evb
