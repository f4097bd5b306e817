// The nearest-name helper behind every "did you mean" of evbench.
#include "core/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace evb {
namespace {

std::string lower(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

// A swapped pair is the commonest typo ("tpc" is one edit from "tcp", two
// from "mpi").
size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t w = b.size() + 1;
  std::vector<size_t> d((a.size() + 1) * w);
  auto at = [&](size_t i, size_t j) -> size_t& { return d[i * w + j]; };
  for (size_t i = 0; i <= a.size(); ++i) at(i, 0) = i;
  for (size_t j = 0; j <= b.size(); ++j) at(0, j) = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t best = std::min(
          {at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        best = std::min(best, at(i - 2, j - 2) + 1);
      at(i, j) = best;
    }
  }
  return at(a.size(), b.size());
}

std::optional<std::string> nearest(const std::string& word,
                                   const std::vector<std::string>& candidates) {
  // A bare leaf name ("size") most likely means the nested key ("fragment.size").
  for (const auto& c : candidates) {
    const auto dot = c.rfind('.');
    if (dot != std::string::npos && c.substr(dot + 1) == word) return c;
  }
  // Names are lower case: "TCP", "PULL", "Validate" differ only by the shift key.
  const std::string folded = lower(word);
  for (const auto& c : candidates)
    if (lower(c) == folded) return c;
  const std::string* best = nullptr;
  size_t best_d = 0;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(folded, lower(c));
    if (!best || d < best_d) best = &c, best_d = d;
  }
  if (!best || best_d > std::max<size_t>(2, word.size() / 3)) return std::nullopt;
  return *best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  auto n = nearest(word, candidates);
  return n ? " (did you mean '" + *n + "'?)" : "";
}

}  // namespace evb
