#include "apps/evbench/versions.hpp"

#include <sys/utsname.h>

namespace evb {

std::string evbench_version() {
  return EVBENCH_VERSION;
}
std::string evbench_git_sha() {
  return EVBENCH_GIT_SHA;
}

std::string compiler_version() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string yaml_cpp_version() {
  return EVBENCH_YAML_CPP_VERSION;
}

std::string kernel_version() {
  utsname u{};
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release;
}

}  // namespace evb
