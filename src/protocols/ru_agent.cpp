#include "protocols/ru_agent.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace evb {

RuAgent::RuAgent(Engine& engine, ReadoutUnit& ru, const Topology& topo, RankStats& stats)
    : engine_(engine), ru_(ru), topo_(topo), stats_(stats) {
  id_ = engine_.add_agent(this);
  const int depth = std::max(16, topo.nodes * engine.config().credits);
  engine_.listen(Channel::to_ru, id_, depth);
  stats_.ru = ru.index();
}

void RuAgent::start(int64_t) {}

void RuAgent::send_fragment(uint64_t event, int bu, uint32_t slot) {
  const Config& c = engine_.config();
  size_t h;
  if (free_headers_.empty()) {
    headers_.emplace_back();
    sizes_.push_back(0);
    h = headers_.size() - 1;
  } else {
    h = free_headers_.back();
    free_headers_.pop_back();
  }
  const FragmentView f = ru_.fragment(event);
  ru_.fill_header(headers_[h], f, event, bu);
  Segment segs[64];
  size_t n = 0;
  segs[n++] = {&headers_[h], sizeof(FragmentHeader)};
  for (uint32_t m = 0; m < c.fragment.meta_segments; ++m)
    segs[n++] = {f.meta + m * c.fragment.meta_size, c.fragment.meta_size};
  const uint32_t parts = std::max<uint32_t>(1, c.fragment.data_segments);
  const uint64_t part = (f.payload_size + parts - 1) / parts;
  for (uint64_t off = 0; off < f.payload_size && n < 64; off += part)
    segs[n++] = {f.payload + off, std::min(part, f.payload_size - off)};
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) total += segs[i].size;
  sizes_[h] = total;
  ++in_flight_;
  engine_.send(topo_.bu_rank.at(bu), data_tag(slot), std::span<const Segment>(segs, n),
               Engine::make_cookie(id_, h));
}

void RuAgent::on_command(PeerId from, const Command& cmd) {
  switch (cmd.type) {
    case CommandType::pull_request:
    case CommandType::push_assign:
      send_fragment(cmd.event_id, static_cast<int>(cmd.bu), cmd.slot);
      break;
    case CommandType::stop:
      stopped_ = true;
      break;
    case CommandType::bu_done:
      if (++bus_done_ == topo_.nodes) stopped_ = true;
      break;
    default:
      throw PeerError(from, "RU " + std::to_string(ru_.index()) + ": unexpected command " +
                                std::to_string(static_cast<int>(cmd.type)) + " from " +
                                engine_.peer_name(from));
  }
}

void RuAgent::on_completion(const Completion& c) {
  const size_t h = Engine::cookie_value(c.cookie);
  ++stats_.fragments_sent;
  stats_.bytes_sent += sizes_[h];
  free_headers_.push_back(h);
  --in_flight_;
}

bool RuAgent::done() const { return stopped_ && in_flight_ == 0; }

std::string RuAgent::waiting_for() const {
  if (!stopped_) return "RU " + std::to_string(ru_.index()) + ": the end of the run (stop)";
  return "RU " + std::to_string(ru_.index()) + ": " + std::to_string(in_flight_) +
         " fragment send(s) to complete";
}

}  // namespace evb
