// on_ru_loss (stop | mask): parsed and written back, mask implying
// on_failure exclude when that is not set, and refused with both keys named
// when on_failure says abort or the protocol has no EVM.
#include <gtest/gtest.h>

#include "config_error_of.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

using OnRuLossConfig = test::WithDefaultDriver;

using test::error_of;

TEST_F(OnRuLossConfig, DefaultsToStop) {
  const Config c = load_config_text("on_failure: exclude\n", "run.yaml", {}, test::real_plugins());
  EXPECT_EQ(c.on_ru_loss, OnRuLoss::stop);
  EXPECT_NE(to_yaml(c).find("on_ru_loss: stop"), std::string::npos) << to_yaml(c);
}

TEST_F(OnRuLossConfig, MaskParsesAndRoundTrips) {
  const Config c = load_config_text("on_failure: exclude\non_ru_loss: mask\nprotocol: push\n",
                                    "run.yaml", {}, test::real_plugins());
  EXPECT_EQ(c.on_ru_loss, OnRuLoss::mask);
  const Config back = load_config_text(to_yaml(c), "resolved.yaml", {}, test::real_plugins());
  EXPECT_EQ(back.on_ru_loss, OnRuLoss::mask);
  EXPECT_EQ(to_yaml(back), to_yaml(c));
}

// mask goes on after a lost peer: it brings on_failure exclude with it.
TEST_F(OnRuLossConfig, MaskImpliesExcludeWhenOnFailureIsNotSet) {
  const Config c = load_config_text("", "run.yaml", {"on_ru_loss=mask"}, test::real_plugins());
  EXPECT_EQ(c.on_failure, OnFailure::exclude);
}

TEST_F(OnRuLossConfig, MaskWithOnFailureAbortNamesBothKeys) {
  const std::string e = error_of("on_failure: abort\non_ru_loss: mask\n");
  EXPECT_HAS(e, "run.yaml");
  EXPECT_HAS(e, "on_ru_loss");
  EXPECT_HAS(e, "on_failure is abort");
  const std::string set = error_of("", {"on_failure=abort", "on_ru_loss=mask"});
  EXPECT_HAS(set, "on_ru_loss");
  EXPECT_HAS(set, "needs on_failure exclude");
}

TEST_F(OnRuLossConfig, MaskNeedsAnEvm) {
  const std::string e = error_of("protocol: pull-noevm\non_ru_loss: mask\n");
  EXPECT_HAS(e, "on_ru_loss");
  EXPECT_HAS(e, "protocol pull-noevm has none");
}

TEST_F(OnRuLossConfig, RefusesAnUnknownValue) {
  const std::string e = error_of("on_ru_loss: skip\n");
  EXPECT_HAS(e, "on_ru_loss");
  EXPECT_HAS(e, "mask");
}

}  // namespace
}  // namespace evb
