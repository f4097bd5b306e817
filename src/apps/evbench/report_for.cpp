#include "apps/evbench/report_for.hpp"

#include "protocols/common/event_building_report.hpp"
#include "protocols/microbench/microbench_report.hpp"

namespace evb {

const ProtocolReport& report_for(const Config& config) {
  // Stateless: one constant instance of each serves every run.
  static const EventBuildingReport event_building;
  static const MicrobenchReport microbench;
  if (is_event_builder(config.protocol)) return event_building;
  return microbench;
}

}  // namespace evb
