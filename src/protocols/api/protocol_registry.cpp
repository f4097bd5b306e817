#include "protocols/api/protocol_registry.hpp"

#include "core/error.hpp"

namespace evb {

const ProtocolFactory* ProtocolRegistry::find(const std::string& name) const {
  for (const ProtocolFactory& f : protocols_)
    if (f.name == name) return &f;
  return nullptr;
}

const ProtocolFactory& ProtocolRegistry::of(const Config& config) const {
  if (const ProtocolFactory* f = find(config.protocol)) return *f;
  throw ConfigError("protocol '" + config.protocol + "' is not built in");
}

void ProtocolRegistry::describe(PluginKeys& k) const {
  for (const ProtocolFactory& f : protocols_) {
    k.protocols.push_back(f.name);
    k.protocol_keys[f.name] = f.keys;
    k.protocol_summaries[f.name] = f.summary;
    if (f.uses_evm) k.protocols_with_evm.push_back(f.name);
    if (f.builds_events) k.event_builders.push_back(f.name);
    if (!f.rules.empty()) k.protocol_rules[f.name] = f.rules;
  }
}

}  // namespace evb
