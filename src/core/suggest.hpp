#pragma once
// "Did you mean": the nearest of the names a value may take, for the errors
// of unknown keys, choice values, commands and driver option values.
#include <optional>
#include <string>
#include <vector>

namespace evb {

// Edits (insert, delete, replace, swap of two neighbours) from a to b.
size_t edit_distance(const std::string& a, const std::string& b);

// The candidate `word` most likely means, or nullopt when none is near: a
// bare leaf name first ("size" -> "fragment.size"), then one that differs
// only in letter case ("TCP" -> "tcp"), then the fewest edits ignoring case
// (at most 2, or a third of the word).
std::optional<std::string> nearest(const std::string& word,
                                   const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" for the nearest candidate, "" when none is near.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace evb
