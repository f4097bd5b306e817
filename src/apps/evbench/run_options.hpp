#pragma once
// What `evbench run` passes from the command line to every rank.
#include <string>
#include <vector>

namespace evb {

struct RunOptions {
  std::string json_path;          // --json FILE (written by rank 0), empty: none
  std::vector<std::string> argv;  // the command line, for the results document
  bool quiet = false;             // --quiet: no live lines
};

}  // namespace evb
