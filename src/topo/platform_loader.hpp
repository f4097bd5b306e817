#pragma once
// Reading platforms: the YAML description (docs/TOPOLOGY.md) and real fabric
// dumps (ibnetdiscover topology + dump_lfts forwarding tables).
//
// Errors are evb::ConfigError reading FILE:LINE:COLUMN: KEY: reason, as the
// configuration loader's do (core/config_loader.hpp).
#include <string>
#include <vector>

#include "topo/platform.hpp"

namespace evb::topo {

// A platform YAML file (configs/platforms/*.yaml). A description may also
// name a fabric dump (`fabric: {topology: FILE, lfts: FILE}`); its paths are
// relative to the YAML file.
Platform load_platform(const std::string& path);
// Same from text; `name` stands in for the file name in messages and `dir`
// is where relative paths point.
Platform load_platform_text(const std::string& yaml_text, const std::string& name,
                            const std::string& dir = ".");

// ibnetdiscover output plus dump_lfts output (files or text). Hosts are the
// channel adapters, in the natural order of their names ("node2" before
// "node10"); bandwidth from the link width and speed ibnetdiscover prints
// (e.g. 4xEDR), latency `link_latency` seconds per link.
Platform read_fabric(const std::string& topology_path, const std::string& lfts_path,
                     double link_latency = 1e-7);
Platform read_fabric_text(const std::string& topology_text, const std::string& topology_name,
                          const std::string& lfts_text, const std::string& lfts_name,
                          double link_latency = 1e-7);

// A rank order file: host names one per line ('#' comments, blank lines
// ignored). Returns host indices; errors name FILE:LINE.
std::vector<int> load_order(const Platform& platform, const std::string& path);
std::vector<int> parse_order(const Platform& platform, const std::string& text,
                             const std::string& name);

}  // namespace evb::topo
