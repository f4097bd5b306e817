#pragma once
// The `evbench` command line: run, validate, drivers, config.
namespace evb {
int cli_main(int argc, char** argv);
}
