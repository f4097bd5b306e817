#include "topo/prediction_json.hpp"

#include <algorithm>

namespace evb::topo {

void write_prediction_fields(JsonWriter& w, const Platform& p, const ShiftPrediction& s) {
  const std::vector<double>& v = s.per_node_gbps;
  w.begin_array("per_node_values");
  for (double g : v) w.value("", g);
  w.end_array();
  double sum = 0;
  for (double g : v) sum += g;
  w.begin_object("per_node");
  w.value("min", v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()));
  w.value("avg", v.empty() ? 0.0 : sum / static_cast<double>(v.size()));
  w.value("max", v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()));
  w.end_object();
  w.value("max_flows", s.max_flows);
  w.begin_array("worst_links");
  for (int l : s.worst_links) w.value("", p.link_name(l));
  w.end_array();
}

}  // namespace evb::topo
