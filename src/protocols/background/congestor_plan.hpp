#pragma once
// Who a congestor rank sends to and hears from: the pattern of its
// `background` entry over the entry's ranks (member 0 is the incast's target
// and the bcast's root). Pure, so the patterns are tested without a network.
#include <vector>

#include "core/config.hpp"

namespace evb {

// One member's part of its entry's pattern. `writes`: the data goes as
// one-sided writes into the target's window (write-incast), the
// end-of-traffic messages two-sided as for the other patterns.
struct CongestorPlan {
  std::vector<int> targets;  // ranks this member sends (or writes) to
  std::vector<int> sources;  // ranks that send (or write) to it
  bool writes = false;
};

// `members`: the entry's ranks by member index; `member`: this rank's index.
CongestorPlan plan_congestor(const BackgroundSpec& spec, const std::vector<int>& members,
                             int member);

}  // namespace evb
