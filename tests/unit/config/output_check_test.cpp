// Output paths checked before anything runs (apps/evbench/output_check.hpp):
// a missing directory or a directory given as the file is refused with the
// reason, a writable place passes, and the probe leaves nothing behind.
#include "apps/evbench/output_check.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"

namespace evb {
namespace {

namespace fs = std::filesystem;

class OutputCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "evb-output-check-XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(OutputCheck, MissingDirectoryIsNamed) {
  const std::string path = (dir_ / "no" / "r.json").string();
  EXPECT_EQ(output_path_problem(path), "directory " + (dir_ / "no").string() + " does not exist");
  try {
    check_output_path("--json", path);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--json " + path + ": cannot be written: directory " +
                                         (dir_ / "no").string() + " does not exist");
  }
}

TEST_F(OutputCheck, DirectoryAsFileAndFileAsDirectory) {
  EXPECT_EQ(output_path_problem(dir_.string()), "it is a directory");
  std::ofstream(dir_ / "plain") << "x";
  EXPECT_EQ(output_path_problem((dir_ / "plain" / "r.json").string()),
            (dir_ / "plain").string() + " is not a directory");
}

TEST_F(OutputCheck, WritablePlacePassesAndLeavesNothingBehind) {
  EXPECT_EQ(output_path_problem((dir_ / "r.json").string()), "");
  std::ofstream(dir_ / "old.json") << "{}";
  EXPECT_EQ(output_path_problem((dir_ / "old.json").string()), "");
  EXPECT_NO_THROW(check_output_path("--json", ""));  // no output asked for
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"old.json"});
  std::ifstream in(dir_ / "old.json");
  std::string content;
  in >> content;
  EXPECT_EQ(content, "{}");  // an existing file is not truncated by the check
}

}  // namespace
}  // namespace evb
