// data_path resolution (resolve_data_path): auto follows the driver's
// declared preference for its variant, write needs rdma_write, send is send.
#include "protocols/common/data_path.hpp"

#include <gtest/gtest.h>

#include <string>

#include "../support/recording_driver.hpp"
#include "core/error.hpp"

namespace evb {
namespace {

DataPath resolved(DataPath asked, bool rdma_write, bool write_preferred) {
  test_support::RecordingDriver d;
  d.caps.rdma_write = rdma_write;
  d.caps.write_preferred = write_preferred;
  Config c;
  c.data_path = asked;
  return resolve_data_path(c, d);
}

TEST(DataPath, AutoTakesTheDriversPreferredPath) {
  EXPECT_EQ(resolved(DataPath::automatic, true, true), DataPath::write);
  EXPECT_EQ(resolved(DataPath::automatic, true, false), DataPath::send);
  EXPECT_EQ(resolved(DataPath::automatic, false, false), DataPath::send);
}

TEST(DataPath, ExplicitChoicesStand) {
  EXPECT_EQ(resolved(DataPath::write, true, false), DataPath::write);
  EXPECT_EQ(resolved(DataPath::send, true, true), DataPath::send);
  try {
    resolved(DataPath::write, false, false);
    ADD_FAILURE() << "write accepted without rdma_write";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("rdma_write"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace evb
