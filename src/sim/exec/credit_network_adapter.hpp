#pragma once
// The credit model's network (sim/credit/network.hpp) as the World's
// Network, counting what it moved for the run's closing line.
#include "sim/credit/network.hpp"
#include "sim/exec/world.hpp"

namespace evb::simexec {

class CreditNetworkAdapter final : public Network {
 public:
  CreditNetworkAdapter(const topo::Platform& platform, const simnet::NetworkParams& params,
                       int lanes)
      : net_(platform, params, lanes) {}
  uint64_t send(int src_host, int dst_host, uint64_t bytes, int64_t now_ns, int lane) override {
    ++messages_;
    return net_.send(src_host, dst_host, bytes, now_ns, lane);
  }
  int64_t next_event_ns() const override { return net_.next_event_ns(); }
  void advance(int64_t t_ns, std::vector<simnet::Delivery>& delivered) override {
    net_.advance(t_ns, delivered);
  }
  uint64_t events() const { return net_.events_processed(); }
  uint64_t messages() const { return messages_; }
  const simnet::CreditNetwork& network() const { return net_; }

 private:
  simnet::CreditNetwork net_;
  uint64_t messages_ = 0;
};

}  // namespace evb::simexec
