// driver_options.tls / devices checked before start (ucx_check.hpp): against
// a given resource list (the rules) and against the UCX of this machine
// (tcp over lo is always there, "bogus" never is).
#include "drivers/ucx/ucx_check.hpp"

#include <gtest/gtest.h>

namespace evb::ucx {
namespace {

Config with(std::map<std::string, std::string> options) {
  Config c;
  c.driver = "ucx";
  c.driver_options = std::move(options);
  return c;
}

const std::vector<std::string> kHere = {"self/memory0", "tcp/lo",      "tcp/eth0",
                                        "posix/memory", "sysv/memory", "cma/memory"};

TEST(UcxCheck, TransportsAndAliasesFoundHerePass) {
  for (const char* tls :
       {"auto", "all", "tcp", "sm", "shm", "mm", "sm,tcp", "^tcp", "self,posix", "^rc,ud"})
    EXPECT_TRUE(check_ucx_options(with({{"tls", tls}}), kHere).empty()) << tls;
}

TEST(UcxCheck, UnknownNameIsNotATransport) {
  const auto m = check_ucx_options(with({{"tls", "tcp,bogus"}}), kHere);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].rfind("driver_options.tls: 'bogus' is not a UCX transport (usable here: ", 0), 0u)
      << m[0];
  EXPECT_NE(m[0].find("sm, sysv, tcp"), std::string::npos) << m[0];
}

TEST(UcxCheck, KnownTransportWithoutDeviceSaysSo) {
  const auto m = check_ucx_options(with({{"tls", "rc"}}), kHere);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("'rc' is a UCX transport this host has no device for"), std::string::npos)
      << m[0];
  // Excluding what is not here is harmless; excluding a typo is not.
  EXPECT_TRUE(check_ucx_options(with({{"tls", "^rc"}}), kHere).empty());
  EXPECT_EQ(check_ucx_options(with({{"tls", "^tpc"}}), kHere).size(), 1u);
}

// validate judges names only: a transport or device this host lacks may be
// on the compute nodes; a name UCX does not know is wrong everywhere.
TEST(UcxCheck, NamesOnlyForValidate) {
  const OptionCheck names = OptionCheck::names;
  EXPECT_TRUE(check_ucx_options(with({{"tls", "rc"}}), kHere, names).empty());
  EXPECT_TRUE(check_ucx_options(with({{"devices", "mlx5_0:1"}}), kHere, names).empty());
  const auto m = check_ucx_options(with({{"tls", "rc,bogus"}}), kHere, names);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("'bogus' is not a UCX transport"), std::string::npos) << m[0];
}

TEST(UcxCheck, Devices) {
  EXPECT_TRUE(check_ucx_options(with({{"devices", "lo"}}), kHere).empty());
  EXPECT_TRUE(check_ucx_options(with({{"devices", "any"}}), kHere).empty());
  const auto m = check_ucx_options(with({{"devices", "lo,mlx5_0:1"}}), kHere);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("driver_options.devices: 'mlx5_0:1' is not a device UCX finds here"),
            std::string::npos)
      << m[0];
}

// The real UCX: its tcp transport on lo is found, "bogus" is not a transport.
TEST(UcxCheck, ThisMachinesUcx) {
  EXPECT_TRUE(
      check_ucx_options(with({{"tls", "tcp"}, {"devices", "lo"}}), OptionCheck::here).empty());
  const auto m = check_ucx_options(with({{"tls", "bogus"}}), OptionCheck::here);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("'bogus' is not a UCX transport"), std::string::npos) << m[0];
}

}  // namespace
}  // namespace evb::ucx
