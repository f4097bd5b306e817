// plugin_keys() (apps/evbench/cli.hpp) in a file of its own: it needs only
// the registries, so the fuzz targets (fuzz/) and tools that load a config
// link it without the rest of the CLI.
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "apps/evbench/cli.hpp"

namespace evb {

PluginKeys plugin_keys(const PluginRegistry& r, const ProtocolRegistry& protocols) {
  PluginKeys k;
  std::map<std::string, std::function<Capabilities(const Config&)>> queries;
  for (const auto& [name, f] : r.drivers()) {
    k.drivers.push_back(name);
    k.driver_options[name] = f.options;
    if (f.query) queries[name] = f.query;
  }
  // The queries are copied: the keys may outlive the registry.
  k.driver_capabilities = [queries](const Config& c) -> std::optional<Capabilities> {
    const auto it = queries.find(c.driver);
    if (it == queries.end()) return std::nullopt;
    return it->second(c);
  };
  for (const auto& [name, f] : r.bootstraps()) {
    k.bootstraps.push_back(name);
    if (f.survives_rank_loss)
      k.bootstraps_surviving_rank_loss.push_back(name);
    else
      k.bootstrap_loss_notes[name] = f.loss_note;
  }
  protocols.describe(k);
  return k;
}

}  // namespace evb
