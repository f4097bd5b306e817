#pragma once
// Small helpers shared by the contract tests.
#include <cstring>
#include <optional>
#include <string>

#include "conformance_harness.hpp"

namespace evb::conformance {

// Waits for the completion of `cookie` of `type`; a failure when it does not
// come within `timeout`.
inline std::optional<Completion> wait_for(Rank& r, uint64_t cookie, OpType type,
                                          milliseconds timeout = kOpTimeout) {
  auto c =
      r.take_if([&](const Completion& x) { return x.cookie == cookie && x.type == type; }, timeout);
  if (!c) {
    std::string queued;
    for (const auto& q : r.queued()) queued += " " + describe(q);
    ADD_FAILURE() << r.who() << ": no completion for cookie " << cookie << " within "
                  << timeout.count() << " ms; queued:" << (queued.empty() ? " none" : queued)
                  << "; last_error: " << r.driver().last_error();
  }
  return c;
}

// "" when [got, got+n) equals [want, want+n), else where they first differ.
inline std::string diff(const std::byte* got, const std::byte* want, size_t n) {
  size_t first = n;
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      if (first == n) first = i;
      ++count;
    }
  }
  if (count == 0) return {};
  return std::to_string(count) + " of " + std::to_string(n) + " bytes differ, first at " +
         std::to_string(first) + " (got " + std::to_string(static_cast<int>(got[first])) +
         ", want " + std::to_string(static_cast<int>(want[first])) + ")";
}

// "" when every byte of [p, p+n) is `fill`, else which bytes changed.
inline std::string diff_fill(const std::byte* p, size_t n, std::byte fill) {
  size_t first = n;
  size_t last = 0;
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != fill) {
      if (first == n) first = i;
      last = i;
      ++count;
    }
  }
  if (count == 0) return {};
  return std::to_string(count) + " bytes changed between offsets " + std::to_string(first) +
         " and " + std::to_string(last);
}

}  // namespace evb::conformance
