#include "protocols/background/congestor_plan.hpp"

namespace evb {

CongestorPlan plan_congestor(const BackgroundSpec& spec, const std::vector<int>& members,
                             int member) {
  using Pattern = BackgroundSpec::Pattern;
  CongestorPlan plan;
  const int n = static_cast<int>(members.size());
  plan.writes = spec.pattern == Pattern::write_incast;
  for (int other = 0; other < n; ++other) {
    if (other == member) continue;
    bool to = false;    // member -> other
    bool from = false;  // other -> member
    switch (spec.pattern) {
      case Pattern::incast:
      case Pattern::write_incast:
        to = other == 0;
        from = member == 0;
        break;
      case Pattern::bcast:
        to = member == 0;
        from = other == 0;
        break;
      case Pattern::alltoall:
        to = from = true;
        break;
      case Pattern::one_to_one:
        to = (member + spec.shift) % n == other;
        from = (other + spec.shift) % n == member;
        break;
    }
    if (to) plan.targets.push_back(members[other]);
    if (from) plan.sources.push_back(members[other]);
  }
  return plan;
}

}  // namespace evb
