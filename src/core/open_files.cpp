#include "core/open_files.hpp"

#include <sys/resource.h>

#include <cstdint>
#include <fstream>

#include "core/error.hpp"

namespace evb {

namespace {

uint64_t from_rlim(rlim_t v) {
  return v == RLIM_INFINITY ? UINT64_MAX : static_cast<uint64_t>(v);
}

std::string limit_text(uint64_t v) {
  return v == UINT64_MAX ? "unlimited" : std::to_string(v);
}

// A round figure at least `need` to suggest for `ulimit -n`.
uint64_t suggestion(uint64_t need) {
  uint64_t s = 1024;
  while (s < need) s *= 2;
  return s;
}

}  // namespace

FileNeed descriptor_need(int peers, uint64_t per_peer, const std::string& driver, int served) {
  FileNeed n;
  const uint64_t p = peers > 0 ? static_cast<uint64_t>(peers) : 0;
  n.total = p * per_peer + kFixedDescriptors;
  n.breakdown = std::to_string(p) + " peers x " + std::to_string(per_peer) + " (driver " + driver +
                ") + " + std::to_string(kFixedDescriptors) + " (the process)";
  if (served > 0) {
    n.total += static_cast<uint64_t>(served);
    n.breakdown += " + " + std::to_string(served) + " (the rendezvous it serves)";
  }
  return n;
}

std::optional<FileLimit> open_file_limit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0) return std::nullopt;
  return FileLimit{from_rlim(r.rlim_cur), from_rlim(r.rlim_max)};
}

std::string open_files_shortfall(const FileNeed& need, const FileLimit& limit,
                                 const std::string& who) {
  if (need.total <= limit.hard) return "";
  const std::string n = std::to_string(suggestion(need.total));
  return "open files: " + who + " needs about " + std::to_string(need.total) + " descriptors (" +
         need.breakdown + ") but RLIMIT_NOFILE allows " + limit_text(limit.soft) + " (hard limit " +
         limit_text(limit.hard) + "); raise it before the launch: `ulimit -n " + n +
         "` (above the hard limit only root can: nofile in /etc/security/limits.conf), " +
         "and under Slurm `srun --propagate=NOFILE` (or PBS's `ulimit -n` in the job script) "
         "so the ranks inherit it";
}

void ensure_open_files(const FileNeed& need, const std::string& who) {
  const std::optional<FileLimit> limit = open_file_limit();
  if (!limit || need.total <= limit->soft) return;
  const std::string refusal = open_files_shortfall(need, *limit, who);
  if (!refusal.empty()) throw ConfigError(refusal);
  rlimit r{};
  r.rlim_cur = static_cast<rlim_t>(need.total);
  r.rlim_max = limit->hard == UINT64_MAX ? RLIM_INFINITY : static_cast<rlim_t>(limit->hard);
  if (::setrlimit(RLIMIT_NOFILE, &r) != 0)
    throw ConfigError(open_files_shortfall(need, FileLimit{limit->soft, limit->soft}, who));
}

int kernel_somaxconn() {
  std::ifstream in("/proc/sys/net/core/somaxconn");
  int v = -1;
  if (!(in >> v)) return -1;
  return v;
}

}  // namespace evb
