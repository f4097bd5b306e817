// ru_buffer under on_failure exclude: RUs keep every fragment until its
// event is built, so the ring must hold what can be in flight (nodes x
// credits fragments). Unset, it grows to twice that; set too small, the
// error names ru_buffer, credits, nodes and the minimum.
#include <gtest/gtest.h>

#include "config_error_of.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "core/ring_geometry.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

using RingBufferConfig = test::WithDefaultDriver;

using test::error_of;

const char* const kBig = "nodes: 8\ncredits: 64\nfragment:\n  size: 1MiB\n";

TEST_F(RingBufferConfig, AnUnsetRingGrowsToHoldWhatCanBeInFlight) {
  const Config c = load_config_text(kBig, "run.yaml", {"on_failure=exclude"}, test::real_plugins());
  EXPECT_EQ(c.ru_buffer, 2 * exclude_min_ru_buffer(c));
  EXPECT_EQ(min_ring_slots(c), 2u * 8 * 64);
  // on_failure abort keeps the default, and so does a run whose default is larger.
  EXPECT_EQ(load_config_text(kBig, "run.yaml", {}, test::real_plugins()).ru_buffer, 64ull << 20);
  EXPECT_EQ(load_config_text("nodes: 2\n", "run.yaml", {"on_failure=exclude"}, test::real_plugins())
                .ru_buffer,
            64ull << 20);
}

TEST_F(RingBufferConfig, AnExplicitRingTooSmallIsAnError) {
  const std::string e = error_of(std::string(kBig) + "ru_buffer: 64MiB\n", {"on_failure=exclude"});
  EXPECT_NE(e.find("run.yaml:5:1: ru_buffer: ru_buffer (64 MiB) holds 64 fragments"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("nodes (8) x credits (64) = 512 events"), std::string::npos) << e;
  EXPECT_NE(e.find("at least 512 MiB"), std::string::npos) << e;
  // Exactly nodes x credits fragments is enough.
  EXPECT_EQ(error_of(std::string(kBig) + "ru_buffer: 512MiB\n", {"on_failure=exclude"}), "");
  EXPECT_EQ(error_of(std::string(kBig) + "ru_buffer: 64MiB\n", {}), "");  // abort keeps nothing
}

}  // namespace
}  // namespace evb
