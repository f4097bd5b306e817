// Fat-tree generation: cabling, names, defects and forwarding tables.
#include "topo/fat_tree.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace evb::topo {
namespace {

struct Slot {
  int leaf = 0;  // global leaf index
  int port = 0;  // 0-based host port
};

std::string numbered(const std::string& prefix, int i, int width) {
  std::string digits = std::to_string(i);
  if (static_cast<int>(digits.size()) < width) digits.insert(0, width - digits.size(), '0');
  return prefix + digits;
}

void check(const FatTreeSpec& s, const std::string& where) {
  auto fail = [&](const std::string& why) { throw ConfigError(where + ": " + why); };
  if (s.levels != 2 && s.levels != 3) fail("levels must be 2 or 3");
  if (s.pods < 1 || s.leaves < 1 || s.ports < 1 || s.uplinks < 0 || s.spines < 0)
    fail("pods, leaves and ports must be at least 1");
  const int total_leaves = s.pods * s.leaves;
  if (total_leaves > 1 && (s.uplinks < 1 || s.spines < 1))
    fail("more than one leaf needs uplinks and spines");
  if (s.spines > 0 && s.uplinks % s.spines != 0)
    fail("uplinks (" + std::to_string(s.uplinks) + ") must be a multiple of spines (" +
         std::to_string(s.spines) + ")");
  if (s.levels == 3 && s.core_uplinks < 1) fail("levels 3 needs core_uplinks >= 1");
  if (s.levels == 2 && s.pods != 1) fail("pods needs levels: 3");
  if (!s.populated.empty() && static_cast<int>(s.populated.size()) != total_leaves)
    fail("populated lists " + std::to_string(s.populated.size()) + " leaves, the tree has " +
         std::to_string(total_leaves));
  for (int p : s.populated)
    if (p < 0 || p > s.ports)
      fail("populated: " + std::to_string(p) + " is outside 0 .. " + std::to_string(s.ports));
  for (const auto& [l, q] : s.holes)
    if (l < 0 || l >= total_leaves || q < 0 || q >= s.ports)
      fail("hole (" + std::to_string(l) + ", " + std::to_string(q) + ") is not a host port");
  if (s.misplaced < 0) fail("misplaced must be >= 0");
  if (static_cast<int64_t>(total_leaves) * s.ports > Platform::kMaxHosts)
    fail(std::to_string(static_cast<int64_t>(total_leaves) * s.ports) +
         " host ports; platforms have at most " + std::to_string(Platform::kMaxHosts) + " hosts");
  if (s.host_bandwidth <= 0 || s.switch_bandwidth <= 0) fail("bandwidths must be positive");
}

}  // namespace

