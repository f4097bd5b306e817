#pragma once
// `evbench topo PLATFORM [--order FILE] [--nodes N] [--json FILE] ...`: the
// barrel-shift link-conflict scan of a platform and a proposed rank order.
namespace evb {

// argv[first..] are the command's arguments. Returns the exit code; throws
// ConfigError/UsageError like the other commands.
int topo_command(int argc, char** argv, int first);

}  // namespace evb
