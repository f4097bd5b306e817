// libFuzzer target: the configuration loader (YAML text -> validated Config),
// against the plug-ins really built into this evbench (the same PluginKeys
// the CLI uses).
//
// Asserts: every refusal is an evb::ConfigError (no yaml-cpp exception, no
// std::out_of_range, no crash gets out); an accepted configuration printed
// back as YAML (to_yaml, every key) loads again and prints the same, so the
// loader and the emitter agree on every value they let through.
#include <cstddef>
#include <cstdint>
#include <string>

#include "apps/evbench/cli.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "drivers/api/registry.hpp"
#include "fuzz_assert.hpp"

namespace {

const evb::PluginKeys& plugins() {
  static const evb::PluginKeys keys = [] {
    evb::PluginRegistry registry;
    evb::register_builtin_plugins(registry);
    evb::ProtocolRegistry protocols;
    evb::register_builtin_protocols(protocols);
    return evb::plugin_keys(registry, protocols);
  }();
  return keys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string yaml;
  try {
    yaml = evb::to_yaml(evb::load_config_text(text, "fuzz.yaml", {}, plugins()));
  } catch (const evb::ConfigError&) {
    return 0;  // refused with the project's error, naming file:line and key
  }
  std::string again;
  try {
    again = evb::to_yaml(evb::load_config_text(yaml, "fuzz-emitted.yaml", {}, plugins()));
  } catch (const evb::ConfigError& e) {
    std::fprintf(stderr, "emitted YAML refused: %s\n%s\n", e.what(), yaml.c_str());
    FUZZ_ASSERT(false, "an accepted configuration, printed back, loads again");
  }
  FUZZ_ASSERT(again == yaml, "printing, loading and printing again changes nothing");
  return 0;
}
