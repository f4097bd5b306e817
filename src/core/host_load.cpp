#include "core/host_load.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <fstream>
#include <iterator>
#include <string>

namespace evb {
namespace {

// The unsigned numbers of `line` after its first word, in order.
std::vector<uint64_t> fields_after_label(std::string_view line) {
  std::vector<uint64_t> out;
  size_t at = line.find_first_of(" \t");
  while (at != std::string_view::npos && at < line.size()) {
    at = line.find_first_not_of(" \t", at);
    if (at == std::string_view::npos) break;
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(line.data() + at, line.data() + line.size(), v);
    if (ec != std::errc()) break;
    out.push_back(v);
    at = static_cast<size_t>(end - line.data());
  }
  return out;
}

// "cpu12" names one CPU; "cpu" alone is the aggregate.
bool names_one_cpu(std::string_view label) {
  if (label.size() <= 3 || label.substr(0, 3) != "cpu") return false;
  for (char ch : label.substr(3))
    if (ch < '0' || ch > '9') return false;
  return true;
}

std::optional<double> leading_number(std::string_view text) {
  const size_t at = text.find_first_not_of(" \t\n");
  if (at == std::string_view::npos) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), v);
  if (ec != std::errc() || !(v >= 0)) return std::nullopt;
  return v;
}

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

double own_cpu_seconds() {
  rusage u{};
  if (::getrusage(RUSAGE_SELF, &u) != 0) return 0;
  const auto s = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// The mean current frequency over CPUs 0..cpus-1 that report one.
std::optional<double> mean_freq_mhz(int cpus) {
  double sum = 0;
  int n = 0;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    const auto text = read_text("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                                "/cpufreq/scaling_cur_freq");
    if (!text) continue;
    if (const auto mhz = parse_freq_mhz(*text)) {
      sum += *mhz;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

}  // namespace

std::optional<CpuTicks> parse_proc_stat(std::string_view text) {
  std::optional<CpuTicks> out;
  int cpus = 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const std::string_view label = line.substr(0, line.find_first_of(" \t"));
    if (names_one_cpu(label)) {
      ++cpus;
      continue;
    }
    if (label != "cpu" || out) continue;
    // user nice system idle [iowait irq softirq steal guest guest_nice]
    const std::vector<uint64_t> f = fields_after_label(line);
    if (f.size() < 4) return std::nullopt;
    const auto field = [&](size_t k) { return k < f.size() ? f[k] : 0; };
    CpuTicks t;
    t.busy = field(0) + field(1) + field(2) + field(5) + field(6);
    t.steal = field(7);
    t.total = t.busy + field(3) + field(4) + t.steal;
    out = t;
  }
  if (out) out->cpus = cpus;
  return out;
}

std::optional<double> parse_loadavg(std::string_view text) {
  return leading_number(text);
}

std::optional<double> parse_freq_mhz(std::string_view text) {
  const auto khz = leading_number(text);
  if (!khz || *khz <= 0) return std::nullopt;
  return *khz / 1000.0;
}

HostLoadReading read_host_load() {
  HostLoadReading r;
  r.t_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
               .count();
  r.own_cpu_s = own_cpu_seconds();
  if (const auto text = read_text("/proc/loadavg")) r.loadavg = parse_loadavg(*text);
  if (const auto text = read_text("/proc/stat")) r.ticks = parse_proc_stat(*text);
  r.ticks_per_s = ::sysconf(_SC_CLK_TCK);
  if (r.ticks) r.freq_mhz = mean_freq_mhz(r.ticks->cpus);
  return r;
}

namespace {

constexpr size_t kReadingNumbers = 9;

void put(std::vector<double>& v, const HostLoadReading& r) {
  v.push_back(static_cast<double>(r.t_ns));
  v.push_back(r.loadavg.value_or(-1));
  v.push_back(r.ticks ? static_cast<double>(r.ticks->busy) : -1);
  v.push_back(r.ticks ? static_cast<double>(r.ticks->steal) : -1);
  v.push_back(r.ticks ? static_cast<double>(r.ticks->total) : -1);
  v.push_back(r.ticks ? r.ticks->cpus : -1);
  v.push_back(static_cast<double>(r.ticks_per_s));
  v.push_back(r.own_cpu_s);
  v.push_back(r.freq_mhz.value_or(-1));
}

HostLoadReading get(const double* v) {
  HostLoadReading r;
  r.t_ns = static_cast<int64_t>(v[0]);
  if (v[1] >= 0) r.loadavg = v[1];
  if (v[2] >= 0 && v[3] >= 0 && v[4] >= 0 && v[5] >= 0)
    r.ticks = CpuTicks{static_cast<uint64_t>(v[2]), static_cast<uint64_t>(v[3]),
                       static_cast<uint64_t>(v[4]), static_cast<int>(v[5])};
  r.ticks_per_s = static_cast<int64_t>(v[6]);
  r.own_cpu_s = v[7];
  if (v[8] >= 0) r.freq_mhz = v[8];
  return r;
}

}  // namespace

std::vector<double> to_numbers(const HostLoadWindow& w) {
  std::vector<double> v;
  if (!w.measured) return v;
  put(v, w.start);
  put(v, w.end);
  return v;
}

HostLoadWindow from_numbers(const std::vector<double>& v) {
  HostLoadWindow w;
  if (v.size() != 2 * kReadingNumbers) return w;
  w.measured = true;
  w.start = get(v.data());
  w.end = get(v.data() + kReadingNumbers);
  return w;
}

}  // namespace evb
