#pragma once
// configs/default.yaml, embedded at build time so `evbench run` works from
// any directory.
#include <string>

namespace evb {
std::string default_config_yaml();
}
