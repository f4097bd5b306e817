#pragma once
// The protocols built into this binary, in registration order (the order
// of docs/CONFIG.md's choices), filled by the generated
// register_builtin_protocols() (src/protocols/CMakeLists.txt: one
// evbench_add_protocol line per folder). Owned by main() and passed down,
// like the driver registry; there is no global one.
#include <string>
#include <vector>

#include "core/config_table.hpp"
#include "protocols/api/protocol.hpp"

namespace evb {

class ProtocolRegistry {
 public:
  void add(ProtocolFactory f) { protocols_.push_back(std::move(f)); }
  // nullptr when no protocol has this name.
  const ProtocolFactory* find(const std::string& name) const;
  // The factory of config.protocol; ConfigError when it is not built.
  const ProtocolFactory& of(const Config& config) const;
  const std::vector<ProtocolFactory>& all() const { return protocols_; }
  // What the config loader needs to know of them (names, keys, traits,
  // rules), added to `keys`.
  void describe(PluginKeys& keys) const;

 private:
  std::vector<ProtocolFactory> protocols_;
};

// Generated: registers every protocol folder that was built.
void register_builtin_protocols(ProtocolRegistry& registry);

}  // namespace evb
