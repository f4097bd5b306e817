#pragma once
// The keys of the platform YAML description, with a one-line doc each: the
// loader accepts exactly these (unknown keys are errors with a suggestion)
// and docs/TOPOLOGY.md's key table is generated from them
// (`evbench topo --reference`; a test checks the page is current).
#include <string>
#include <vector>

namespace evb::topo {

struct PlatformKey {
  std::string path;   // dotted; list items as "hosts[].name"
  std::string value;  // what is written there
  std::string doc;
};

const std::vector<PlatformKey>& platform_keys();
// Names directly below `group` ("" = top level, "hosts[]" = a hosts item).
std::vector<std::string> platform_key_names(const std::string& group);
// The Markdown table of every key.
std::string platform_reference_markdown();

}  // namespace evb::topo
