#include "protocols/common/windows.hpp"

#include "core/error.hpp"

namespace evb {

std::vector<WriteTarget> exchange_windows(Bootstrap& boot, Driver& driver, const Topology& topo,
                                          const Registration* bu_windows) {
  std::string mine;
  if (bu_windows) {
    const auto& key = bu_windows->packed_key();
    mine.assign(reinterpret_cast<const char*>(key.data()), key.size());
  }
  const std::vector<std::string> keys = boot.allgather(mine);
  const int me = boot.rank();
  const size_t limit = driver.capabilities().packed_key_size;
  std::vector<WriteTarget> targets(static_cast<size_t>(topo.nodes));
  for (int b = 0; b < topo.nodes; ++b) {
    WriteTarget& t = targets[b];
    t.peer = topo.bu_rank.at(b);
    if (t.peer == me) {
      t.local = bu_windows->base();
      t.size = bu_windows->size();
      continue;
    }
    if (topo.ranks.at(me).ru < 0) continue;  // only RUs write
    const std::string& packed = keys.at(t.peer);
    if (packed.empty() || packed.size() > limit)
      throw PeerError(t.peer, "rank " + std::to_string(me) + ": rank " + std::to_string(t.peer) +
                                  " (BU " + std::to_string(b) + ") advertised a window key of " +
                                  std::to_string(packed.size()) + " B (expected 1.." +
                                  std::to_string(limit) + ")");
    t.key = driver.unpack_key(
        t.peer, std::span(reinterpret_cast<const std::byte*>(packed.data()), packed.size()));
    t.size = t.key->size();
  }
  return targets;
}

}  // namespace evb
