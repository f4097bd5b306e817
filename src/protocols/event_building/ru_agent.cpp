#include "protocols/event_building/ru_agent.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace evb {

namespace {
constexpr uint64_t kInlineHeader = 0xFFFFFF;  // cookie: header lives in the ring slot
}

RuAgent::RuAgent(Engine& engine, ReadoutUnit& ru, const Registration& ring, const Topology& topo,
                 EventBuildingStats& stats, const std::vector<WriteTarget>* windows)
    : engine_(engine),
      ru_(ru),
      ring_(ring),
      topo_(topo),
      stats_(stats),
      windows_(windows),
      layout_(engine.config()),
      // A MEP's head carries its table (up to 256 KiB): fewer spare heads per chunk.
      headers_(engine.driver(), ru.head_bytes(), ru.head_bytes() > 4096 ? 16 : 256) {
  const Config& c = engine.config();
  const size_t need = 1 + c.fragment.meta_segments + c.fragment.data_segments;
  const size_t most = engine.driver().capabilities().max_segments;
  if (need > most)
    throw ConfigError("fragment.data_segments / fragment.meta_segments: a fragment of 1 header + " +
                      std::to_string(c.fragment.meta_segments) + " metadata + " +
                      std::to_string(c.fragment.data_segments) + " data segments is " +
                      std::to_string(need) + " segments, but driver " + engine.driver().name() +
                      " sends at most " + std::to_string(most) + " per operation");
  segments_.resize(need);
  headers_.reserve(ru.head_bytes() > 4096 ? 16 : 64);
  id_ = engine_.add_agent(this);
  // At most one request per BU slot can be outstanding here. Beyond 256 the
  // driver buffers the rest; fewer posted receives keep completion polling cheap.
  const int depth = std::clamp(topo.nodes * c.credits, 2, 256);
  engine_.listen(Channel::to_ru, id_, depth);
  stats_.ru = ru.index();
  bu_done_.assign(static_cast<size_t>(topo.nodes), 0);
  excluded_.assign(static_cast<size_t>(topo.nodes), 0);
  if (c.on_failure == OnFailure::exclude) {
    owned_ = std::make_unique<RingOwnership>(ru.slots());
    // One per BU slot, and as many again from BUs excluded while this RU
    // has not heard it yet (the exclusion and a survivor's request for the
    // reassigned event come from different peers).
    park_limit_ = 2 * static_cast<size_t>(topo.nodes) * c.credits;
    parked_.reserve(park_limit_);
  }
}

void RuAgent::on_peer_lost(PeerId peer, int64_t) {
  if (topo_.congestor(peer)) return;  // not the event builder's (see EvmAgent)
  if (peer == topo_.evm_rank)
    throw Error("RU " + std::to_string(ru_.index()) + ": the EVM, " + engine_.peer_name(peer) +
                ", was lost; the run cannot go on without it");
  const int bu = topo_.ranks.at(peer).bu;
  if (bu >= 0) exclude(bu);
}

void RuAgent::exclude(int bu) {
  excluded_[bu] = 1;
  // Its requests waiting for a release are dropped like its later ones.
  const size_t before = parked_.size();
  std::erase_if(parked_, [bu](const Parked& p) { return p.cmd.bu == static_cast<uint32_t>(bu); });
  stats_.late_discarded += before - parked_.size();
}

void RuAgent::start(int64_t) {}

