#include "protocols/monitor/monitor_reporter.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "protocols/monitor/traffic.hpp"

namespace evb {
namespace {

uint64_t integrity_errors(const IntegrityCounters& i) {
  return i.corrupt + i.duplicate + i.incomplete + i.bad_events + i.out_of_sync;
}

}  // namespace

MonitorReporter::MonitorReporter(Engine& engine, const Topology& topo, EventBuildingStats& stats,
                                 ReportedUnits units)
    : engine_(engine), topo_(topo), stats_(stats), units_(units) {
  const uint8_t id = engine_.add_agent(this);
  // A request with every knob makes four commands per rank at most.
  engine_.listen(Channel::control, id, 8);
}

void MonitorReporter::start(int64_t now) {
  interval_ns_ = s_to_ns(engine_.config().report_interval_s);
  if (interval_ns_ > 0) next_ns_ = now + interval_ns_;
  since_ns_ = now;
}

bool MonitorReporter::reporting() const {
  return (units_.bu_agent && !units_.bu_agent->done()) ||
         (units_.ru_agent && !units_.ru_agent->done());
}

void MonitorReporter::send(Command c) {
  // Every record says which interval of this rank's clock it covers.
  c.pad[0] = std::bit_cast<uint64_t>(since_ns_);
  c.pad[1] = std::bit_cast<uint64_t>(until_ns_);
  engine_.send_command(topo_.evm_rank, Channel::monitor, c);
}

void MonitorReporter::report(int64_t now) {
  until_ns_ = now;
  if (units_.bu_agent) {
    const BuAgent& a = *units_.bu_agent;
    const auto b = static_cast<uint32_t>(a.index());
    const std::vector<uint64_t>& per_ru = a.bytes_from_ru();
    uint64_t bytes = 0;
    for (uint64_t v : per_ru) bytes += v;
    // Over kMatrixFullNodes nodes, the sums per RU group (rows_ is sized once).
    const std::vector<uint64_t>& from = by_group(per_ru);
    send(Command{.type = CommandType::stats,
                 .event_id = a.fragments_received(),
                 .slot = static_cast<uint32_t>(MonitorStat::bu),
                 .bu = b,
                 .ru = units_.fus ? static_cast<uint32_t>(units_.fus->waiting()) : 0,
                 .count = static_cast<uint32_t>(std::max(0, a.requests_in_flight())),
                 .bytes = bytes,
                 .value = units_.bu ? integrity_errors(units_.bu->integrity()) : 0});
    const Histogram& h = stats_.latency;
    auto q = [&h](double p) { return h.count() ? static_cast<uint64_t>(h.quantile(p)) : 0; };
    send(Command{.type = CommandType::stats,
                 .event_id = q(0.5),
                 .slot = static_cast<uint32_t>(MonitorStat::latency),
                 .bu = b,
                 .bytes = q(0.9),
                 .value = q(0.99)});
    for (size_t r = 0; r < from.size(); r += 3) {
      const size_t n = std::min<size_t>(3, from.size() - r);
      Command c{.type = CommandType::stats,
                .slot = static_cast<uint32_t>(MonitorStat::matrix),
                .bu = b,
                .ru = static_cast<uint32_t>(r),
                .count = static_cast<uint32_t>(n)};
      uint64_t* dst[3] = {&c.event_id, &c.bytes, &c.value};
      for (size_t k = 0; k < n; ++k) *dst[k] = from[r + k];
      send(c);
    }
  }
  if (units_.ru)
    send(Command{.type = CommandType::stats,
                 .event_id = stats_.fragments_sent,
                 .slot = static_cast<uint32_t>(MonitorStat::ru),
                 .ru = static_cast<uint32_t>(units_.ru->index()),
                 .bytes = stats_.bytes_sent});
  since_ns_ = now;  // the next interval starts where this one ended
}

const std::vector<uint64_t>& MonitorReporter::by_group(const std::vector<uint64_t>& per_ru) {
  if (topo_.nodes <= kMatrixFullNodes) return per_ru;
  matrix_row(per_ru, topo_.nodes, rows_);
  return rows_;
}

void MonitorReporter::on_tick(int64_t now) {
  if (next_ns_ < 0 || now < next_ns_) return;
  next_ns_ = reporting() ? now + interval_ns_ : -1;
  if (next_ns_ >= 0) report(now);
}

int64_t MonitorReporter::next_timer_ns() const {
  return next_ns_;
}

void MonitorReporter::on_command(PeerId from, const Command& cmd) {
  auto refuse = [&](const std::string& what) {
    throw PeerError(from, "rank " + std::to_string(engine_.rank()) + ": a control command from " +
                              engine_.peer_name(from) + " refused: " + what);
  };
  if (from != topo_.evm_rank || cmd.type != CommandType::control)
    refuse("only the EVM's rank sends them");
  const double real = std::bit_cast<double>(cmd.value);
  switch (static_cast<ControlKnob>(cmd.slot)) {
    case ControlKnob::parallel:
      if (cmd.value < 1 || cmd.value > static_cast<uint64_t>(topo_.nodes))
        refuse("parallel out of range");
      if (units_.bu_agent) units_.bu_agent->set_parallel(static_cast<int>(cmd.value));
      return;
    case ControlKnob::processing_time:
      if (!std::isfinite(real) || real < 0 || real > 86400) refuse("processing time out of range");
      if (units_.fus) units_.fus->set_processing_time(s_to_ns(real));
      engine_.set_processing_time(real);
      return;
    case ControlKnob::rate_factor:
      if (!units_.ru || cmd.ru != static_cast<uint32_t>(units_.ru->index()))
        refuse("it names an RU this rank does not host");
      if (!std::isfinite(real) || real <= 0 || real > 1000) refuse("rate factor out of range");
      units_.ru->set_rate_factor(real, cmd.event_id);
      return;
    case ControlKnob::pause:
      if (cmd.value > 1) refuse("pause flag out of range");
      engine_.set_paused(cmd.value == 1);
      return;
    case ControlKnob::background:
      refuse("it switches congestors, and this rank is none");
  }
  refuse("unknown knob " + std::to_string(cmd.slot));
}

}  // namespace evb
