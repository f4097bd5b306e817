#include "protocols/event_building/window_cpu.hpp"

#include <sys/resource.h>

#include "core/clock.hpp"

namespace evb {

WindowCpu::WindowCpu(Engine& engine, EventBuildingStats& stats) : engine_(engine), stats_(stats) {
  const Config& c = engine.config();
  engine_.add_agent(this);
  warmup_ns_ = s_to_ns(c.warmup_s);
  end_ns_ = c.events ? 0 : s_to_ns(c.duration_s);
}

WindowCpu::Reading WindowCpu::read(int64_t now_ns) const {
  Reading r;
  r.t_ns = now_ns;
  rusage u{};
  if (::getrusage(RUSAGE_SELF, &u) == 0) {
    r.user_s = u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6;
    r.system_s = u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
  }
  r.sent = stats_.fragments_sent;
  r.received = stats_.fragments_received;
  return r;
}

void WindowCpu::start(int64_t now_ns) {
  from_ = read(now_ns);  // the whole loop's start, should the window never open
}

void WindowCpu::on_tick(int64_t now_ns) {
  if (state_ == State::closed) return;
  const int64_t t = now_ns - engine_.t0_ns();
  if (state_ == State::before && t >= warmup_ns_) {
    from_ = read(now_ns);
    state_ = State::open;
  } else if (state_ == State::open && end_ns_ > 0 && t > end_ns_) {
    to_ = read(now_ns);
    state_ = State::closed;
  }
}

void WindowCpu::finish() {
  if (state_ != State::closed) to_ = read(now_ns());
  state_ = State::closed;
  stats_.cpu_window_s = static_cast<double>(to_.t_ns - from_.t_ns) * 1e-9;
  stats_.cpu_user_s = to_.user_s - from_.user_s;
  stats_.cpu_system_s = to_.system_s - from_.system_s;
  stats_.cpu_fragments_sent = to_.sent - from_.sent;
  stats_.cpu_fragments_received = to_.received - from_.received;
}

}  // namespace evb
