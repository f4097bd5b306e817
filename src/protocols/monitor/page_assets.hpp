#pragma once
// The live page's files, embedded in the binary at build time from
// src/protocols/monitor/page/ (no CDN, no file read at run time: DAQ networks are
// closed and a run may not find its source tree).
#include <optional>
#include <string_view>

namespace evb {

struct PageAsset {
  std::string_view content_type;  // "text/html; charset=utf-8"
  std::string_view body;
};

// The asset served at `path` ("/", "/live.js", "/live_units.js", "/live_background.js",
// "/live.css"), if any.
std::optional<PageAsset> page_asset(std::string_view path);

}  // namespace evb
