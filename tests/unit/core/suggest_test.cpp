// The nearest-name helper (core/suggest.cpp) behind every "did you mean".
#include "core/suggest.hpp"

#include <gtest/gtest.h>

namespace evb {
namespace {

const std::vector<std::string> kDrivers = {"libfabric", "mpi", "psm2", "tcp", "ucx", "verbs"};

TEST(Suggest, TyposWithinReach) {
  EXPECT_EQ(nearest("tpc", kDrivers), "tcp");  // a swapped pair is one edit
  EXPECT_EQ(nearest("verb", kDrivers), "verbs");
  EXPECT_EQ(nearest("zzzzzz", kDrivers), std::nullopt);
}

// "TCP" is three edits from "tcp" but only the shift key away.
TEST(Suggest, LetterCaseIsIgnored) {
  EXPECT_EQ(nearest("TCP", kDrivers), "tcp");
  EXPECT_EQ(nearest("Verbs", kDrivers), "verbs");
  EXPECT_EQ(nearest("PUL", {"pull", "push"}), "pull");
  EXPECT_EQ(did_you_mean("PULL", {"pull", "push", "pull-noevm"}), " (did you mean 'pull'?)");
}

TEST(Suggest, LeafNameMeansTheNestedKey) {
  EXPECT_EQ(nearest("size", {"fragment.size", "fragment.spread", "sizes"}), "fragment.size");
  EXPECT_EQ(did_you_mean("qqqq", {"fragment.size"}), "");
}

}  // namespace
}  // namespace evb
