#pragma once
// Version strings for the results document and `evbench --version`.
#include <string>

namespace evb {
std::string evbench_version();
std::string evbench_git_sha();
std::string compiler_version();
std::string yaml_cpp_version();
std::string kernel_version();
}  // namespace evb
