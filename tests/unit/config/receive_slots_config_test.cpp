// receive_slots: the point-to-point micro-benchmarks' buffers per source.
// Unset it is 0 and the receiver holds one slot per message in flight
// (`parallel`) and half as many more (at parallel 1 the next message need not
// wait for the credit of the one before; at 32 freed slots go back 8 to a
// credit); set it is read as given, within
// its range; the alltoall baseline has no slots, so setting it there is an
// error naming both keys; an event builder does not read it (a warning).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "config_error_of.hpp"
#include "core/config_loader.hpp"
#include "protocols/microbench/microbench_detail.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

using ReceiveSlotsConfig = test::WithDefaultDriver;
using test::error_of;

Config load(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return load_config_text(yaml, "run.yaml", overrides, test::real_plugins());
}

const char* kOneWay = "protocol: one-to-one\nnodes: 2\nsenders: 1\n";

// Unset: the window and half of it more (rounded up), one credit per
// (extra + 1) / 2 freed slots: 2 slots at parallel 1 and 2, ... 48 at 32.
TEST_F(ReceiveSlotsConfig, UnsetMeansTheWindowAndHalfOfItMore) {
  const std::vector<std::array<uint32_t, 4>> expected = {
      // parallel, slots, credits in circulation, freed slots per credit
      {1, 2, 2, 1},
      {2, 3, 3, 1},
      {3, 5, 5, 1},
      {8, 12, 12, 2},
      {32, 48, 48, 8}};
  for (const auto& [parallel, slots, tickets, batch] : expected) {
    const Config c = load(kOneWay, {"parallel=" + std::to_string(parallel)});
    EXPECT_EQ(c.receive_slots, 0);
    EXPECT_EQ(micro::receive_slots_of(c), slots) << parallel;
    EXPECT_EQ(micro::credit_tickets_of(c), tickets) << parallel;
    EXPECT_EQ(micro::credit_batch_of(c), batch) << parallel;
    EXPECT_FALSE(micro::shares_slots(c));
  }
  // Set to 1 at parallel 1 it is one slot, as before the default rose.
  const Config one = load(kOneWay, {"parallel=1", "receive_slots=1"});
  EXPECT_EQ(micro::receive_slots_of(one), 1u);
  EXPECT_FALSE(micro::shares_slots(one));
}

TEST_F(ReceiveSlotsConfig, SetIsReadAsGiven) {
  const Config one = load(std::string(kOneWay) + "parallel: 32\nreceive_slots: 1\n");
  EXPECT_EQ(one.receive_slots, 1);
  EXPECT_EQ(micro::receive_slots_of(one), 1u);
  EXPECT_TRUE(micro::shares_slots(one));
  // One shared slot: the credits are still the window and half of it more.
  EXPECT_EQ(micro::credit_tickets_of(one), 48u);
  EXPECT_EQ(micro::credit_batch_of(one), 8u);
  const Config more = load(kOneWay, {"parallel=4", "receive_slots=256"});
  EXPECT_EQ(micro::receive_slots_of(more), 256u);
  EXPECT_FALSE(micro::shares_slots(more));
  const Config equal = load(kOneWay, {"parallel=4", "receive_slots=4"});
  EXPECT_FALSE(micro::shares_slots(equal));
  // As many slots as the window: the credits are the window, one per message.
  EXPECT_EQ(micro::credit_tickets_of(equal), 4u);
  EXPECT_EQ(micro::credit_batch_of(equal), 1u);
}

TEST_F(ReceiveSlotsConfig, OutOfRangeOrNotANumberIsRefused) {
  EXPECT_HAS(error_of(kOneWay, {"receive_slots=-1"}), "receive_slots");
  EXPECT_HAS(error_of(kOneWay, {"receive_slots=4097"}), "receive_slots");
  EXPECT_HAS(error_of(kOneWay, {"receive_slots=many"}), "receive_slots");
  EXPECT_EQ(error_of(kOneWay, {"receive_slots=4096"}), "");
}

TEST_F(ReceiveSlotsConfig, AlltoallHasNoSlots) {
  const std::string e = error_of("protocol: alltoall\nreceive_slots: 4\n");
  EXPECT_HAS(e, "receive_slots does not apply to protocol alltoall");
  EXPECT_HAS(e, "receive_slots");
  EXPECT_HAS(e, "protocol");
  // Unset, alltoall runs as before (only the driver's collective is missing
  // over the default tcp driver, which is another rule's error).
  EXPECT_EQ(error_of("protocol: alltoall\n").find("receive_slots"), std::string::npos);
}

TEST_F(ReceiveSlotsConfig, EveryPointToPointPatternReadsIt) {
  for (const char* p : {"one-to-one", "many-to-one", "gather", "gather-cmd", "gather-cmd-meta"}) {
    const Config c = load(std::string("protocol: ") + p + "\nnodes: 2\nreceive_slots: 2\n");
    for (const std::string& w : c.warnings)
      EXPECT_EQ(w.find("receive_slots"), std::string::npos) << p << ": " << w;
  }
  const Config pull = load("protocol: pull\nreceive_slots: 2\n");
  EXPECT_TRUE(std::any_of(pull.warnings.begin(), pull.warnings.end(), [](const std::string& w) {
    return w.find("receive_slots: not read by protocol pull") != std::string::npos;
  }));
}

}  // namespace
}  // namespace evb
