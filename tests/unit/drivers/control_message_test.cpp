// The control-message codec the libfabric and ucx drivers share.
#include "drivers/common/control_message.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace evb {
namespace {

TEST(ControlMessage, MessagesRoundTripAndRejectGarbage) {
  CtlMessage m;
  m.kind = CtlKind::notify;
  m.rank = 3;
  m.size = 8;
  m.a = 123456789;
  m.b = 0xFFFFFFFFu;
  std::byte buf[kControlBytes];
  encode(m, buf);
  auto back = decode(buf);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->kind, CtlKind::notify);
  EXPECT_EQ(back->rank, 3u);
  EXPECT_EQ(back->size, 8u);
  EXPECT_EQ(back->a, 123456789u);
  EXPECT_EQ(back->b, 0xFFFFFFFFu);
  EXPECT_FALSE(decode(std::span<const std::byte>(buf, kControlBytes - 1)).has_value());
  std::byte bad[kControlBytes];
  std::memcpy(bad, buf, sizeof bad);
  bad[0] = std::byte{0};
  EXPECT_FALSE(decode(bad).has_value());
  std::memcpy(bad, buf, sizeof bad);
  bad[6] = std::byte{9};  // unknown kind
  EXPECT_FALSE(decode(bad).has_value());
  EXPECT_EQ(run_id({"a", "b"}), run_id({"a", "b"}));
  EXPECT_NE(run_id({"a", "b"}), run_id({"b", "a"}));
  EXPECT_NE(run_id({"ab"}), run_id({"a", "b"}));
}

}  // namespace
}  // namespace evb
