#pragma once
// The figures of one `background` entry (a congestor pattern) as the
// monitor shows them, each under its /api/state key in `background[]`; the
// metric table's background families (background_metrics.hpp) read their
// series through the same entries, as the BUs' and RUs' families do
// through figures.hpp.
#include <span>
#include <string_view>

#include "protocols/monitor/figures.hpp"

namespace evb {

// In /api/state order (background[] objects, after `entry` and `pattern`).
std::span<const UnitField<MonitorBackground>> background_fields();

// The field of that key; throws std::logic_error when there is none.
const UnitField<MonitorBackground>& background_field(std::string_view key);

}  // namespace evb
