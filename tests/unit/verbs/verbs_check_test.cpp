// driver_options.device / port checked before start (verbs_check.hpp),
// against a given port list: no RDMA device is needed for the rules.
#include "drivers/verbs/verbs_check.hpp"

#include <gtest/gtest.h>

namespace evb::verbs {
namespace {

Config with(std::map<std::string, std::string> options) {
  Config c;
  c.driver = "verbs";
  c.driver_options = std::move(options);
  return c;
}

const std::vector<PortInfo> kPorts = {
    {"mlx5_0", 1, true, false}, {"mlx5_1", 1, true, false}, {"mlx5_1", 2, false, false}};

TEST(VerbsCheck, DeviceAndPortThatExistPass) {
  EXPECT_TRUE(check_verbs_options(with({{"device", "auto"}}), kPorts).empty());
  EXPECT_TRUE(check_verbs_options(with({{"device", "mlx5_1"}, {"port", "2"}}), kPorts).empty());
}

TEST(VerbsCheck, UnknownDeviceListsTheDevices) {
  const auto m = check_verbs_options(with({{"device", "mlx5_9"}, {"port", "1"}}), kPorts);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0],
            "driver_options.device: 'mlx5_9' is not an RDMA device here (devices: mlx5_0, "
            "mlx5_1; ibv_devices lists them)");
}

TEST(VerbsCheck, MissingPort) {
  const auto m = check_verbs_options(with({{"device", "mlx5_0"}, {"port", "2"}}), kPorts);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0], "driver_options.port: device mlx5_0 has no port 2");
}

// No device at all: the probe refuses the driver, there is nothing to judge.
TEST(VerbsCheck, NoDeviceNothingToJudge) {
  EXPECT_TRUE(check_verbs_options(with({{"device", "mlx5_0"}}), {}).empty());
}

}  // namespace
}  // namespace evb::verbs
