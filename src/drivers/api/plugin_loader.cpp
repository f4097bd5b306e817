// bind_driver_module / bind_bootstrap_module: a plug-in's library half in a
// loadable module, opened on first use (plugin_entry.hpp).
//
// Modules are looked for in $EVBENCH_PLUGIN_DIR when set, else next to the
// running executable: <exe dir>/EVBENCH_PLUGIN_RELDIR (the installed layout,
// bin/ -> lib/evbench, computed by CMake from GNUInstallDirs) and
// <exe dir>/../lib/evbench (the build tree). Nothing absolute is compiled
// in, so an installed tree still finds its modules after it is moved.
// A module is never closed: the drivers it creates, their vtables and the
// library they use live in it until the process ends.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <system_error>

#include "core/error.hpp"
#include "drivers/api/plugin_entry.hpp"

#ifndef EVBENCH_PLUGIN_RELDIR
#define EVBENCH_PLUGIN_RELDIR "../lib/evbench"
#endif

namespace evb {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> module_dirs() {
  if (const char* env = std::getenv("EVBENCH_PLUGIN_DIR"); env != nullptr && *env != '\0')
    return {env};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  std::vector<std::string> dirs;
  for (const char* rel : {EVBENCH_PLUGIN_RELDIR, "../lib/evbench"}) {
    const std::string d = (exe.parent_path() / rel).lexically_normal().string();
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  }
  return dirs;
}

// One module file, opened the first time one of its entries is asked for.
// Owned (shared) by the functions bound into the registry's factories.
class LazyModule {
 public:
  explicit LazyModule(std::string file) : file_(std::move(file)) {}

  // The address of `symbol`, or nullptr with error() saying why.
  void* find(const std::string& symbol) {
    if (handle_ == nullptr && !open()) return nullptr;
    dlerror();
    void* address = dlsym(handle_, symbol.c_str());
    if (address == nullptr) error_ = path_ + " has no " + symbol + " (not an evbench module?)";
    return address;
  }
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }

 private:
  bool open() {
    const std::vector<std::string> dirs = module_dirs();
    std::string looked;
    for (const std::string& dir : dirs) {
      const std::string candidate = dir + "/" + file_;
      std::error_code ec;
      if (fs::exists(candidate, ec)) {
        path_ = candidate;
        break;
      }
      looked += (looked.empty() ? "" : ", ") + dir;
    }
    if (path_.empty()) {
      error_ = "module " + file_ + " not found (looked in " +
               (looked.empty() ? std::string("no directory") : looked) +
               "; EVBENCH_PLUGIN_DIR overrides; scripts/build.sh builds the default "
               "driver's module only, scripts/build.sh --install every driver's)";
      return false;
    }
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      const char* why = dlerror();
      error_ = "cannot load " + path_ + ": " + (why ? why : "unknown dlopen error");
      return false;
    }
    return true;
  }

  std::string file_;
  std::string path_;
  void* handle_ = nullptr;
  std::string error_;
};

// The entry a module's `symbol` returns, or nullptr with `why` set.
template <class Entry>
const Entry* load_entry(LazyModule& module, const std::string& symbol, std::string& why) {
  void* address = module.find(symbol);
  if (address == nullptr) {
    why = module.error();
    return nullptr;
  }
  using EntryFn = const Entry* (*)();
  const Entry* entry = reinterpret_cast<EntryFn>(address)();
  if (entry == nullptr || !(entry->abi == PluginAbi{})) {
    why = module.path() +
          " was built by another evbench build (plug-in ABI differs); "
          "rebuild or reinstall evbench and its modules together";
    return nullptr;
  }
  return entry;
}

}  // namespace

void bind_driver_module(PluginRegistry& registry, const std::string& name,
                        const std::string& module_file, const std::string& symbol) {
  DriverFactory* f = registry.driver_to_bind(name);
  if (f == nullptr) throw Error("plug-in: no driver '" + name + "' registered to bind");
  auto module = std::make_shared<LazyModule>(module_file);
  f->probe = [module, symbol]() {
    std::string why;
    const DriverEntry* e = load_entry<DriverEntry>(*module, symbol, why);
    if (e == nullptr) {
      DriverProbe p;
      p.reason = why;
      return p;
    }
    return e->probe ? e->probe() : DriverProbe{.can_run = true};
  };
  f->create = [module, symbol, name](const DriverContext& context) {
    std::string why;
    const DriverEntry* e = load_entry<DriverEntry>(*module, symbol, why);
    if (e == nullptr) throw ConfigError("driver '" + name + "' cannot run here: " + why);
    return e->create(context);
  };
  // A module that cannot be opened has no say on option values: the probe
  // (run before any rank starts) reports why it cannot run.
  f->check_options = [module, symbol](const Config& config, OptionCheck scope) {
    std::string why;
    const DriverEntry* e = load_entry<DriverEntry>(*module, symbol, why);
    if (e == nullptr || e->check_options == nullptr) return std::vector<std::string>{};
    return e->check_options(config, scope);
  };
}

void bind_bootstrap_module(PluginRegistry& registry, const std::string& name,
                           const std::string& module_file, const std::string& symbol) {
  BootstrapFactory* f = registry.bootstrap_to_bind(name);
  if (f == nullptr) throw Error("plug-in: no bootstrap '" + name + "' registered to bind");
  auto module = std::make_shared<LazyModule>(module_file);
  f->launch = [module, symbol, name](const Config& config, int nprocs, const WorkerFn& worker) {
    std::string why;
    const BootstrapEntry* e = load_entry<BootstrapEntry>(*module, symbol, why);
    if (e == nullptr) throw ConfigError("bootstrap '" + name + "' cannot run here: " + why);
    return e->launch(config, nprocs, worker);
  };
}

}  // namespace evb
