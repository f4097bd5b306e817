// verify.payload: what each value means for the BUs' payload checks in the
// ordinary build (private payloads), and that corruption injection, which
// only payload checks find, contradicts `off` with both keys named.
#include <gtest/gtest.h>

#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "core/payload_memory.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

using VerifyPayloadConfig = test::WithDefaultDriver;

Config load(const std::vector<std::string>& overrides) {
  return load_config_text("nodes: 4\n", "run.yaml", overrides, test::real_plugins());
}

TEST_F(VerifyPayloadConfig, AutoAndOnCheckPrivatePayloadsOffDoesNot) {
  ASSERT_FALSE(payload_memory_shared());  // the ordinary build
  EXPECT_EQ(load({}).verify_payload, VerifyPayload::automatic);
  EXPECT_TRUE(payload_checks(load({})));
  EXPECT_TRUE(payload_checks(load({"verify.payload=on"})));
  EXPECT_FALSE(payload_checks(load({"verify.payload=off"})));
}

TEST_F(VerifyPayloadConfig, CorruptionInjectionNeedsPayloadChecks) {
  for (const char* fault : {"fault.corrupt=0.5", "fault.corrupt_every=10"}) {
    try {
      load({"verify.payload=off", fault});
      ADD_FAILURE() << fault << " with verify.payload off was accepted";
    } catch (const ConfigError& e) {
      const std::string what = e.what();
      const std::string key = std::string(fault).substr(0, std::string(fault).find('='));
      EXPECT_NE(what.find(key + " needs payload checks"), std::string::npos) << what;
      EXPECT_NE(what.find("verify.payload"), std::string::npos) << what;
    }
    EXPECT_NO_THROW(load({"verify.payload=on", fault}));
  }
}

TEST_F(VerifyPayloadConfig, BadValueListsTheChoices) {
  try {
    load({"verify.payload=sometimes"});
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("verify.payload"), std::string::npos) << what;
    EXPECT_NE(what.find("auto"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace evb
