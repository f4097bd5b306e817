// CreditNetwork: the public face of the credit model (engine.hpp runs it).
#include "sim/credit/network.hpp"

#include "sim/credit/engine.hpp"

namespace evb::simnet {

struct CreditNetwork::Impl {
  Impl(const topo::Platform& platform, const NetworkParams& params, int lanes)
      : engine(platform, params, lanes) {}
  Engine engine;
};

CreditNetwork::CreditNetwork(const topo::Platform& platform, const NetworkParams& params, int lanes)
    : impl_(new Impl(platform, params, lanes)) {}

CreditNetwork::~CreditNetwork() {
  delete impl_;
}

uint64_t CreditNetwork::send(int src, int dst, uint64_t bytes, int64_t now_ns, int lane,
                             Traffic traffic) {
  return impl_->engine.send(src, dst, bytes, now_ns, lane, traffic);
}

int64_t CreditNetwork::next_event_ns() const {
  return impl_->engine.next_event_ns();
}

void CreditNetwork::advance(int64_t t_ns, std::vector<Delivery>& delivered) {
  impl_->engine.advance(t_ns, delivered);
}

const std::vector<LinkStats>& CreditNetwork::link_stats() const {
  return impl_->engine.link_stats();
}

uint64_t CreditNetwork::events_processed() const {
  return impl_->engine.events_processed();
}

uint64_t CreditNetwork::in_flight() const {
  return impl_->engine.in_flight();
}

uint64_t CreditNetwork::queued_at_nic(int src) const {
  return impl_->engine.queued_at_nic(src);
}

const NetworkParams& CreditNetwork::params() const {
  return impl_->engine.params();
}

}  // namespace evb::simnet
