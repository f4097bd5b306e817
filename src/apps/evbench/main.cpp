// evbench command-line entry point; see cli.hpp.
#include "apps/evbench/cli.hpp"

int main(int argc, char** argv) {
  return evb::cli_main(argc, argv);
}
