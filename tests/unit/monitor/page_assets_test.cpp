// The live page is in the binary: served paths answer, others do not.
#include "protocols/monitor/page_assets.hpp"

#include <gtest/gtest.h>

namespace evb {
namespace {

TEST(PageAssets, ThePageAndItsFilesAreEmbedded) {
  const auto page = page_asset("/");
  ASSERT_TRUE(page.has_value());
  EXPECT_NE(page->content_type.find("text/html"), std::string_view::npos);
  EXPECT_NE(page->body.find("live.js"), std::string_view::npos);
  ASSERT_TRUE(page_asset("/live.js").has_value());
  ASSERT_TRUE(page_asset("/live_units.js").has_value());
  EXPECT_NE(page->body.find("live_units.js"), std::string_view::npos);
  ASSERT_TRUE(page_asset("/live_background.js").has_value());
  EXPECT_NE(page->body.find("live_background.js"), std::string_view::npos);
  ASSERT_TRUE(page_asset("/live.css").has_value());
}

TEST(PageAssets, OtherPathsAreNotServed) {
  EXPECT_FALSE(page_asset("/etc/passwd").has_value());
  EXPECT_FALSE(page_asset("/live.html").has_value());
  EXPECT_FALSE(page_asset("").has_value());
}

}  // namespace
}  // namespace evb
