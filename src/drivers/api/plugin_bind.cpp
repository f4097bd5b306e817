// bind_driver / bind_bootstrap: a linked-in entry fills the functions of the
// factory its description registered (plugin_entry.hpp).
#include "core/error.hpp"
#include "drivers/api/plugin_entry.hpp"

namespace evb {

void bind_driver(PluginRegistry& registry, const std::string& name, const DriverEntry& entry) {
  DriverFactory* f = registry.driver_to_bind(name);
  if (f == nullptr) throw Error("plug-in: no driver '" + name + "' registered to bind");
  if (entry.probe) f->probe = entry.probe;
  f->create = entry.create;
  if (entry.check_options) f->check_options = entry.check_options;
}

void bind_bootstrap(PluginRegistry& registry, const std::string& name,
                    const BootstrapEntry& entry) {
  BootstrapFactory* f = registry.bootstrap_to_bind(name);
  if (f == nullptr) throw Error("plug-in: no bootstrap '" + name + "' registered to bind");
  f->launch = entry.launch;
}

}  // namespace evb
