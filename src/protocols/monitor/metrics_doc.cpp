#include "protocols/monitor/metrics_doc.hpp"

#include "protocols/monitor/metric_table.hpp"

namespace evb {
namespace {

std::string code(const std::string& s) {
  return "`" + s + "`";
}

// "`bu`, `quantile` (0.5, 0.9, 0.99)"
std::string labels_cell(const std::vector<MetricLabel>& labels) {
  std::string out;
  for (const MetricLabel& l : labels) {
    if (!out.empty()) out += ", ";
    out += code(l.name);
    if (!l.values.empty()) out += " (" + l.values + ")";
  }
  return out;
}

std::string state_cell(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + code(k);
  return out.empty() ? "-" : out;
}

}  // namespace

std::string metrics_markdown() {
  std::string out =
      "| Family | Type | Labels | Meaning (the HELP line) | Unit | In /api/state |\n"
      "|---|---|---|---|---|---|\n";
  for (const MetricDescriptor& d : metric_table()) {
    out += "| " + code(d.name) + " | " + std::string(metric_type_name(d.type)) + " | " +
           labels_cell(d.labels) + " | " + d.help + " | " + d.unit + " | " + state_cell(d.state) +
           " |\n";
  }
  return out;
}

}  // namespace evb
