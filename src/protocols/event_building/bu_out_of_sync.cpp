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
  const std::string who = "BU " + std::to_string(bu_.index()) + ": RU " + std::to_string(o.ru) +
                          " (rank " + std::to_string(topo_.ru_rank.at(o.ru)) + ") is out of sync: ";
  const std::string what = o.in_mep ? who + "its fragment for MEP " + std::to_string(o.mep) +
                                          " carries event " + std::to_string(o.labelled) +
                                          " where event " + std::to_string(o.expected) + " belongs"
                                    : who + "its fragment for event " + std::to_string(o.expected) +
                                          " is labelled event " + std::to_string(o.labelled);
  bu_.note_problem(what);
  if (!kept_[o.ru]) {
    kept_[o.ru] = 1;
    const std::string path = keep_fragment(keep_dir_, o, bu_.index(), head, bu_.head_bytes(), body);
    std::fprintf(stderr, "evbench: %s; fragment kept in %s\n", what.c_str(),
                 path.empty() ? "(nothing: not written)" : path.c_str());
  }
  stop_for_out_of_sync(o);  // tells the EVM (which masks the RU under on_ru_loss mask)
  if (mask_) mask_out_of_sync(o.ru);
}

}  // namespace evb
