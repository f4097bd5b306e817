#pragma once
// The routes file: what `evbench sim` hands the SimGrid platform plug-in.
// Plain text, one record per line, written from the topology model:
//   evbench-simroutes 1
//   host NAME
//   link NAME BANDWIDTH_BYTES_PER_S LATENCY_S
//   route SRC_HOST DST_HOST LINK...      (indices into the host and link lists)
// Hosts and links come before the routes that name them. Both the writer
// (apps/evbench) and the reader (the plug-in) use this header, so the format
// has one definition.
#include <cstddef>
#include <string>
#include <vector>

namespace evb::sim {

struct SimLink {
  std::string name;
  double bandwidth = 0;  // bytes per second
  double latency = 0;    // seconds
};

struct SimRoute {
  int src = 0, dst = 0;
  std::vector<int> links;
};

struct SimPlatform {
  std::vector<std::string> hosts;
  std::vector<SimLink> links;
  std::vector<SimRoute> routes;
};

// Throws std::runtime_error naming file:line on a malformed record.
SimPlatform read_routes_file(const std::string& path);
void write_routes_file(const SimPlatform& p, const std::string& path);

}  // namespace evb::sim
