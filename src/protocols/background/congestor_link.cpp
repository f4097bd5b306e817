#include "protocols/background/congestor_link.hpp"

#include <bit>
#include <cstring>
#include <string>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/messages.hpp"

namespace evb {
namespace {

// Cookies of the link: a top byte no CongestorRun::Kind has, the slot below.
constexpr uint64_t kLinkRecv = 0xC1ull << 56;
constexpr uint64_t kLinkSend = 0xC2ull << 56;
constexpr uint64_t kLinkMask = 0xFFull << 56;
constexpr size_t kControlRecvs = 4;  // a request changes an entry once: a few suffice
constexpr size_t kStatsSlots = 4;    // reports still on their way; more skip a tick

}  // namespace

CongestorLink::CongestorLink(Driver& driver, const Config& config, const Topology& topo, int rank)
    : driver_(driver),
      config_(config),
      topo_(topo),
      rank_(rank),
      entry_(topo.congestor(rank)->entry) {}

bool CongestorLink::owns(uint64_t cookie) {
  const uint64_t top = cookie & kLinkMask;
  return top == kLinkRecv || top == kLinkSend;
}

void CongestorLink::set_up() {
  const size_t size = config_.command_size;
  recv_buffer_ = AlignedBuffer(size * kControlRecvs);
  send_buffer_ = AlignedBuffer(size * kStatsSlots);
  recv_reg_ = driver_.register_memory(recv_buffer_.data(), recv_buffer_.size());
  send_reg_ = driver_.register_memory(send_buffer_.data(), send_buffer_.size());
  send_busy_.assign(kStatsSlots, false);
  for (size_t k = 0; k < kControlRecvs; ++k) post_control_recv(k);
}

void CongestorLink::post_control_recv(size_t slot) {
  const size_t size = config_.command_size;
  driver_.post_recv(topo_.evm_rank, command_tag(Channel::control),
                    recv_buffer_.data() + slot * size, size, recv_reg_.get(), kLinkRecv | slot);
}

void CongestorLink::start(int64_t now) {
  interval_ns_ = s_to_ns(config_.report_interval_s);
  since_ns_ = now;
  next_ns_ = interval_ns_ > 0 ? now + interval_ns_ : -1;
}

void CongestorLink::tick(int64_t now, const CongestorCounts& counts, bool sending) {
  if (next_ns_ < 0 || now < next_ns_) return;
  next_ns_ = now + interval_ns_;
  size_t slot = 0;
  while (slot < send_busy_.size() && send_busy_[slot]) ++slot;
  if (slot == send_busy_.size()) return;  // the next report covers this interval too
  Command c{.type = CommandType::stats,
            .event_id = counts.messages,
            .slot = static_cast<uint32_t>(MonitorStat::background),
            .bu = static_cast<uint32_t>(counts.entry),
            .ru = static_cast<uint32_t>(counts.member),
            .count = sending ? 1u : 0u,
            .bytes = counts.bytes,
            .value = counts.received_bytes};
  c.pad[0] = std::bit_cast<uint64_t>(since_ns_);
  c.pad[1] = std::bit_cast<uint64_t>(now);
  const size_t size = config_.command_size;
  uint8_t* at = send_buffer_.data() + slot * size;
  std::memset(at, 0, size);
  std::memcpy(at, &c, sizeof c);
  const Segment seg{at, size, send_reg_.get()};
  driver_.post_send(topo_.evm_rank, command_tag(Channel::monitor), std::span(&seg, 1),
                    kLinkSend | slot);
  send_busy_[slot] = true;
  ++sends_in_flight_;
  since_ns_ = now;  // the next interval starts where this one ended
}

void CongestorLink::handle(const Completion& c) {
  const size_t slot = static_cast<size_t>(c.cookie & ~kLinkMask);
  if ((c.cookie & kLinkMask) == kLinkSend) {
    send_busy_.at(slot) = false;
    --sends_in_flight_;
    return;
  }
  auto refuse = [&](const std::string& what) {
    throw PeerError(c.peer, "background: rank " + std::to_string(rank_) +
                                ": a control command from rank " + std::to_string(c.peer) +
                                " refused: " + what);
  };
  Command cmd;
  if (c.peer != topo_.evm_rank) refuse("only the EVM's rank sends them");
  if (!decode_command(recv_buffer_.data() + slot * config_.command_size, c.bytes, &cmd) ||
      cmd.type != CommandType::control)
    refuse("not a control command");
  if (cmd.slot != static_cast<uint32_t>(ControlKnob::background))
    refuse("a congestor takes only the background knob");
  if (cmd.bu != static_cast<uint32_t>(entry_)) refuse("it names another background entry");
  if (cmd.value > 1) refuse("the on/off flag is out of range");
  on_ = cmd.value == 1;
  post_control_recv(slot);
}

}  // namespace evb
