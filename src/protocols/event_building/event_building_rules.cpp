// The consistency rules every event builder (pull, push, pull-noevm) adds to
// the core ones: checked when one of them is the selected protocol, listed
// in docs/CONFIG.md with the protocols that check them.
#include <string>

#include "core/config.hpp"
#include "core/config_detail.hpp"
#include "core/ring_geometry.hpp"
#include "protocols/event_building/control_limits.hpp"
#include "protocols/event_building/event_building_run.hpp"
#include "protocols/monitor/control.hpp"

namespace evb {
KeyRule control_rule(bool pulls) {
  return {
      "every `control` entry is a change POST /control would accept in this run (the "
      "keys and limits of docs/MONITORING.md)",
      [pulls](const Config& c, const PluginKeys&) -> std::optional<KeyProblem> {
        if (c.control.empty()) return std::nullopt;
        const ControlLimits limits = control_limits(c, pulls);
        for (size_t i = 0; i < c.control.size(); ++i) {
          const ControlParse p = parse_control(c.control[i].body, limits);
          if (p.status != 202)
            return KeyProblem{{"control"},
                              "entry " + std::to_string(i + 1) + " (at " +
                                  config_detail::format_real(c.control[i].at_s) +
                                  " s): " + p.message};
        }
        return std::nullopt;
      }};
}

std::vector<KeyRule> event_building_rules() {
  return {
      {"`parallel` must not exceed `nodes` (the number of RUs) for the event builders",
       [](const Config& c, const PluginKeys&) -> std::optional<KeyProblem> {
         if (c.parallel <= c.nodes) return std::nullopt;
         return KeyProblem{{"parallel", "nodes"},
                           "parallel (" + std::to_string(c.parallel) +
                               ") exceeds the number of RUs (" + std::to_string(c.nodes) + ")"};
       }},
      {"a fragment (1 header + `fragment.meta_segments` + `fragment.data_segments` segments) "
       "fits in one operation of the selected `driver`",
       [](const Config& c, const PluginKeys& p) -> std::optional<KeyProblem> {
         const auto caps = config_detail::capabilities_of(c, p);
         if (!caps || caps->max_segments == 0) return std::nullopt;  // 0: known once started
         const uint64_t need = 1ull + c.fragment.meta_segments + c.fragment.data_segments;
         if (need <= caps->max_segments) return std::nullopt;
         return KeyProblem{{"fragment.data_segments", "fragment.meta_segments", "driver"},
                           "a fragment of 1 header + " + std::to_string(c.fragment.meta_segments) +
                               " metadata + " + std::to_string(c.fragment.data_segments) +
                               " data segments is " + std::to_string(need) +
                               " segments, but driver " + c.driver + " sends at most " +
                               std::to_string(caps->max_segments) + " per operation"};
       }},
      {"under `on_failure: exclude` every RU's `ru_buffer` holds `nodes` x `credits` maximal "
       "fragments (RUs keep each fragment until its event is built; a default `ru_buffer` "
       "grows to twice that)",
       [](const Config& c, const PluginKeys&) -> std::optional<KeyProblem> {
         if (c.on_failure != OnFailure::exclude) return std::nullopt;
         const uint64_t need = exclude_min_ru_buffer(c);
         if (c.ru_buffer >= need) return std::nullopt;
         return KeyProblem{{"ru_buffer", "credits", "nodes"},
                           "ru_buffer (" + config_detail::format_size(c.ru_buffer) + ") holds " +
                               std::to_string(min_ring_slots(c)) +
                               " fragments, but on_failure exclude keeps every fragment until its "
                               "event is built and nodes (" +
                               std::to_string(c.nodes) + ") x credits (" +
                               std::to_string(c.credits) +
                               ") = " + std::to_string(static_cast<uint64_t>(c.nodes) * c.credits) +
                               " events can be in flight: ru_buffer must be at least " +
                               config_detail::format_size(need) + " (or leave it unset)"};
       }},
  };
}

}  // namespace evb
