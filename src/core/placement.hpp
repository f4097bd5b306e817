#pragma once
// Placement (`bind`): which CPU each rank of a host runs on, and what the
// run reports about where its ranks really ran.
//
// bind: core gives rank r of a host the r-th CPU of an order over the CPUs
// the process may use (sched_getaffinity: a Slurm cgroup or cpuset is
// respected): one hardware thread of each physical core first (package by
// package, core by core), their sibling hyperthreads after, and round again
// when ranks outnumber them (wrapped). The local bootstrap binds its forked
// ranks so; mpirun and srun bind their own ranks, and the lines evbench
// writes for them ask for the same (launcher_bind_flags). Whoever bound
// them, each rank's sched_getaffinity after start-up is what is reported
// (describe_placement, results.placement).
#include <string>
#include <vector>

#include "core/config.hpp"

namespace evb {

// One logical CPU and the physical core it belongs to (from
// /sys/devices/system/cpu/cpuN/topology; each CPU its own core when absent).
struct CpuInfo {
  int cpu = 0;
  int package = 0;
  int core = 0;
};

// ---- the choice (placement.cpp: pure functions)

// `cpus` in binding order: the first hardware thread of each physical core
// (by package, then core id, then CPU number), then the second threads, ...
std::vector<int> placement_order(const std::vector<CpuInfo>& cpus);
// The CPU of each of `nranks` ranks: placement_order, wrapping round.
// Empty when `cpus` is empty.
std::vector<int> choose_cpus(const std::vector<CpuInfo>& cpus, int nranks);
// "0-3,6,8-9" (sorted, duplicates merged); "" for none.
std::string cpu_list(std::vector<int> cpus);

// The placement line of the report ("bound, one CPU per rank (cpus 0-1; 5
// ranks on 2 CPUs: wrapped)", "unbound (each rank may run on cpus 0-1)")
// from each rank's host and CPUs (by rank), with what was asked (`bind`)
// and who started the ranks (`bootstrap`: local binds, others are
// launchers evbench does not control). A launcher that did not do what
// `bind` asks is said so, with the flags that would.
std::string describe_placement(Bind bind, const std::string& bootstrap,
                               const std::vector<std::string>& hosts,
                               const std::vector<std::vector<int>>& cpus);

// Flags asking a launcher for `bind`: Open MPI's mpirun ("--map-by core
// --bind-to core:overload-allowed" | "--bind-to none"; overload-allowed so
// that more ranks than cores wrap, as the local bootstrap does, rather than
// refuse) or Slurm's srun ("--cpu-bind=cores" | "--cpu-bind=none").
std::string mpirun_bind_flags(Bind bind);
std::string srun_bind_flags(Bind bind);
// "mpirun -np N <mpirun_bind_flags>": the start of the lines evbench suggests.
std::string mpirun_with_binding(const std::string& nprocs, Bind bind);

// ---- this machine (cpu_affinity.cpp)

// The CPUs this thread may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();
// `cpus` with their package and core ids read under `sysfs` (a directory
// like /sys/devices/system/cpu); a CPU whose ids cannot be read is its own
// core (package 0, core id = CPU number).
std::vector<CpuInfo> cpu_topology(const std::vector<int>& cpus,
                                  const std::string& sysfs = "/sys/devices/system/cpu");
// Binds the calling process to `cpu` (sched_setaffinity); throws Error.
void bind_to_cpu(int cpu);

}  // namespace evb