void RuAgent::send_fragment(uint64_t event, int bu, uint32_t slot) {
  const Config& c = engine_.config();
  if (slot_sends_.empty()) slot_sends_.assign(ru_.slots(), 0);
  // Prefer a ring slot no other send is reading, so its header room is free
  // and the fragment leaves as one contiguous segment (a derived datatype
  // makes MPI pack it: an extra copy). Look a few slots ahead of home. A
  // kept fragment (on_failure exclude) leaves from its home slot only.
  size_t ring_slot = ru_.home_slot(event);
  const size_t probes = owned_ ? 1 : std::min<size_t>(ru_.slots(), 8);
  for (size_t probe = 0; probe < probes; ++probe) {
    const size_t s = (ru_.home_slot(event) + probe) % ru_.slots();
    if (slot_sends_[s] == 0) {
      ring_slot = s;
      break;
    }
  }
  const FragmentView f = ru_.fragment(event, ring_slot);
  // The slot's own header room can be used when no other send reads it.
  uint64_t h = kInlineHeader;
  FragmentHeader* header = reinterpret_cast<FragmentHeader*>(f.header);
  const Registration* header_reg = &ring_;
  if (slot_sends_[f.slot] > 0) {
    h = headers_.acquire();
    header = reinterpret_cast<FragmentHeader*>(headers_.at(h));
    header_reg = headers_.reg(h);
  }
  ru_.fill_header(*header, f, event, bu);
  const uint64_t meta = static_cast<uint64_t>(c.fragment.meta_segments) * c.fragment.meta_size;
  const uint64_t head = ru_.head_bytes();  // header, and a MEP's table
  const uint64_t total = head + meta + f.payload_size;
  size_t n = 0;
  if (h == kInlineHeader && c.fragment.data_segments <= 1 && c.fragment.meta_segments <= 1) {
    // Header, metadata and payload are contiguous: one segment.
    segments_[n++] = {f.header, total, &ring_};
  } else {
    segments_[n++] = {header, head, header_reg};
    for (uint32_t m = 0; m < c.fragment.meta_segments; ++m)
      segments_[n++] = {f.meta + m * c.fragment.meta_size, c.fragment.meta_size, &ring_};
    // data_segments parts of (nearly) equal size; the first ones one byte longer.
    const uint64_t parts = std::max<uint32_t>(1, c.fragment.data_segments);
    const uint64_t base = f.payload_size / parts;
    const uint64_t extra = f.payload_size % parts;
    uint64_t off = 0;
    for (uint64_t p = 0; p < parts; ++p) {
      const uint64_t len = base + (p < extra ? 1 : 0);
      segments_[n++] = {f.payload + off, len, &ring_};
      off += len;
    }
  }
  ++slot_sends_[f.slot];
  ++in_flight_;
  const uint64_t cookie = Engine::make_cookie(id_, (static_cast<uint64_t>(f.slot) << 24) | h);
  const std::span<const Segment> segs(segments_.data(), n);
  if (!windows_) {
    engine_.send(topo_.bu_rank.at(bu), data_tag(slot), segs, cookie);
    return;
  }
  const int me = ru_.index();
  if (total > layout_.size(me))
    throw Error("RU " + std::to_string(me) + ": fragment of " + std::to_string(total) +
                " B does not fit the BU window of " + std::to_string(layout_.size(me)) + " B");
  engine_.write(windows_->at(bu), segs, layout_.offset(slot, me),
                fragment_immediate(slot, me, topo_.nodes), cookie);
}

void RuAgent::on_command(PeerId from, const Command& cmd) {
  // Only the peer entitled to a command may send it: a BU requests for itself,
  // the EVM assigns and stops. Refusals say what was wrong, not what is right.
  auto refuse = [&](const std::string& what) {
    throw PeerError(from, "RU " + std::to_string(ru_.index()) + ": " + what + " from " +
                              engine_.peer_name(from) + " refused");
  };
  auto unexpected = [&] {
    throw PeerError(from, "RU " + std::to_string(ru_.index()) + ": unexpected command " +
                              std::to_string(static_cast<int>(cmd.type)) + " from " +
                              engine_.peer_name(from));
  };
  const bool valid_bu = cmd.bu < static_cast<uint32_t>(topo_.nodes);
  switch (cmd.type) {
    case CommandType::pull_request:
    case CommandType::push_assign: {
      const bool pull = cmd.type == CommandType::pull_request;
      if (!valid_bu || cmd.slot >= static_cast<uint32_t>(engine_.config().credits) ||
          cmd.ru != static_cast<uint32_t>(ru_.index()))
        refuse(std::string(pull ? "a pull request" : "an assignment") +
               " naming no valid BU slot of this RU");
      if (pull ? from != topo_.bu_rank[cmd.bu] : from != topo_.evm_rank)
        refuse(std::string(pull ? "a pull request" : "an assignment") + " for another BU");
      if (excluded_[cmd.bu]) {  // on_failure exclude: it is out of the run
        ++stats_.late_discarded;
        break;
      }
      if (!owned_) {
        send_fragment(cmd.event_id, static_cast<int>(cmd.bu), cmd.slot);
        break;
      }
      if (cmd.value > cmd.event_id)
        refuse(std::string(pull ? "a pull request" : "an assignment") +
               " made under a release beyond its own event");
      if (cmd.value <= owned_->released()) {
        admit(cmd);
        break;
      }
      if (parked_.size() >= park_limit_)
        refuse(std::string(pull ? "a pull request" : "an assignment") +
               " beyond the BU slots waiting for a release");
      parked_.push_back({from, cmd});
      break;
    }
    case CommandType::release: {
      if (!owned_) unexpected();  // on_failure abort keeps nothing to release
      if (from != topo_.evm_rank) refuse("a release");
      if (const char* why = owned_->release_refusal(cmd.value))
        refuse(std::string("a release (") + why + ")");
      owned_->release(cmd.value);
      // Requests made under this release (or an earlier one) go on now.
      size_t keep = 0;
      for (size_t i = 0; i < parked_.size(); ++i) {
        if (parked_[i].cmd.value > owned_->released()) {
          parked_[keep++] = parked_[i];
        } else if (excluded_[parked_[i].cmd.bu]) {
          ++stats_.late_discarded;
        } else {
          admit(parked_[i].cmd);
        }
      }
      parked_.resize(keep);
      break;
    }
    case CommandType::stop:
      if (from != topo_.evm_rank) refuse("a stop");
      stopped_ = true;
      for (const Parked& p : parked_)  // the EVM stopped before releasing them
        overrun("a request for event " + std::to_string(p.cmd.event_id) + " from " +
                engine_.peer_name(p.from) + " waited for a release of the events below " +
                std::to_string(p.cmd.value) + " that never came");
      parked_.clear();
      break;
    case CommandType::exclude:
      if (!valid_bu || from != topo_.evm_rank) refuse("an exclusion");
      exclude(static_cast<int>(cmd.bu));
      break;
    case CommandType::bu_done:
      if (!valid_bu || from != topo_.bu_rank[cmd.bu] || bu_done_[cmd.bu]) refuse("a bu_done");
      bu_done_[cmd.bu] = 1;
      if (++bus_done_ == topo_.nodes) stopped_ = true;
      break;
    default:
      unexpected();
  }
}

