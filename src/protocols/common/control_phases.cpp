#include "protocols/common/control_phases.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string_view>

namespace evb {
namespace {

constexpr const char* kKnobOrder[] = {"parallel",        "credits", "fu.processing_time",
                                      "ru_rate_factors", "paused",  "background"};

// "background.2.active" -> 1 (the entry's index from 0); -1 for another key.
int background_entry(const std::string& key) {
  constexpr std::string_view kHead = "background.";
  constexpr std::string_view kTail = ".active";
  if (!key.starts_with(kHead) || !key.ends_with(kTail)) return -1;
  const int n = std::atoi(key.c_str() + kHead.size());
  return n >= 1 ? n - 1 : -1;
}

double number(const std::string& text) {
  return std::strtod(text.c_str(), nullptr);
}

// "[1, 0.5, 1]" -> {1, 0.5, 1}
std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  const char* p = text.c_str();
  while (*p) {
    while (*p == '[' || *p == ',' || *p == ' ') ++p;
    if (!*p || *p == ']') break;
    char* end = nullptr;
    const double v = std::strtod(p, &end);
    if (end == p) break;
    out.push_back(v);
    p = end;
  }
  return out;
}

std::string g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A phase as split_phases builds it, before its rates: clipped times, the
// knobs in force, its events (none of the window left when to_s <= from_s).
struct Stretch {
  double from_s, to_s;
  ControlKnobs knobs;
  uint64_t events, bytes;
  bool empty() const { return to_s <= from_s; }
};

}  // namespace

ControlKnobs ControlKnobs::at_start(const Config& c) {
  ControlKnobs k;
  k.parallel = c.parallel;
  k.credits = c.credits;
  k.processing_time_s = c.fu.processing_time_s;
  k.ru_rate_factors.assign(static_cast<size_t>(std::max(c.nodes, 0)), 1.0);
  for (size_t r = 0; r < c.ru_rate_factors.size() && r < k.ru_rate_factors.size(); ++r)
    k.ru_rate_factors[r] = c.ru_rate_factors[r];
  k.background.assign(c.background.size(), true);
  return k;
}

void ControlKnobs::apply(const ControlRecord& r) {
  if (r.key == "parallel")
    parallel = static_cast<int>(number(r.value));
  else if (r.key == "credits")
    credits = static_cast<int>(number(r.value));
  else if (r.key == "fu.processing_time")
    processing_time_s = number(r.value);
  else if (r.key == "ru_rate_factors")
    ru_rate_factors = numbers(r.value);
  else if (r.key == "pause" || r.key == "resume")
    paused = r.key == "pause";
  else if (const int e = background_entry(r.key); e >= 0 && e < static_cast<int>(background.size()))
    background[static_cast<size_t>(e)] = r.value == "true";
}

std::string knob_of(const ControlRecord& r) {
  if (background_entry(r.key) >= 0) return "background";
  return r.key == "pause" || r.key == "resume" ? "paused" : r.key;
}

std::vector<std::string> steered_knobs(const std::vector<ControlRecord>& control) {
  std::vector<std::string> out;
  for (const char* key : kKnobOrder)
    if (std::any_of(control.begin(), control.end(),
                    [&](const ControlRecord& r) { return knob_of(r) == key; }))
      out.emplace_back(key);
  return out;
}

std::vector<ControlPhase> split_phases(const std::vector<PhaseBook>& books,
                                       const std::vector<ControlRecord>& control,
                                       const ControlKnobs& initial, double from_s, double to_s,
                                       bool whole_run, int nodes) {
  if (control.empty() || books.empty() || to_s <= from_s) return {};
  std::vector<Stretch> raw;
  for (size_t k = 0; k < books.size(); ++k) {
    const PhaseBook& b = books[k];
    const double end =
        k + 1 < books.size() ? books[k + 1].from_s : std::numeric_limits<double>::infinity();
    ControlKnobs knobs = initial;
    for (size_t i = 0; i < b.first_control && i < control.size(); ++i) knobs.apply(control[i]);
    raw.push_back({std::max(b.from_s, from_s), std::min(end, to_s), knobs,
                   whole_run ? b.events : b.window_events, whole_run ? b.bytes : b.window_bytes});
  }
  // Events booked in a stretch with nothing of the window (credits that
  // crossed a window edge, two changes at one moment) go to the next phase.
  std::vector<Stretch> kept;
  uint64_t carry_events = 0, carry_bytes = 0;
  for (Stretch& s : raw) {
    if (s.empty()) {
      carry_events += s.events;
      carry_bytes += s.bytes;
      continue;
    }
    s.events += carry_events;
    s.bytes += carry_bytes;
    carry_events = carry_bytes = 0;
    if (!kept.empty() && kept.back().knobs == s.knobs) {
      kept.back().to_s = s.to_s;
      kept.back().events += s.events;
      kept.back().bytes += s.bytes;
    } else {
      kept.push_back(s);
    }
  }
  if (kept.empty()) return {};
  kept.back().events += carry_events;
  kept.back().bytes += carry_bytes;
  std::vector<ControlPhase> out;
  for (const Stretch& s : kept) {
    ControlPhase p;
    p.from_s = s.from_s;
    p.to_s = s.to_s;
    p.settings = s.knobs;
    p.events = s.events;
    p.bytes = s.bytes;
    const double seconds = s.to_s - s.from_s;
    p.rate_gbps = nodes > 0 ? s.bytes * 8.0 / seconds / nodes / 1e9 : 0;
    p.event_rate = s.events / seconds;
    out.push_back(p);
  }
  return out;
}

Config config_as_ended(Config c, const std::vector<ControlRecord>& control) {
  ControlKnobs k = ControlKnobs::at_start(c);
  for (const ControlRecord& r : control) {
    k.apply(r);
    if (r.key == "parallel") c.parallel = k.parallel;
    if (r.key == "credits") c.credits = k.credits;
    if (r.key == "fu.processing_time") c.fu.processing_time_s = k.processing_time_s;
    if (r.key == "ru_rate_factors") c.ru_rate_factors = k.ru_rate_factors;
  }
  return c;
}

std::string settings_text(const ControlKnobs& k, const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& key : keys) {
    std::string value;
    if (key == "parallel") value = std::to_string(k.parallel);
    if (key == "credits") value = std::to_string(k.credits);
    if (key == "fu.processing_time") value = g(k.processing_time_s) + "s";
    if (key == "ru_rate_factors") {
      for (double f : k.ru_rate_factors) value += (value.empty() ? "" : ",") + g(f);
      value = "[" + value + "]";
    }
    if (key == "paused") value = k.paused ? "yes" : "no";
    if (key == "background") {
      for (const bool on : k.background)
        value += std::string(value.empty() ? "" : ",") + (on ? "on" : "off");
      value = "[" + value + "]";
    }
    out += (out.empty() ? "" : " ") + key + "=" + value;
  }
  return out;
}

}  // namespace evb
