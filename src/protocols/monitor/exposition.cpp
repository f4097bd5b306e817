#include "protocols/monitor/exposition.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "protocols/monitor/metric_table.hpp"

namespace evb {
namespace {

// Text-format escaping (exposition format 0.0.4): label values escape
// backslash, double quote and newline; HELP text escapes backslash and
// newline only.
std::string escape_label(std::string_view v) {
  std::string o;
  o.reserve(v.size());
  for (const char c : v) {
    if (c == '\\') {
      o += "\\\\";
    } else if (c == '"') {
      o += "\\\"";
    } else if (c == '\n') {
      o += "\\n";
    } else {
      o += c;
    }
  }
  return o;
}

std::string escape_help(std::string_view v) {
  std::string o;
  for (const char c : v) {
    if (c == '\\') {
      o += "\\\\";
    } else if (c == '\n') {
      o += "\\n";
    } else {
      o += c;
    }
  }
  return o;
}

// Sample values: integers exactly; other values in the shortest form that
// reads back to the same double, with the format's spellings of the
// non-finite ones; flags as 1 and 0.
std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
std::string number(const Figure& f) {
  if (const auto* b = std::get_if<bool>(&f)) return *b ? "1" : "0";
  if (const auto* d = std::get_if<double>(&f)) return number(*d);
  if (const auto* u = std::get_if<uint64_t>(&f)) return std::to_string(*u);
  return std::to_string(std::get<int64_t>(f));
}

std::string label(std::string_view name, std::string_view value) {
  return std::string(name) + "=\"" + escape_label(value) + "\"";
}

// One metric family: HELP and TYPE once, then its samples, each with the
// run's labels first. A family without samples is left out.
void family(std::string& out, const std::string& run_labels, const MetricDescriptor& d,
            const std::vector<MetricSample>& samples) {
  if (samples.empty()) return;
  out += "# HELP " + d.name + " " + escape_help(d.help) + "\n";
  out += "# TYPE " + d.name + " " + std::string(metric_type_name(d.type)) + "\n";
  for (const MetricSample& s : samples) {
    out += d.name + "{" + run_labels;
    for (const auto& [name, value] : s.labels) out += "," + label(name, value);
    out += "} " + number(s.value) + "\n";
  }
}

}  // namespace

std::string prometheus_text(const MonitorSnapshot& latest, const MonitorSnapshot* previous) {
  std::string what_runs;  // the run's labels (figures.hpp), on every series
  for (const RunLabel& l : run_labels())
    what_runs += (what_runs.empty() ? "" : ",") + label(l.key, latest.*l.value);
  const MetricInput in{latest, previous};
  std::string out;
  for (const MetricDescriptor& d : metric_table()) {
    // Before the first report there is little to say.
    if (latest.nodes <= 0 && !d.before_first_report) continue;
    family(out, what_runs, d, d.read(in));
  }
  return out;
}

}  // namespace evb
