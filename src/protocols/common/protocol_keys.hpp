#pragma once
// What each protocol folder declares about configuration: the protocols it
// implements and the keys it reads beyond those every run reads (nodes,
// layout, fragment.*, ru_buffer, duration, warmup, driver, bootstrap, ...).
// The list reaches the config loader through PluginKeys, like the drivers'
// option tables: a key set explicitly that the selected protocol does not
// read draws a warning naming the key and who reads it, and docs/CONFIG.md
// lists each protocol's keys.
#include <string>
#include <vector>

namespace evb {

struct ProtocolKeys {
  std::vector<std::string> protocols;  // YAML names ("pull", "one-to-one")
  std::vector<std::string> keys;       // dotted key paths it reads
};

// Declared by each folder (pull/, push/, pull_noevm/, microbench/).
namespace pull {
std::vector<ProtocolKeys> keys();
}
namespace push {
std::vector<ProtocolKeys> keys();
}
namespace pull_noevm {
std::vector<ProtocolKeys> keys();
}
namespace micro {
std::vector<ProtocolKeys> keys();
}

// Every protocol's declaration, in documentation order.
inline std::vector<ProtocolKeys> all_protocol_keys() {
  std::vector<ProtocolKeys> all;
  for (auto* folder : {pull::keys, push::keys, pull_noevm::keys, micro::keys})
    for (auto& k : folder()) all.push_back(std::move(k));
  return all;
}

}  // namespace evb
