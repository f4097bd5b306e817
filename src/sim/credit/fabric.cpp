// Building the credit model's fabric state from a platform.
#include "sim/credit/fabric.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"

namespace evb::simnet {

Fabric::Fabric(const topo::Platform& platform, const topo::NetworkSettings& params)
    : vls(params.virtual_lanes),
      per_output_queues(params.queueing == topo::Queueing::voq && !params.infinite_buffers) {
  const std::string where = platform.source.empty() ? platform.name : platform.source;
  const auto& nodes = platform.nodes;
  words.assign(nodes.size(), 0);
  port_base.assign(nodes.size(), 0);
  ports.assign(nodes.size(), 0);
  uint32_t ports_total = 0;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].kind != topo::NodeKind::switch_node) continue;
    ports[n] = static_cast<uint32_t>(nodes[n].port_link.size());
    words[n] = (static_cast<int>(ports[n]) + 63) / 64;
    port_base[n] = ports_total;
    ports_total += static_cast<uint32_t>(nodes[n].port_link.size());
  }
  in_links.assign(ports_total, -1);

  links.resize(platform.links.size());
  inputs.assign(links.size() * static_cast<size_t>(vls), InputVl{});
  uint32_t mask_words = 0, voq_total = 0;
  for (size_t i = 0; i < links.size(); ++i) {
    const topo::Link& pl = platform.links[i];
    if (!(pl.bandwidth > 0) || !std::isfinite(pl.bandwidth) || !(pl.latency >= 0))
      throw ConfigError(where + ": link " + platform.link_name(static_cast<int>(i)) +
                        ": needs a positive bandwidth and a latency >= 0");
    LinkState& l = links[i];
    const topo::Node& from = nodes[pl.from];
    const topo::Node& to = nodes[pl.to];
    l.ps_per_byte = 8e12 / pl.bandwidth;
    l.latency_ps = std::llround(pl.latency * 1e12);
    l.from_host = from.kind == topo::NodeKind::host;
    l.to_host = to.kind == topo::NodeKind::host;
    l.from_port = pl.from_port;
    l.to_port = pl.to_port;
    l.from_node = pl.from;
    l.to_node = pl.to;
    l.host = from.host_index;
    l.limited = !l.to_host && !params.infinite_buffers;
    for (int v = 0; v < vls; ++v)
      input(static_cast<int>(i), v).credits = static_cast<int64_t>(params.buffer_bytes);
    if (!l.from_host) {
      l.mask_base = mask_words;
      mask_words += static_cast<uint32_t>(words[pl.from] * vls);
    }
    if (!l.to_host) {
      in_links[port_base[pl.to] + pl.to_port] = static_cast<int>(i);
      if (per_output_queues) {
        l.voq_base = voq_total;
        voq_total += static_cast<uint32_t>(to.port_link.size()) * static_cast<uint32_t>(vls);
      }
    }
  }
  masks.assign(mask_words, 0);
  voqs.assign(voq_total, Queue{});
}

}  // namespace evb::simnet
