#pragma once
// The keys of a calibration overlay (`evbench sim --calibrate` writes it,
// `--calibration FILE` reads it; apps/evbench/sim_calibration.hpp), with a
// one-line doc each: the reader accepts exactly these, and docs/SCALE.md's
// overlay key table is generated from them (a unit test checks the page is
// current).
#include <string>
#include <vector>

namespace evb {

// One key: its dotted path below the file's top ("calibration.from.file"),
// what is written there, and what it means.
struct OverlayKey {
  std::string path;
  std::string value;
  std::string doc;
};

const std::vector<OverlayKey>& overlay_keys();
// Whether `path` is a key of the table.
bool is_overlay_key(const std::string& path);
// The Markdown table of every key.
std::string overlay_reference_markdown();

}  // namespace evb
