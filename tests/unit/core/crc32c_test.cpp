// CRC32C against published test vectors (RFC 3720 appendix B.4 and the
// classic "123456789" check value), hardware and software paths alike.
#include "core/crc32c.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace evb {
namespace {

TEST(Crc32c, CheckValue) {
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
}

TEST(Crc32c, Rfc3720Vectors) {
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xFF), inc(32), dec(32);
  std::iota(inc.begin(), inc.end(), 0);
  for (int i = 0; i < 32; ++i) dec[i] = static_cast<uint8_t>(31 - i);
  EXPECT_EQ(crc32c(zeros.data(), 32), 0x8A9136AAu);
  EXPECT_EQ(crc32c(ones.data(), 32), 0x62A8AB43u);
  EXPECT_EQ(crc32c(inc.data(), 32), 0x46DD794Eu);
  EXPECT_EQ(crc32c(dec.data(), 32), 0x113FDB5Cu);
}

TEST(Crc32c, ExtendEqualsWhole) {
  std::string s(10000, 'x');
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>(i * 7 + 3);
  const uint32_t whole = crc32c(s.data(), s.size());
  for (size_t cut : {0ul, 1ul, 7ul, 8ul, 4096ul, 9999ul, 10000ul})
    EXPECT_EQ(crc32c_extend(crc32c(s.data(), cut), s.data() + cut, s.size() - cut), whole) << cut;
}

TEST(Crc32c, EmptyIsZero) {
  EXPECT_EQ(crc32c("", 0), 0u);
}

}  // namespace
}  // namespace evb
