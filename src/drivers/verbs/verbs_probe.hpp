#pragma once
// What `evbench drivers` shows for verbs, and the reason a run refuses to
// start: the RDMA devices libibverbs sees here, with each port's state and
// link layer ("mlx5_0:1 InfiniBand ACTIVE", "rxe0:1 Ethernet ACTIVE").
#include <string>
#include <vector>

#include "drivers/api/registry.hpp"

namespace evb::verbs {

struct PortInfo {
  std::string device;
  int port = 0;
  bool active = false;
  bool ethernet = false;  // RoCE: GID addressing
};

// Every port of every device (opens each device briefly).
std::vector<PortInfo> ports();

// "built; no RDMA device found" here.
DriverProbe probe_verbs();

}  // namespace evb::verbs
