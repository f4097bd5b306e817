#pragma once
// What `evbench drivers` shows for ucx: the library version and the
// transports/devices UCX finds here (ucp_context_print_info's resources).
#include <ucp/api/ucp.h>

#include <string>
#include <vector>

#include "drivers/api/registry.hpp"

namespace evb::ucx {

// "ucx 1.13.1".
std::string library_version();

// The transport/device pairs a context with every transport sees
// ("tcp/lo", "posix/memory", "rc_mlx5/mlx5_0:1"); the second form, those of
// `context` (after its UCX_TLS / UCX_NET_DEVICES settings).
std::vector<std::string> resources();
std::vector<std::string> resources(ucp_context_h context);

// The ucx variant's data_path preference (Capabilities::write_preferred):
// puts are faster than tagged sends where a transport does them in one copy
// or by RDMA — shared memory between ranks of one host (`all_local`),
// InfiniBand/RoCE (rc, dc, ud, gga) — and slower where only tcp carries
// them (UCX emulates the put over the stream: bench/data_path.sh measured
// ucx/tcp write at 0.41 of send, ucx/sm at 1.83; docs/drivers/ucx.md).
bool puts_beat_sends(const std::vector<std::string>& resources, bool all_local);

// Capabilities::shared_memory_path: every rank on this host (`all_local`)
// and a shared-memory transport among `resources` (posix, sysv, cma, knem,
// xpmem), which UCX picks between processes of one host over tcp.
bool shares_memory(const std::vector<std::string>& resources, bool all_local);

// Only tcp carries data between the ranks: every resource but self/ is a
// tcp interface (driver_options.tcp_poll_pause applies only then).
bool tcp_alone(const std::vector<std::string>& resources);

DriverProbe probe_ucx();

}  // namespace evb::ucx
