// The psm2 driver's options and probe (the real libpsm2 headers and files;
// the driver itself is exercised by the conformance suite and the
// eb_psm2_shm_* runs under scripts/with-psm2-shm.sh).
#include "drivers/psm2/psm2_options.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "core/config.hpp"
#include "core/error.hpp"
#include "drivers/psm2/psm2_library.hpp"

namespace evb::psm2 {
namespace {

// The variant names the devices a run allowed (the report said "psm2" for a
// run over the shared-memory device alone).
TEST(Psm2Variant, NamesTheDevicesBesidesSelf) {
  EXPECT_EQ(psm2_variant(nullptr), "psm2");
  EXPECT_EQ(psm2_variant("self,shm,hfi1"), "psm2");
  EXPECT_EQ(psm2_variant("hfi1,shm"), "psm2");
  EXPECT_EQ(psm2_variant("self,shm"), "psm2/shm");
  EXPECT_EQ(psm2_variant("shm"), "psm2/shm");
  EXPECT_EQ(psm2_variant("self,hfi1"), "psm2/hfi1");
  EXPECT_EQ(psm2_variant("self,,shm,shm"), "psm2/shm");
  EXPECT_EQ(psm2_variant(""), "psm2");
}

TEST(Psm2Options, ParsesDurationsAndRefusesGarbage) {
  Config c;
  c.driver_options = {{"connect_timeout", "2.5"}, {"driver_options.shutdown_timeout", "1"}};
  const Psm2Options o = parse_psm2_options(&c);
  EXPECT_EQ(o.connect_timeout.count(), 2500);
  EXPECT_EQ(o.shutdown_timeout.count(), 1000);
  EXPECT_EQ(parse_psm2_options(nullptr).connect_timeout.count(), 30000);
  Config bad;
  bad.driver_options = {{"connect_timeout", "soon"}};
  EXPECT_THROW(parse_psm2_options(&bad), ConfigError);
}

TEST(Psm2Probe, SaysWhatLibpsm2Needs) {
  const DriverProbe p = probe_psm2();
  EXPECT_NE(p.library_version.find("libpsm2"), std::string::npos);
  struct stat st {};
  const bool hfi1 = ::stat("/dev/hfi1_0", &st) == 0;
  EXPECT_EQ(p.can_run, hfi1 && ::stat("/sys/class/infiniband/hfi1_0", &st) == 0);
  if (!p.can_run) {
    EXPECT_NE(p.reason.find("hfi1"), std::string::npos) << p.reason;
    EXPECT_NE(p.reason.find("with-psm2-shm.sh"), std::string::npos) << p.reason;
  }
}

}  // namespace
}  // namespace evb::psm2
