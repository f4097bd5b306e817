#pragma once
// The links between switches fitted apart (`evbench sim --calibrate
// HOSTS.json SWITCHES.json`): which of a measured run's rates those links
// limit in the model, and the fit of their own efficiency to those rates.
// The simulation is a callback, so the fit is tested without one.
//
// Which rates: the model's answer, not the measured run's. With the host
// links at their fitted efficiency, the switch links are simulated at the
// efficiency e and at kSwitchProbe (half) of it; a rate is theirs when it
// falls nearly in proportion, by at least kSwitchShare of that change. A
// rate only partly theirs (a scan's shift where some hosts of a leaf stay
// on it: shift 3 on 4-host leaves falls by 30 % of the 50) is left
// out: its hosts' own links carry the rest. The probe is a large one
// because a short window quantizes simulated rates (a 3-s scan's shift
// moves in steps of one fragment per node, some 7 % of an uplink-limited
// shift's rate on the emulated cluster). The first run, which fits the
// host links, must fall by less than kHostRunShare of the change.
//
// The rates picked fall in proportion to the switch links, so one step
// fits them: s = measured / simulated at 1, and one more simulation at s
// records the rate there (a scan's short window quantizes its rates, and
// further steps would chase that).
#include <cstddef>
#include <functional>
#include <vector>

namespace evb {

inline constexpr double kSwitchProbe = 0.5;
inline constexpr double kSwitchShare = 0.85;
inline constexpr double kHostRunShare = 0.5;

// The indices of the rates that fall by at least `share` of the change:
// `at_e` simulated with the switch links at e, `probed` at kSwitchProbe * e.
std::vector<size_t> switch_limited(const std::vector<double>& at_e,
                                   const std::vector<double>& probed, double share = kSwitchShare);

// `simulate(s)` gives every simulated rate, in the order of `measured`,
// with the switch links at s times their bandwidth. The rates
// switch_limited picks (from s = 1 and kSwitchProbe) are averaged, measured
// and simulated, and s is fitted to them in one step (above). `used` empty: none of them is the
// switch links', and nothing was fitted.
struct SwitchLinkFit {
  double efficiency = 1;
  std::vector<size_t> used;  // indices into the measured rates
  double measured = 0;       // the mean of the used rates, measured
  double first = 0;          // ... simulated at s = 1
  double last = 0;           // ... at the fitted s
  int simulations = 0;
};
SwitchLinkFit fit_switch_link_efficiency(
    const std::vector<double>& measured,
    const std::function<std::vector<double>(double)>& simulate);

}  // namespace evb
