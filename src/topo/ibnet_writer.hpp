#pragma once
// Writing a platform's cabling as an ibnetdiscover topology file: the text
// ibsim (the InfiniBand fabric simulator) takes as its net file and that
// fabric_dump.cpp reads back. scripts/opensm-routes.sh feeds it to ibsim so
// that OpenSM routes the platform's cables.
#include <string>

#include "topo/platform.hpp"

namespace evb::topo {

// One "Ca" block per host (host order; the first is where the subnet
// manager attaches) and one "Switch" block per switch, every cabled port
// listed from both ends with the link's width and speed (e.g. 4xEDR). Node
// ids are made-up GUIDs ("H-..." and "S-..."); descriptions carry the names,
// so a dump of the simulated fabric loads with the same host and switch
// names. Throws evb::ConfigError when a link rate has no InfiniBand width x
// speed equal to it.
std::string ibnetdiscover_text(const Platform& platform);

}  // namespace evb::topo
