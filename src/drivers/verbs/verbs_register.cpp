// Describes the verbs driver to the plug-in registry: name, options, limits.
// Its library half (probe, create) is verbs_entry.cpp (plugin_entry.hpp).
#include "drivers/api/registry.hpp"
#include "drivers/verbs/verbs_options.hpp"

namespace evb {

void evb_register_driver_verbs(PluginRegistry& r) {
  DriverFactory f;
  f.name = "verbs";
  f.summary =
      "InfiniBand / RoCE verbs (libibverbs): reliable-connected queue pairs, credit-based "
      "commands, RDMA WRITE WITH IMMEDIATE into BU windows";
  f.options = verbs::verbs_option_specs();
  f.may_rdma_write = true;
  r.add_driver(std::move(f));
}

}  // namespace evb
