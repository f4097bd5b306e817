#include "protocols/background/congestor_stats.hpp"

#include <algorithm>
#include <sstream>

#include "core/error.hpp"

namespace evb {

std::string CongestorCounts::encode() const {
  std::ostringstream out;
  out << "congestor " << entry << ' ' << member << ' ' << messages << ' ' << bytes << ' '
      << received_messages << ' ' << received_bytes << ' ' << first_ns << ' ' << last_ns;
  return out.str();
}

std::optional<CongestorCounts> CongestorCounts::decode(const std::string& text) {
  std::istringstream in(text);
  std::string word;
  CongestorCounts c;
  if (!(in >> word) || word != "congestor") return std::nullopt;
  if (!(in >> c.entry >> c.member >> c.messages >> c.bytes >> c.received_messages >>
        c.received_bytes >> c.first_ns >> c.last_ns))
    return std::nullopt;
  if (in >> word) return std::nullopt;  // trailing text
  if (c.entry < 0 || c.member < 0 || c.first_ns < 0 || c.last_ns < c.first_ns) return std::nullopt;
  return c;
}

std::vector<BackgroundResult> merge_background(const Config& config, const Topology& topo,
                                               const std::vector<RankStats>& congestor_ranks) {
  std::vector<BackgroundResult> out(config.background.size());
  std::vector<int64_t> first(out.size(), -1);
  std::vector<int64_t> last(out.size(), 0);
  for (size_t e = 0; e < out.size(); ++e) out[e].spec = config.background[e];
  for (const RankStats& r : congestor_ranks) {
    const CongestorRank* k = topo.congestor(r.rank);
    const auto c = CongestorCounts::decode(r.own);
    if (!k || !c || c->entry != k->entry || c->member != k->member)
      throw Error("rank " + std::to_string(r.rank) + " sent a malformed congestor record '" +
                  r.own + "'");
    BackgroundResult& b = out[static_cast<size_t>(k->entry)];
    ++b.ranks_reported;
    b.messages += c->messages;
    b.bytes += c->bytes;
    b.received_bytes += c->received_bytes;
    if (c->messages == 0) continue;
    int64_t& f = first[static_cast<size_t>(k->entry)];
    f = f < 0 ? c->first_ns : std::min(f, c->first_ns);
    last[static_cast<size_t>(k->entry)] = std::max(last[static_cast<size_t>(k->entry)], c->last_ns);
  }
  for (size_t e = 0; e < out.size(); ++e) {
    if (first[e] < 0) continue;
    out[e].start_s = static_cast<double>(first[e]) * 1e-9;
    out[e].stop_s = static_cast<double>(last[e]) * 1e-9;
    const double window = out[e].stop_s - out[e].start_s;
    if (window > 0) out[e].gbps = static_cast<double>(out[e].bytes) * 8 / window * 1e-9;
  }
  return out;
}

void write_background_json(JsonWriter& w, const std::vector<BackgroundResult>& results) {
  w.begin_array("background");
  for (const BackgroundResult& b : results) {
    w.begin_object();
    w.value("pattern", to_string(b.spec.pattern));
    w.value("ranks", b.spec.ranks);
    w.value("ranks_reported", b.ranks_reported);
    w.value("size", b.spec.size);
    w.value("in_flight", b.spec.in_flight);
    if (b.spec.pattern == BackgroundSpec::Pattern::one_to_one) w.value("shift", b.spec.shift);
    w.value("start", b.start_s);
    w.value("stop", b.stop_s);
    w.value("messages", b.messages);
    w.value("bytes", b.bytes);
    w.value("received_bytes", b.received_bytes);
    w.value("gbps", b.gbps);
    w.end_object();
  }
  w.end_array();
}

void print_background_lines(std::FILE* out, const std::vector<BackgroundResult>& results) {
  for (size_t e = 0; e < results.size(); ++e) {
    const BackgroundResult& b = results[e];
    std::fprintf(out,
                 "# background %zu: %s, %d ranks, %llu B x %d in flight, %.2f-%.2f s: %.3f Gb/s "
                 "(%llu messages)\n",
                 e + 1, to_string(b.spec.pattern), b.spec.ranks,
                 static_cast<unsigned long long>(b.spec.size), b.spec.in_flight, b.start_s,
                 b.stop_s, b.gbps, static_cast<unsigned long long>(b.messages));
  }
}

}  // namespace evb
