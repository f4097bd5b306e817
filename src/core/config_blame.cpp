// Which key a broken rule between keys is reported at. The rule names its
// keys; the error goes to the first one the user set (a file's line, or the
// --set). Keys the embedded default (configs/default.yaml inside the binary)
// set are not the user's: the user wrote `--set duration=100ms` and never saw
// that file's warmup, so the error names it and says to set it too.
#include <algorithm>

#include "core/config_detail.hpp"

namespace evb::config_detail {
namespace {

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

}  // namespace

std::string located_problem(const KeyProblem& p, const std::string& name, const Origins& user,
                            const Origins& defaults) {
  const auto blamed = std::find_if(p.keys.begin(), p.keys.end(),
                                   [&](const std::string& k) { return user.count(k) > 0; });
  if (blamed == p.keys.end()) {  // none set by the user: the first key, where it comes from
    const std::string& k = p.keys.front();
    const auto d = defaults.find(k);
    if (d == defaults.end()) return name + ": " + k + ": " + p.reason;
    return d->second + ": " + k + ": " + p.reason +
           " (the embedded default's value: change it with --set " + k + "=...)";
  }
  std::vector<std::string> from_default;
  for (const auto& k : p.keys)
    if (k != *blamed && !user.count(k) && defaults.count(k)) from_default.push_back(k);
  std::string note;
  if (from_default.size() == 1)
    note = "; " + from_default.front() + " is set by the embedded default (" +
           defaults.at(from_default.front()) + "): set " + from_default.front() + " too";
  else if (!from_default.empty())
    note = "; " + listed(from_default) + " are set by the embedded default (" + name +
           "): set them too";
  return user.at(*blamed) + ": " + *blamed + ": " + p.reason + note;
}

}  // namespace evb::config_detail
