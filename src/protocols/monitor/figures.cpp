#include "protocols/monitor/figures.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace evb {

double per_second(uint64_t after, uint64_t before, double dt, double factor) {
  if (!(dt > 0) || after < before || !std::isfinite(dt)) return 0;
  return static_cast<double>(after - before) * factor / dt;
}

double gbps(uint64_t after, uint64_t before, double dt) {
  return per_second(after, before, dt, 8.0) / 1e9;
}

double gbps(double bytes_per_s) {
  return std::isfinite(bytes_per_s) ? bytes_per_s * 8.0 / 1e9 : 0.0;
}

uint64_t events_in_flight(const MonitorSnapshot& s) {
  return s.eb.events_assigned > s.eb.events_built ? s.eb.events_assigned - s.eb.events_built : 0;
}

namespace {

// Gauges held as 32-bit counts read as the same 64-bit figure as counters.
Figure count(uint32_t v) {
  return static_cast<uint64_t>(v);
}

constexpr std::array<UnitField<MonitorBu>, 15> kBuFields{{
    {"bytes", [](const MonitorBu& u) -> Figure { return u.bytes; }},
    {"fragments", [](const MonitorBu& u) -> Figure { return u.fragments; }},
    {"events_built", [](const MonitorBu& u) -> Figure { return u.events_built; }},
    {"events_in_flight", [](const MonitorBu& u) { return count(u.events_in_flight); }},
    {"requests_in_flight", [](const MonitorBu& u) { return count(u.requests_in_flight); }},
    {"fu_queue", [](const MonitorBu& u) { return count(u.fu_queue); }},
    {"latency_p50_s", [](const MonitorBu& u) -> Figure { return u.latency_p50_s; }},
    {"latency_p90_s", [](const MonitorBu& u) -> Figure { return u.latency_p90_s; }},
    {"latency_p99_s", [](const MonitorBu& u) -> Figure { return u.latency_p99_s; }},
    {"integrity_errors", [](const MonitorBu& u) -> Figure { return u.integrity_errors; }},
    {"rate_bytes_per_s", [](const MonitorBu& u) -> Figure { return u.rate_bytes_per_s; }},
    {"rate_interval_s", [](const MonitorBu& u) -> Figure { return u.rate_interval_s; }},
    {"rate_carried", [](const MonitorBu& u) -> Figure { return u.rate_carried; }},
    {"excluded", [](const MonitorBu& u) -> Figure { return u.excluded; }},
    {"reported", [](const MonitorBu& u) -> Figure { return u.reported; }},
}};

constexpr std::array<UnitField<MonitorRu>, 9> kRuFields{{
    {"bytes", [](const MonitorRu& u) -> Figure { return u.bytes; }},
    {"fragments", [](const MonitorRu& u) -> Figure { return u.fragments; }},
    {"rate_bytes_per_s", [](const MonitorRu& u) -> Figure { return u.rate_bytes_per_s; }},
    {"rate_interval_s", [](const MonitorRu& u) -> Figure { return u.rate_interval_s; }},
    {"rate_carried", [](const MonitorRu& u) -> Figure { return u.rate_carried; }},
    {"rate_factor", [](const MonitorRu& u) -> Figure { return u.rate_factor; }},
    {"masked", [](const MonitorRu& u) -> Figure { return u.masked; }},
    {"lost", [](const MonitorRu& u) -> Figure { return u.lost; }},
    {"reported", [](const MonitorRu& u) -> Figure { return u.reported; }},
}};

// Seconds from `previous` to `latest` (0 without one: no rate).
double interval_s(const MonitorSnapshot& latest, const MonitorSnapshot* previous) {
  return previous ? latest.t_s - previous->t_s : 0;
}

constexpr std::array<RunLabel, 3> kRunLabels{{
    {"protocol", &MonitorSnapshot::protocol},
    {"variant", &MonitorSnapshot::variant},
    {"data_path", &MonitorSnapshot::data_path},
}};

using Snap = MonitorSnapshot;
constexpr std::array<RunField, 9> kRunFields{{
    {"run", "nodes",
     [](const Snap& s, const Snap*) -> Figure { return static_cast<int64_t>(s.nodes); }},
    {"run", "interval_s", [](const Snap& s, const Snap*) -> Figure { return s.interval_s; }},
    {"run", "t_s", [](const Snap& s, const Snap*) -> Figure { return s.t_s; }},
    {"run", "finished", [](const Snap& s, const Snap*) -> Figure { return s.finished; }},
    {"totals", "events_assigned",
     [](const Snap& s, const Snap*) -> Figure { return s.eb.events_assigned; }},
    {"totals", "events_built",
     [](const Snap& s, const Snap*) -> Figure { return s.eb.events_built; }},
    {"totals", "events_in_flight",
     [](const Snap& s, const Snap*) -> Figure { return events_in_flight(s); }},
    {"totals", "rate_gbps",
     [](const Snap& s, const Snap* p) -> Figure {
       return p ? gbps(s.eb.bytes_built, p->eb.bytes_built, interval_s(s, p)) : 0.0;
     }},
    {"totals", "events_per_s",
     [](const Snap& s, const Snap* p) -> Figure {
       return p ? per_second(s.eb.events_built, p->eb.events_built, interval_s(s, p)) : 0.0;
     }},
}};

template <typename Unit>
const UnitField<Unit>& find(std::span<const UnitField<Unit>> fields, std::string_view key) {
  for (const UnitField<Unit>& f : fields) {
    if (f.key == key) return f;
  }
  throw std::logic_error("monitor: no unit field '" + std::string(key) + "'");
}

}  // namespace

std::span<const RunLabel> run_labels() {
  return kRunLabels;
}
std::span<const RunField> run_fields() {
  return kRunFields;
}
const RunField& run_field(std::string_view path) {
  for (const RunField& f : kRunFields) {
    if (path.size() == f.group.size() + 1 + f.key.size() && path.starts_with(f.group) &&
        path[f.group.size()] == '.' && path.ends_with(f.key))
      return f;
  }
  throw std::logic_error("monitor: no run field '" + std::string(path) + "'");
}

std::span<const UnitField<MonitorBu>> bu_fields() {
  return kBuFields;
}
std::span<const UnitField<MonitorRu>> ru_fields() {
  return kRuFields;
}
const UnitField<MonitorBu>& bu_field(std::string_view key) {
  return find(bu_fields(), key);
}
const UnitField<MonitorRu>& ru_field(std::string_view key) {
  return find(ru_fields(), key);
}

}  // namespace evb
