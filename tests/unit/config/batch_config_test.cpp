// batch.events (command batches): keys the user did not set adapt (credits
// to two batches, command_size to a full list), an explicit contradiction is
// an error naming both keys, the default changes nothing, and
// pull-noevm refuses batches.
#include <gtest/gtest.h>

#include "config_error_of.hpp"
#include "core/command_batch.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

using BatchKeys = test::WithDefaultDriver;

using test::error_of;

Config load(const std::string& yaml, std::vector<std::string> overrides) {
  return load_config_text(yaml, "run.yaml", overrides, test::real_plugins());
}

TEST_F(BatchKeys, TheDefaultChangesNothing) {
  const Config c = load("nodes: 4\n", {});
  EXPECT_EQ(c.batch.events, 1);
  EXPECT_EQ(c.credits, 2);
  EXPECT_EQ(c.command_size, 64u);
}

TEST_F(BatchKeys, UnsetCreditsAndCommandSizeAdapt) {
  const Config c = load("nodes: 4\n", {"batch.events=16"});
  EXPECT_EQ(c.credits, 32);
  EXPECT_EQ(c.command_size, batch_message_size(16));
  // Set ones are kept when they hold a batch.
  const Config d = load("nodes: 4\ncredits: 20\ncommand_size: 4KiB\n", {"batch.events=16"});
  EXPECT_EQ(d.credits, 20);
  EXPECT_EQ(d.command_size, 4096u);
  // Credits already above two batches stay.
  EXPECT_EQ(load("nodes: 4\n", {"credits=100", "batch.events=4"}).credits, 100);
}

TEST_F(BatchKeys, ExplicitContradictionsAreErrors) {
  const std::string over = error_of("credits: 4\n", {"batch.events=8"});
  EXPECT_NE(over.find("batch.events (8) exceeds credits (4)"), std::string::npos) << over;
  const std::string small = error_of("command_size: 256\n", {"batch.events=8"});
  EXPECT_NE(small.find("cannot hold a batch of 8 commands"), std::string::npos) << small;
  EXPECT_NE(small.find("command_size"), std::string::npos) << small;
  EXPECT_EQ(error_of("command_size: 576\n", {"batch.events=8"}), "");  // exactly a full list
}

TEST_F(BatchKeys, RangeIsOneTo256) {
  EXPECT_NE(error_of("", {"batch.events=0"}), "");
  EXPECT_NE(error_of("", {"batch.events=257"}), "");
  EXPECT_EQ(error_of("", {"batch.events=256"}), "");
  EXPECT_NE(error_of("", {"batch.max_wait=0s"}), "");
}

TEST_F(BatchKeys, PullWithoutEvmRefusesBatches) {
  const std::string e = error_of("protocol: pull-noevm\n", {"batch.events=4"});
  EXPECT_NE(e.find("batch.events (4) is for pull and push"), std::string::npos) << e;
  EXPECT_EQ(error_of("protocol: pull-noevm\n", {"batch.events=1"}), "");
}

}  // namespace
}  // namespace evb
