// What validation knows of a driver before it starts: its factory's answer
// (PluginKeys::driver_capabilities, DriverFactory::query) for the config's
// own driver_options, never a list of driver names.
#include <gtest/gtest.h>

#include "config_error_of.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

using test::error_of;
using test::real_plugins;

std::optional<Capabilities> queried(const std::string& yaml) {
  return real_plugins().driver_capabilities(load_config_text(yaml, "run.yaml", {}, real_plugins()));
}

TEST(DriverCapabilities, EveryBuiltDriverAnswersAndOthersDoNot) {
  ASSERT_TRUE(real_plugins().driver_capabilities);
  for (const auto& d : real_plugins().drivers) {
    Config c;
    c.driver = d;
    EXPECT_TRUE(real_plugins().driver_capabilities(c)) << d;
  }
  Config c;
  c.driver = "no-such-driver";
  EXPECT_FALSE(real_plugins().driver_capabilities(c));
}

// The answer depends on the options the config gives, as the started
// driver's would.
TEST(DriverCapabilities, TheAnswerReadsTheConfigsOptions) {
  bool any = false;
  if (test::built("mpi")) {
    any = true;
    EXPECT_FALSE(queried("driver: mpi\n")->can_block);
    EXPECT_TRUE(queried("driver: mpi\ndriver_options: {wait: waitany}\n")->can_block);
  }
  if (test::built("libfabric")) {
    any = true;
    EXPECT_TRUE(queried("driver: libfabric\n")->write_immediate);
    EXPECT_FALSE(queried("driver: libfabric\ndriver_options: {write_immediate: emulated}\n")
                     ->write_immediate);
  }
  if (!any) GTEST_SKIP() << "neither mpi nor libfabric is built";
}

// on_failure exclude names the drivers that survive a lost peer: those whose
// answer says so.
TEST(DriverCapabilities, ExcludeNamesTheDriversThatSurvive) {
  std::string surviving, dying;
  for (const auto& d : real_plugins().drivers) {
    Config c;
    c.driver = d;
    if (real_plugins().driver_capabilities(c)->survives_peer_loss)
      surviving += (surviving.empty() ? "" : ", ") + d;
    else
      dying = d;
  }
  if (dying.empty()) GTEST_SKIP() << "every built driver survives a lost peer";
  const std::string e = error_of("on_failure: exclude\ndriver: " + dying + "\n");
  EXPECT_HAS(e, "driver " + dying + " ends the whole job (surviving: " + surviving + ")");
}

// A driver that survives with its defaults but not with the options set
// (ucx, error_handling: none) is named with the key that makes it end the job,
// not listed among the survivors as if the message contradicted itself.
TEST(DriverCapabilities, ExcludeNamesTheOptionThatEndsTheJob) {
  if (!test::built("ucx")) GTEST_SKIP() << "ucx is not built";
  const std::string e =
      error_of("on_failure: exclude\ndriver: ucx\ndriver_options: {error_handling: none}\n");
  EXPECT_HAS(e, "driver ucx ends the whole job with the driver_options set here");
  EXPECT_HAS(e, "driver_options");
  EXPECT_EQ(e.find("surviving:"), std::string::npos) << e;
  EXPECT_EQ(error_of("on_failure: exclude\ndriver: ucx\n"), "");
}

}  // namespace
}  // namespace evb
