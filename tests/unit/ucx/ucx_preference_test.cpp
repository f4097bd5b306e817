// The ucx variant's data_path preference (Capabilities::write_preferred,
// what data_path auto picks): puts where a transport does them in one copy
// or by RDMA, sends where only tcp carries them (bench/data_path.sh).
#include <gtest/gtest.h>

#include "../support/driver_test_util.hpp"
#include "drivers/ucx/ucx_driver.hpp"
#include "drivers/ucx/ucx_options.hpp"
#include "drivers/ucx/ucx_probe.hpp"

namespace evb::ucx {
namespace {

TEST(ucxPreference, PutsWhereOneCopyOrRdmaSendsWhereOnlyTcp) {
  EXPECT_FALSE(puts_beat_sends({"tcp/lo", "self/memory"}, true));
  EXPECT_FALSE(puts_beat_sends({"tcp/eth0"}, false));
  EXPECT_FALSE(puts_beat_sends({}, true));
  EXPECT_TRUE(puts_beat_sends({"tcp/lo", "posix/memory", "cma/memory"}, true));
  // Shared memory does not carry traffic between hosts.
  EXPECT_FALSE(puts_beat_sends({"tcp/eth0", "posix/memory", "sysv/memory"}, false));
  EXPECT_TRUE(puts_beat_sends({"tcp/eth0", "rc_mlx5/mlx5_0:1"}, false));
  EXPECT_TRUE(puts_beat_sends({"dc_mlx5/mlx5_0:1"}, false));
  EXPECT_TRUE(puts_beat_sends({"ud_verbs/mlx5_0:1"}, false));
}

// What a started driver declares follows the transports its context has:
// tls tcp -> send, tls sm on one host -> write.
TEST(ucxPreference, StartedDriverDeclaresItsVariantsPath) {
  for (const char* tls : {"tcp", "sm"}) {
    Config c;
    c.driver_options = {{"tls", tls}};
    DriverContext ctx = test::context_of(0, 1);
    ctx.config = &c;
    UcxDriver d(ctx, parse_ucx_options(&c));
    EXPECT_TRUE(d.capabilities().rdma_write) << tls;
    EXPECT_EQ(d.capabilities().write_preferred, std::string(tls) == "sm") << tls;
    EXPECT_EQ(d.capabilities().shared_memory_path, std::string(tls) == "sm") << tls;
  }
}

// Capabilities::shared_memory_path: one host and a shared-memory transport.
TEST(ucxPreference, SharedMemoryPathOnlyOnOneHostWithAMemoryTransport) {
  EXPECT_TRUE(shares_memory({"tcp/lo", "posix/memory", "cma/memory"}, true));
  EXPECT_TRUE(shares_memory({"sysv/memory"}, true));
  EXPECT_FALSE(shares_memory({"tcp/lo", "self/memory"}, true));
  EXPECT_FALSE(shares_memory({"tcp/eth0", "posix/memory", "sysv/memory"}, false));
  EXPECT_FALSE(shares_memory({"rc_mlx5/mlx5_0:1"}, true));
  EXPECT_FALSE(shares_memory({}, true));
}

}  // namespace
}  // namespace evb::ucx
