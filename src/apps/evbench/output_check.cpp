#include "apps/evbench/output_check.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.hpp"

namespace evb {

namespace fs = std::filesystem;

// The directory is probed with a new file (mkstemp, removed at once): the
// writers create PATH.tmp next to PATH and rename it, so the directory must
// take new files even when PATH itself exists.
std::string output_path_problem(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return "it is a directory";
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  if (!fs::exists(dir, ec)) return "directory " + dir + " does not exist";
  if (!fs::is_directory(dir, ec)) return dir + " is not a directory";
  std::string probe = (fs::path(dir) / ".evbench-probe-XXXXXX").string();
  std::vector<char> name(probe.begin(), probe.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return "cannot create a file in " + dir + ": " + std::strerror(errno);
  ::close(fd);
  ::unlink(name.data());
  if (fs::exists(path, ec)) {
    const int f = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (f < 0) return std::string("cannot open it for writing: ") + std::strerror(errno);
    ::close(f);
  }
  return "";
}

void check_output_path(const std::string& option, const std::string& path) {
  if (path.empty()) return;
  const std::string why = output_path_problem(path);
  if (!why.empty()) throw UsageError(option + " " + path + ": cannot be written: " + why);
}

}  // namespace evb
