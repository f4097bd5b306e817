#pragma once
// A platform of configs/platforms/ for the credit model's tests, loaded from
// the source tree (apart from simnet_util.hpp so that only the tests that
// read one depend on the tree's path, support/source_dir.hpp).
#include <string>

#include "support/source_dir.hpp"
#include "topo/platform.hpp"
#include "topo/platform_loader.hpp"

namespace evb::simnet::test {

inline topo::Platform shipped(const std::string& file) {
  return topo::load_platform(std::string(EVBENCH_SOURCE_DIR) + "/configs/platforms/" + file);
}

}  // namespace evb::simnet::test
