#include "apps/evbench/sim_link_kinds.hpp"

#include "apps/evbench/sim_calibration.hpp"
#include "core/error.hpp"

namespace evb {
namespace {

double mean_of_used(const std::vector<double>& rates, const std::vector<size_t>& used) {
  double sum = 0;
  for (size_t i : used) sum += rates.at(i);
  return used.empty() ? 0 : sum / static_cast<double>(used.size());
}

}  // namespace

std::vector<size_t> switch_limited(const std::vector<double>& at_e,
                                   const std::vector<double>& probed, double share) {
  std::vector<size_t> out;
  const double fall = (1 - kSwitchProbe) * share;
  for (size_t i = 0; i < at_e.size() && i < probed.size(); ++i)
    if (at_e[i] > 0 && probed[i] <= at_e[i] * (1 - fall)) out.push_back(i);
  return out;
}

SwitchLinkFit fit_switch_link_efficiency(
    const std::vector<double>& measured,
    const std::function<std::vector<double>(double)>& simulate) {
  SwitchLinkFit fit;
  const std::vector<double> at_one = simulate(1);
  const std::vector<double> probed = simulate(kSwitchProbe);
  fit.simulations = 2;
  if (at_one.size() != measured.size() || probed.size() != measured.size())
    throw Error("calibrate: the simulation gave " + std::to_string(at_one.size()) + " rates for " +
                std::to_string(measured.size()) + " measured");
  fit.used = switch_limited(at_one, probed);
  if (fit.used.empty()) return fit;
  fit.measured = mean_of_used(measured, fit.used);
  const FitResult f = fit_link_efficiency(
      fit.measured,
      [&](double s) {
        if (s == 1) return mean_of_used(at_one, fit.used);  // simulated already
        ++fit.simulations;
        return mean_of_used(simulate(s), fit.used);
      },
      0.01, 2);
  fit.efficiency = f.efficiency;
  fit.first = f.first;
  fit.last = f.last;
  return fit;
}

}  // namespace evb
