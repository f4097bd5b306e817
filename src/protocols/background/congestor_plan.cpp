#include "protocols/background/congestor_plan.hpp"

#include <algorithm>

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

CongestorBuffers congestor_buffers(const BackgroundSpec& spec, const CongestorPlan& plan) {
  constexpr size_t kSmall = CongestorBuffers::kSmall;
  const auto size = static_cast<size_t>(spec.size);
  const auto per_source = static_cast<size_t>(spec.in_flight);
  CongestorBuffers b;
  b.send = std::max(size, kSmall);
  b.recv = std::max(plan.writes ? kSmall * std::max<size_t>(plan.sources.size(), 1)
                                : size * per_source * plan.sources.size(),
                    kSmall);
  if (!plan.writes && !plan.targets.empty())
    b.ack = std::max(CongestorBuffers::kAckSlot * per_source * plan.targets.size(), kSmall);
  if (plan.writes && !plan.sources.empty()) b.window = size * per_source;
  return b;
}

std::vector<MemoryNeed> congestor_memory(const Config& config, const Topology& topo, int rank) {
  const CongestorRank& me = *topo.congestor(rank);
  const BackgroundSpec& spec = config.background.at(static_cast<size_t>(me.entry));
  const CongestorBuffers b =
      congestor_buffers(spec, plan_congestor(spec, topo.entry_ranks(me.entry), me.member));
  uint64_t bytes = mapped_bytes(b.send, PageSize::normal) + mapped_bytes(b.recv, PageSize::normal);
  if (b.ack > 0) bytes += mapped_bytes(b.ack, PageSize::normal);
  if (b.window > 0) bytes += mapped_bytes(b.window, config.page_size);
  return {{"background buffers", "background", bytes}};  // its size, in_flight and ranks
}

}  // namespace evb
