// This machine's side of placement (core/placement.hpp): the CPUs the
// process may use, their physical cores from sysfs, and binding to one.
#include <sched.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/error.hpp"
#include "core/placement.hpp"

namespace evb {
namespace {

// The integer in `path` (one line of sysfs), or -1 when it cannot be read.
int read_id(const std::string& path) {
  std::ifstream in(path);
  int v = -1;
  if (!(in >> v)) return -1;
  return v;
}

}  // namespace

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

std::vector<CpuInfo> cpu_topology(const std::vector<int>& cpus, const std::string& sysfs) {
  std::vector<CpuInfo> out;
  for (int cpu : cpus) {
    const std::string dir = sysfs + "/cpu" + std::to_string(cpu) + "/topology/";
    const int core = read_id(dir + "core_id");
    const int package = read_id(dir + "physical_package_id");
    CpuInfo info;
    info.cpu = cpu;
    if (core < 0 || package < 0) {
      info.core = cpu;  // unknown: a core of its own
    } else {
      info.core = core;
      info.package = package;
    }
    out.push_back(info);
  }
  return out;
}

void bind_to_cpu(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) throw Error("bind: no CPU " + std::to_string(cpu));
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (::sched_setaffinity(0, sizeof set, &set) != 0)
    throw Error("bind: sched_setaffinity to CPU " + std::to_string(cpu) +
                " failed: " + std::strerror(errno));
}

}  // namespace evb
