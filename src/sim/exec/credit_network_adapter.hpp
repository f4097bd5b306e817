#pragma once
// The credit model's network (sim/credit/network.hpp) as the World's
// Network, counting what it moved for the run's closing line. With a
// per-message overhead (a calibration's, `evbench sim --calibrate`) every
// message is handed to the World that much later than its last byte
// arrived: the time a host's stack takes per message (system calls,
// wake-ups, kernel queues), which holds no link.
#include <functional>
#include <queue>
#include <vector>

#include "sim/credit/network.hpp"
#include "sim/exec/world.hpp"

namespace evb::simexec {

class CreditNetworkAdapter final : public Network {
 public:
  CreditNetworkAdapter(const topo::Platform& platform, const simnet::NetworkParams& params,
                       int lanes, int64_t message_overhead_ns = 0)
      : net_(platform, params, lanes), overhead_ns_(message_overhead_ns) {}
  uint64_t send(int src_host, int dst_host, uint64_t bytes, int64_t now_ns, int lane) override {
    ++messages_;
    // A lane's stream (Connections) is what the virtual lanes tell apart.
    const auto traffic = Connections::stream_of_lane(lane) == Connections::kCommands
                             ? simnet::Traffic::command
                             : simnet::Traffic::data;
    return net_.send(src_host, dst_host, bytes, now_ns, lane, traffic);
  }
  int64_t next_event_ns() const override {
    const int64_t next = net_.next_event_ns();
    return held_.empty() ? next : std::min(next, held_.top().time_ns);
  }
  void advance(int64_t t_ns, std::vector<simnet::Delivery>& delivered) override {
    if (overhead_ns_ == 0) {
      net_.advance(t_ns, delivered);
      return;
    }
    arrived_.clear();
    net_.advance(t_ns, arrived_);
    for (simnet::Delivery d : arrived_) {
      d.time_ns += overhead_ns_;
      held_.push(d);
    }
    while (!held_.empty() && held_.top().time_ns <= t_ns) {
      delivered.push_back(held_.top());
      held_.pop();
    }
  }
  uint64_t events() const { return net_.events_processed(); }
  uint64_t messages() const { return messages_; }
  const simnet::CreditNetwork& network() const { return net_; }

 private:
  struct Later {
    bool operator()(const simnet::Delivery& a, const simnet::Delivery& b) const {
      return a.time_ns > b.time_ns;
    }
  };
  simnet::CreditNetwork net_;
  int64_t overhead_ns_;
  std::vector<simnet::Delivery> arrived_;
  std::priority_queue<simnet::Delivery, std::vector<simnet::Delivery>, Later> held_;
  uint64_t messages_ = 0;
};

}  // namespace evb::simexec
