#pragma once
// SoloBootstrap: the run has a single rank; collectives are local copies.
#include <string>
#include <vector>

#include "drivers/api/bootstrap.hpp"

namespace evb::boot {

class SoloBootstrap : public Bootstrap {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  bool all_local() const override { return true; }
  std::vector<std::string> allgather(const std::string& mine) override { return {mine}; }
  std::vector<std::string> gather(const std::string& mine) override { return {mine}; }
  void barrier() override {}
};

}  // namespace evb::boot