void RuAgent::admit(const Command& cmd) {
  const RingOwnership::Entry e = owned_->enter(cmd.event_id);
  if (e.verdict == RingOwnership::Verdict::overrun)
    overrun("ring overrun: event " + std::to_string(cmd.event_id) + " needs ring slot " +
            std::to_string(e.slot) + ", still held by event " + std::to_string(e.other) +
            " (not acknowledged built)");
  else if (e.verdict == RingOwnership::Verdict::stale)
    overrun("event " + std::to_string(cmd.event_id) +
            " asked for after its release (events below " + std::to_string(owned_->released()) +
            " acknowledged built); ring slot " + std::to_string(e.slot) + " no longer holds it");
  stats_.max_events_held = owned_->max_held();
  send_fragment(cmd.event_id, static_cast<int>(cmd.bu), cmd.slot);
}

void RuAgent::overrun(const std::string& what) {
  ++stats_.ring_overrun;
  if (stats_.integrity_problem.empty())
    stats_.integrity_problem = "RU " + std::to_string(ru_.index()) + ": " + what;
}

void RuAgent::on_completion(const Completion& c) {
  const uint64_t v = Engine::cookie_value(c.cookie);
  const size_t slot = v >> 24;
  const uint64_t h = v & 0xFFFFFF;
  const auto* header = h == kInlineHeader ? ru_.slot_header(slot)
                                          : reinterpret_cast<const FragmentHeader*>(headers_.at(h));
  if (c.status != OpStatus::ok) {  // on_failure exclude: the BU is lost
    --slot_sends_[slot];
    if (h != kInlineHeader) headers_.release(h);
    --in_flight_;
    return;
  }
  ++stats_.fragments_sent;
  stats_.bytes_sent += ru_.head_bytes() +
                       static_cast<uint64_t>(header->meta_size) * header->meta_segments +
                       header->payload_size;
  --slot_sends_[slot];
  if (h != kInlineHeader) headers_.release(h);
  --in_flight_;
}

bool RuAgent::done() const {
  return stopped_ && in_flight_ == 0;
}

std::string RuAgent::waiting_for() const {
  if (!stopped_ && !parked_.empty())
    return "RU " + std::to_string(ru_.index()) + ": a release of the events below " +
           std::to_string(parked_.front().cmd.value) + " (" + std::to_string(parked_.size()) +
           " request(s) wait for it), then the end of the run (stop)";
  if (!stopped_) return "RU " + std::to_string(ru_.index()) + ": the end of the run (stop)";
  return "RU " + std::to_string(ru_.index()) + ": " + std::to_string(in_flight_) +
         " fragment send(s) to complete";
}

}  // namespace evb
