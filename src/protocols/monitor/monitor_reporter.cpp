#include "protocols/monitor/monitor_reporter.hpp"

#include <bit>

#include "core/clock.hpp"

namespace evb {

MonitorReporter::MonitorReporter(Engine& engine, const Topology& topo,
                                 std::unique_ptr<ReporterView> view)
    : engine_(engine), topo_(topo), view_(std::move(view)) {
  const uint8_t id = engine_.add_agent(this);
  // A request with every knob makes four commands per rank at most.
  engine_.listen(Channel::control, id, 8);
}

void MonitorReporter::start(int64_t now) {
  interval_ns_ = s_to_ns(engine_.config().report_interval_s);
  if (interval_ns_ > 0) next_ns_ = now + interval_ns_;
  since_ns_ = now;
}

void MonitorReporter::send(Command c) {
  // Every record says which interval of this rank's clock it covers.
  c.pad[0] = std::bit_cast<uint64_t>(since_ns_);
  c.pad[1] = std::bit_cast<uint64_t>(until_ns_);
  engine_.send_command(topo_.evm_rank, Channel::monitor, c);
}

void MonitorReporter::report(int64_t now) {
  until_ns_ = now;
  view_->report([this](Command c) { send(c); });
  since_ns_ = now;  // the next interval starts where this one ended
}

void MonitorReporter::on_tick(int64_t now) {
  if (next_ns_ < 0 || now < next_ns_) return;
  next_ns_ = view_->reporting() ? now + interval_ns_ : -1;
  if (next_ns_ >= 0) report(now);
}

int64_t MonitorReporter::next_timer_ns() const {
  return next_ns_;
}

void MonitorReporter::on_command(PeerId from, const Command& cmd) {
  const ControlCommand c{engine_, from, cmd};
  if (from != topo_.evm_rank || cmd.type != CommandType::control)
    c.refuse("only the EVM's rank sends them");
  switch (static_cast<ControlKnob>(cmd.slot)) {
    case ControlKnob::pause:
      if (cmd.value > 1) c.refuse("pause flag out of range");
      engine_.set_paused(cmd.value == 1);
      return;
    case ControlKnob::background:
      c.refuse("it switches congestors, and this rank is none");
    default:
      break;
  }
  if (!view_->apply(c)) c.refuse("unknown knob " + std::to_string(cmd.slot));
}

}  // namespace evb