Platform make_fat_tree(const FatTreeSpec& s, const std::string& where) {
  check(s, where);
  Platform p;
  p.name = s.name;
  const int L = s.pods * s.leaves, P = s.ports, U = s.uplinks, S = s.spines;
  const int per_spine = S ? U / S : 0;  // cables between one leaf and one spine
  const int C = s.core_uplinks;

  // Which slots hold hosts, and which name sits in each.
  std::vector<Slot> slots;
  for (int l = 0; l < L; ++l) {
    const int count = s.populated.empty() ? P : s.populated[l];
    for (int q = 0; q < count; ++q)
      if (std::find(s.holes.begin(), s.holes.end(), std::pair{l, q}) == s.holes.end())
        slots.push_back({l, q});
  }
  const int n = static_cast<int>(slots.size());
  if (n == 0) throw ConfigError(where + ": no host ports are populated");
  std::vector<int> slot_of_host(n);
  for (int h = 0; h < n; ++h) slot_of_host[h] = h;
  Rng rng(mix(s.seed, 0x3150ULL));
  for (int k = 0; k < s.misplaced && n > 1; ++k) {
    const int a = static_cast<int>(rng.below(n));
    const int b = static_cast<int>(rng.below(n));
    std::swap(slot_of_host[a], slot_of_host[b]);
  }
  const int width = std::max(3, static_cast<int>(std::to_string(n).size()));
  for (int h = 0; h < n; ++h) p.add_host(numbered(s.host_prefix, h + 1, width));

  // Switches.
  const std::string leaf_word = s.director ? "line" : "leaf";
  const std::string spine_word = s.director ? "fabric" : "spine";
  std::vector<int> leaf(L), spine(static_cast<size_t>(s.pods) * S), core;
  for (int l = 0; l < L; ++l) leaf[l] = p.add_switch(leaf_word + std::to_string(l), 1);
  for (int k = 0; k < s.pods * S; ++k) spine[k] = p.add_switch(spine_word + std::to_string(k), 2);
  if (s.levels == 3)
    for (int k = 0; k < S * C; ++k) core.push_back(p.add_switch("core" + std::to_string(k), 3));

  // Cables. Leaf ports: hosts 1..P, uplinks P+1..P+U. Spine ports: leaf l of
  // its pod, cable j at 1 + l * per_spine + j; core uplinks after those.
  for (int h = 0; h < n; ++h) {
    const Slot& sl = slots[slot_of_host[h]];
    p.connect(p.hosts[h], 1, leaf[sl.leaf], sl.port + 1, s.host_bandwidth, s.host_latency);
  }
  if (L > 1)
    for (int l = 0; l < L; ++l) {
      const int pod = l / s.leaves, lip = l % s.leaves;
      for (int u = 0; u < U; ++u)
        p.connect(leaf[l], P + 1 + u, spine[pod * S + u % S], 1 + lip * per_spine + u / S,
                  s.switch_bandwidth, s.switch_latency);
    }
  if (s.levels == 3)
    for (int pod = 0; pod < s.pods; ++pod)
      for (int sp = 0; sp < S; ++sp)
        for (int c = 0; c < C; ++c)
          p.connect(spine[pod * S + sp], 1 + s.leaves * per_spine + c, core[sp * C + c], pod + 1,
                    s.switch_bandwidth, s.switch_latency);

  // Irregular routing: LIDs handed out in a seeded (discovery) order, and
  // every leaf spreads its remote destinations over its uplinks round-robin
  // in LID order, as a subnet manager balancing port use does. Each leaf
  // skips its own hosts, so each gets its own pattern.
  std::vector<int> uplink_of;  // (leaf, host) -> uplink, irregular only
  if (s.routing == TreeRouting::irregular && U > 0) {
    std::vector<int> by_lid(n);
    for (int h = 0; h < n; ++h) by_lid[h] = h;
    Rng r(mix(s.seed, 0x11DULL));
    for (int i = n - 1; i > 0; --i) std::swap(by_lid[i], by_lid[r.below(i + 1)]);
    uplink_of.assign(static_cast<size_t>(L) * n, 0);
    for (int l = 0; l < L; ++l) {
      int k = 0;
      for (int h : by_lid)
        if (slots[slot_of_host[h]].leaf != l) uplink_of[static_cast<size_t>(l) * n + h] = k++ % U;
    }
  }

  // Forwarding tables.
  for (int sw : p.switches) p.nodes[sw].table.assign(n, 0);
  for (int d = 0; d < n; ++d) {
    const Slot& sl = slots[slot_of_host[d]];
    const int dl = sl.leaf, q = sl.port, dpod = dl / s.leaves, dlip = dl % s.leaves;
    const int ud = U ? q % U : 0;  // the uplink index d-mod-k gives d
    for (int l = 0; l < L; ++l) {
      int port = q + 1;
      if (l != dl) {
        const int u = uplink_of.empty() ? ud : uplink_of[static_cast<size_t>(l) * n + d];
        port = P + 1 + u;
      }
      p.nodes[leaf[l]].table[d] = port;
    }
    for (int pod = 0; pod < s.pods; ++pod)
      for (int sp = 0; sp < S; ++sp) {
        int port;
        if (pod == dpod) {
          port = 1 + dlip * per_spine + (ud / S) % per_spine;
        } else {
          port = 1 + s.leaves * per_spine + ((dl * P + q) / std::max(U, 1)) % C;
        }
        p.nodes[spine[pod * S + sp]].table[d] = port;
      }
    for (size_t k = 0; k < core.size(); ++k) p.nodes[core[k]].table[d] = dpod + 1;
  }
  return p;
}

}  // namespace evb::topo
