// The rank-order search: selection, candidate orders, then local swaps scored
// incrementally (only the flows from and to the two swapped ranks change).
#include "topo/order_search.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace evb::topo {
namespace {

struct Score {
  int64_t units = 0;
  int max_flows = 0;
  int64_t squares = 0;
  bool operator<(const Score& o) const {
    return std::tie(units, max_flows, squares) < std::tie(o.units, o.max_flows, o.squares);
  }
  bool operator<=(const Score& o) const { return !(o < *this); }
};

// Per-shift flow counts on ISLs with a histogram per shift, so a step's
// maximum follows increments and decrements in O(1).
class Loads {
 public:
  Loads(const Platform& p, std::vector<int> order) : p_(p), order_(std::move(order)) {
    n_ = static_cast<int>(order_.size());
    isl_.assign(p.links.size(), -1);
    for (size_t l = 0; l < p.links.size(); ++l)
      if (p.inter_switch(static_cast<int>(l))) isl_[l] = nisl_++;
    count_.assign(static_cast<size_t>(n_) * std::max(nisl_, 1), 0);
    hist_.assign(static_cast<size_t>(n_) * (n_ + 2), 0);
    max_.assign(n_, 0);
    for (int s = 1; s < n_; ++s) {
      hist(s, 0) = nisl_;
      for (int i = 0; i < n_; ++i) flow(s, i, +1);
    }
  }

  Score score() const {
    Score sc;
    for (int s = 1; s < n_; ++s) {
      sc.units += std::max(1, max_[s]);
      sc.max_flows = std::max(sc.max_flows, max_[s]);
    }
    sc.squares = squares_;
    return sc;
  }

  void swap_ranks(int a, int b) {
    for (int s = 1; s < n_; ++s) each_affected(s, a, b, -1);
    std::swap(order_[a], order_[b]);
    for (int s = 1; s < n_; ++s) each_affected(s, a, b, +1);
  }

  // A rank sending over a most loaded ISL of some worst step (or -1).
  int rank_on_worst(Rng& rng) const {
    int worst = 0;
    for (int s = 1; s < n_; ++s) worst = std::max(worst, max_[s]);
    if (worst <= 1) return -1;
    std::vector<int> steps;
    for (int s = 1; s < n_; ++s)
      if (max_[s] == worst) steps.push_back(s);
    const int s = steps[rng.below(steps.size())];
    std::vector<int> ranks;
    for (int i = 0; i < n_; ++i) {
      const int src = order_[i], dst = order_[(i + s) % n_];
      for (const int* l = p_.route_begin(src, dst); l != p_.route_end(src, dst); ++l)
        if (isl_[*l] >= 0 && at(s, isl_[*l]) == worst) {
          ranks.push_back(i);
          break;
        }
    }
    return ranks.empty() ? -1 : ranks[rng.below(ranks.size())];
  }

  const std::vector<int>& order() const { return order_; }

 private:
  int& at(int s, int isl) { return count_[static_cast<size_t>(s) * nisl_ + isl]; }
  int at(int s, int isl) const { return count_[static_cast<size_t>(s) * nisl_ + isl]; }
  int& hist(int s, int c) { return hist_[static_cast<size_t>(s) * (n_ + 2) + c]; }

  void each_affected(int s, int a, int b, int delta) {
    int senders[4] = {a, b, (a - s + n_) % n_, (b - s + n_) % n_};
    std::sort(senders, senders + 4);
    for (int k = 0; k < 4; ++k)
      if (k == 0 || senders[k] != senders[k - 1]) flow(s, senders[k], delta);
  }

  void flow(int s, int i, int delta) {
    const int src = order_[i], dst = order_[(i + s) % n_];
    for (const int* l = p_.route_begin(src, dst); l != p_.route_end(src, dst); ++l) {
      const int k = isl_[*l];
      if (k < 0) continue;
      int& c = at(s, k);
      --hist(s, c);
      squares_ -= static_cast<int64_t>(c) * c;
      c += delta;
      squares_ += static_cast<int64_t>(c) * c;
      ++hist(s, c);
      if (c > max_[s]) max_[s] = c;
      while (max_[s] > 0 && hist(s, max_[s]) == 0) --max_[s];
    }
  }

