#include "protocols/monitor/background_figures.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace evb {
namespace {

using Bg = MonitorBackground;

constexpr std::array<UnitField<Bg>, 8> kBackgroundFields{{
    {"ranks", [](const Bg& b) -> Figure { return static_cast<int64_t>(b.ranks); }},
    {"ranks_reported",
     [](const Bg& b) -> Figure { return static_cast<int64_t>(b.ranks_reported); }},
    {"ranks_sending", [](const Bg& b) -> Figure { return static_cast<int64_t>(b.ranks_sending); }},
    {"active", [](const Bg& b) -> Figure { return b.active; }},
    {"messages", [](const Bg& b) -> Figure { return b.messages; }},
    {"bytes", [](const Bg& b) -> Figure { return b.bytes; }},
    {"rate_bytes_per_s", [](const Bg& b) -> Figure { return b.rate_bytes_per_s; }},
    {"rate_carried", [](const Bg& b) -> Figure { return b.rate_carried; }},
}};

}  // namespace

std::span<const UnitField<MonitorBackground>> background_fields() {
  return kBackgroundFields;
}

const UnitField<MonitorBackground>& background_field(std::string_view key) {
  for (const UnitField<Bg>& f : kBackgroundFields) {
    if (f.key == key) return f;
  }
  throw std::logic_error("monitor: no background field '" + std::string(key) + "'");
}

}  // namespace evb
