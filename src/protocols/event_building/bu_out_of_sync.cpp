// BuAgent::ru_out_of_sync: what a BU does once an RU is named out of sync
// (a sound fragment labelled with another event than asked for; a desync
// fault, or a source that skipped or repeated an event). Kept apart from the
// RU-loss paths: under on_ru_loss it is the place to mask the RU instead.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "protocols/event_building/bu_agent.hpp"

namespace evb {
namespace {

// Header (and MEP table: `head_size` bytes), metadata and payload as they
// arrived, to a file named by RU, BU and both events in `dir` ("": the
// current directory). Returns its path, or "" when it could not be written
// (said on stderr; the run still ends).
std::string keep_fragment(const std::string& dir, const OutOfSync& o, int bu, const uint8_t* head,
                          uint64_t head_size, const uint8_t* body) {
  FragmentHeader h;
  std::memcpy(&h, head, sizeof h);
  namespace fs = std::filesystem;
  const std::string name = "evbench-desync-ru" + std::to_string(o.ru) + "-bu" + std::to_string(bu) +
                           "-event" + std::to_string(o.expected) + "-labelled" +
                           std::to_string(o.labelled) + ".frag";
  std::error_code ec;
  const fs::path path =
      fs::absolute(fs::path(dir.empty() ? "." : dir) / name, ec).lexically_normal();
  const uint64_t meta = static_cast<uint64_t>(h.meta_size) * h.meta_segments;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(head), static_cast<std::streamsize>(head_size));
  out.write(reinterpret_cast<const char*>(body),
            static_cast<std::streamsize>(meta + h.payload_size));
  if (!out) {
    std::fprintf(stderr, "evbench: BU %d: cannot write the out-of-sync fragment to %s\n", bu,
                 path.c_str());
    return "";
  }
  return path.string();
}

// How a report names `o`. A MEP whose label moved (a desync backwards, or by
// p or more events) is out of sync in MEP numbers, as a one-event fragment
// is in event numbers; it is named as a wrong event inside a MEP is, by
// events: the first it carries (its table's first entry) where the MEP's
// first belongs. `head`: the sound fragment's header and table.
OutOfSync named_by_events(const OutOfSync& o, const uint8_t* head) {
  FragmentHeader h;
  std::memcpy(&h, head, sizeof h);
  if (o.in_mep || h.events <= 1) return o;
  MepEntry first;
  std::memcpy(&first, head + sizeof h, sizeof first);
  OutOfSync e = o;
  e.in_mep = true;
  e.mep = o.expected;
  e.expected = o.expected * h.events;
  e.labelled = first.event;
  return e;
}

}  // namespace

void BuAgent::report_desync(const OutOfSync& o, uint32_t second) {
  engine_.send_command(topo_.evm_rank, Channel::to_evm,
                       Command{.type = CommandType::desync,
                               .event_id = o.labelled,
                               .slot = o.slot,
                               .bu = static_cast<uint32_t>(bu_.index()),
                               .ru = static_cast<uint32_t>(o.ru),
                               .count = second,
                               .value = o.expected});
}

void BuAgent::ru_out_of_sync(const OutOfSync& o, const uint8_t* head, const uint8_t* body) {
  ++bu_.integrity().out_of_sync;
  const OutOfSync n = named_by_events(o, head);
  const std::string who = "BU " + std::to_string(bu_.index()) + ": RU " + std::to_string(n.ru) +
                          " (rank " + std::to_string(topo_.ru_rank.at(n.ru)) + ") is out of sync: ";
  const std::string what = n.in_mep ? who + "its fragment for MEP " + std::to_string(n.mep) +
                                          " carries event " + std::to_string(n.labelled) +
                                          " where event " + std::to_string(n.expected) + " belongs"
                                    : who + "its fragment for event " + std::to_string(n.expected) +
                                          " is labelled event " + std::to_string(n.labelled);
  bu_.note_problem(what);
  if (!kept_[o.ru]) {
    kept_[o.ru] = 1;
    const std::string path = keep_fragment(keep_dir_, n, bu_.index(), head, bu_.head_bytes(), body);
    std::fprintf(stderr, "evbench: %s; fragment kept in %s\n", what.c_str(),
                 path.empty() ? "(nothing: not written)" : path.c_str());
  }
  stop_for_out_of_sync(o);  // tells the EVM (which masks the RU under on_ru_loss mask)
  if (mask_) mask_out_of_sync(o.ru);
}

}  // namespace evb