  const Platform& p_;
  std::vector<int> order_;
  int n_ = 0, nisl_ = 0;
  std::vector<int> isl_;    // link -> ISL index or -1
  std::vector<int> count_;  // (shift, isl) -> flows
  std::vector<int> hist_;   // (shift, flows) -> ISLs with that many
  std::vector<int> max_;    // shift -> max flows
  int64_t squares_ = 0;
};

Score score_of(const Platform& p, const std::vector<int>& order) {
  return Loads(p, order).score();
}

// The uplink (first ISL of the route) most other leaves' hosts use to reach h.
int usual_uplink_rank(const Platform& p, int h) {
  std::map<int, int> votes;
  const int leaf = p.host(h).leaf;
  for (int src = 0; src < p.host_count(); ++src) {
    if (p.host(src).leaf == leaf) continue;
    const auto r = p.route(src, h);
    if (r.size() >= 3) ++votes[r[r.size() - 2]];  // the ISL into h's leaf
  }
  int best = -1, most = 0;
  for (const auto& [link, v] : votes)
    if (v > most) {
      most = v;
      best = p.links[link].to_port;
    }
  return best;
}

std::vector<int> select_hosts(const Platform& p, const std::vector<int>& start, int n) {
  std::map<int, std::vector<int>> by_leaf;
  for (int h : start) by_leaf[p.host(h).leaf].push_back(h);
  std::vector<std::pair<int, int>> leaves;  // (-population, leaf)
  for (const auto& [leaf, hs] : by_leaf) leaves.emplace_back(-static_cast<int>(hs.size()), leaf);
  std::sort(leaves.begin(), leaves.end());
  std::vector<int> out;
  for (const auto& [neg, leaf] : leaves)
    for (int h : by_leaf[leaf])
      if (static_cast<int>(out.size()) < n) out.push_back(h);
  return out;
}

}  // namespace

OrderProposal propose_order(const Platform& p, const std::vector<int>& start,
                            const SearchOptions& opt) {
  const int n = opt.nodes > 0 ? opt.nodes : static_cast<int>(start.size());
  if (n > static_cast<int>(start.size()))
    throw ConfigError("topo: " + std::to_string(n) + " ranks wanted, only " +
                      std::to_string(start.size()) + " hosts given");
  std::vector<int> given(start.begin(), start.begin() + n);
  std::vector<int> chosen = opt.select ? select_hosts(p, start, n) : given;

  std::vector<std::pair<std::string, std::vector<int>>> candidates;
  candidates.emplace_back("the given order", given);
  auto by_cabling = chosen;
  std::stable_sort(by_cabling.begin(), by_cabling.end(), [&](int a, int b) {
    return std::tie(p.host(a).leaf, p.host(a).leaf_port) <
           std::tie(p.host(b).leaf, p.host(b).leaf_port);
  });
  candidates.emplace_back(opt.select ? "fullest leaves first, cabling order" : "cabling order",
                          by_cabling);
  std::map<int, int> uplink;
  for (int h : chosen) uplink[h] = usual_uplink_rank(p, h);
  auto by_uplink = chosen;
  std::stable_sort(by_uplink.begin(), by_uplink.end(), [&](int a, int b) {
    return std::tie(p.host(a).leaf, uplink[a], p.host(a).leaf_port) <
           std::tie(p.host(b).leaf, uplink[b], p.host(b).leaf_port);
  });
  candidates.emplace_back("by leaf, then by the uplink reaching each host", by_uplink);

  size_t best = 0;
  Score best_score = score_of(p, candidates[0].second);
  for (size_t c = 1; c < candidates.size(); ++c) {
    const Score sc = score_of(p, candidates[c].second);
    if (sc < best_score) {
      best = c;
      best_score = sc;
    }
  }

  OrderProposal out;
  Loads loads(p, candidates[best].second);
  Score current = loads.score();
  Rng rng(mix(opt.seed, 0x0DE5ULL));
  const int64_t iterations =
      opt.iterations >= 0 ? opt.iterations
                          : std::max<int64_t>(1000, std::min<int64_t>(40LL * n, 2000000LL / n));
  // Conflict-free already (every step one unit): nothing to improve.
  const auto optimal = [&] { return current.units == n - 1 && current.max_flows <= 1; };
  for (int64_t it = 0; it < iterations && n > 2 && !optimal(); ++it) {
    int a = (it % 2 == 0) ? loads.rank_on_worst(rng) : -1;
    if (a < 0) a = static_cast<int>(rng.below(n));
    int b = static_cast<int>(rng.below(n - 1));
    if (b >= a) ++b;
    ++out.swaps_tried;
    loads.swap_ranks(a, b);
    const Score sc = loads.score();
    if (sc <= current) {
      if (sc < current) ++out.swaps_kept;
      current = sc;
    } else {
      loads.swap_ranks(a, b);
    }
  }
  out.order = loads.order();
  out.scan = scan_barrel(p, out.order);
  out.method = candidates[best].first + ", then " + std::to_string(out.swaps_tried) +
               " seeded swaps (" + std::to_string(out.swaps_kept) + " improved the score)";
  return out;
}

}  // namespace evb::topo
