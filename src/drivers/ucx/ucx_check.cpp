// UCX_TLS and UCX_NET_DEVICES values are judged the way UCX does: a name is a
// transport ("tcp", "posix", "rc_mlx5") or an alias UCX expands ("sm", "rc");
// it is usable here when UCX finds a device for it (ucx_probe.cpp's resource
// list, "tl/device"). An asked transport UCX does not have refuses to start
// in every rank ("transport 'x' is not available"); here it is refused once,
// before the ranks start, and a name UCX knows but finds no device for says
// so instead of calling it unknown.
#include "drivers/ucx/ucx_check.hpp"

#include <map>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "drivers/ucx/ucx_options.hpp"
#include "drivers/ucx/ucx_probe.hpp"

namespace evb::ucx {
namespace {

// UCX's aliases (ucp_context.c, ucp_tl_aliases) and the transports they
// expand to; names not listed stand for themselves.
const std::map<std::string, std::vector<std::string>>& aliases() {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"mm", {"posix", "sysv", "xpmem"}},
      {"sm", {"posix", "sysv", "xpmem", "knem", "cma"}},
      {"shm", {"posix", "sysv", "xpmem", "knem", "cma"}},
      {"ib", {"rc_verbs", "ud_verbs", "rc_mlx5", "ud_mlx5", "dc_mlx5"}},
      {"ud_v", {"ud_verbs"}},
      {"ud_x", {"ud_mlx5"}},
      {"ud", {"ud_mlx5", "ud_verbs"}},
      {"rc_v", {"rc_verbs"}},
      {"rc_x", {"rc_mlx5"}},
      {"rc", {"rc_mlx5", "rc_verbs"}},
      {"dc", {"dc_mlx5"}},
      {"dc_x", {"dc_mlx5"}},
      {"ugni", {"ugni_smsg", "ugni_rdma"}},
      {"cuda", {"cuda_copy", "cuda_ipc", "gdr_copy"}},
      {"rocm", {"rocm_copy", "rocm_ipc", "rocm_gdr"}},
  };
  return table;
}

// Transports of UCX builds (uct components), found here or not.
const std::set<std::string>& transports() {
  static const std::set<std::string> names = {
      "self",     "tcp",       "posix",    "sysv",     "cma",       "knem",      "xpmem",
      "rc_verbs", "ud_verbs",  "rc_mlx5",  "ud_mlx5",  "dc_mlx5",   "cuda_copy", "cuda_ipc",
      "gdr_copy", "rocm_copy", "rocm_ipc", "rocm_gdr", "ugni_smsg", "ugni_rdma", "ugni_udt"};
  return names;
}

// Transports within the host (no network device).
const std::set<std::string>& local_transports() {
  static const std::set<std::string> names = {"self",     "posix",     "sysv",      "cma",
                                              "knem",     "xpmem",     "cuda_copy", "cuda_ipc",
                                              "gdr_copy", "rocm_copy", "rocm_ipc",  "rocm_gdr"};
  return names;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

std::string join(const std::set<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out.empty() ? "none" : out;
}

}  // namespace

std::vector<std::string> check_ucx_options(const Config& config,
                                           const std::vector<std::string>& resources,
                                           OptionCheck scope) {
  UcxOptions o;  // as the driver will read them
  try {
    o = parse_ucx_options(&config);
  } catch (const ConfigError& e) {
    return {e.what()};
  }
  std::set<std::string> found_tls, found_devices;
  for (const std::string& r : resources) {
    const auto slash = r.find('/');
    if (slash == std::string::npos) continue;
    const std::string tl = r.substr(0, slash);
    found_tls.insert(tl);
    // UCX_NET_DEVICES names network devices, not the "memory" of the
    // shared-memory and self transports.
    if (!local_transports().count(tl)) found_devices.insert(r.substr(slash + 1));
  }
  // What UCX_TLS accepts here: the transports found and the aliases that
  // reach one of them (the list UCX's own warning gives).
  std::set<std::string> usable = found_tls;
  for (const auto& [alias, members] : aliases())
    for (const auto& m : members)
      if (found_tls.count(m)) usable.insert(alias);
  std::vector<std::string> out;

  const std::string& tls = o.tls;
  if (tls != "auto" && tls != "all") {
    const bool exclude = !tls.empty() && tls[0] == '^';
    for (std::string name : split(exclude ? tls.substr(1) : tls)) {
      name = name.substr(0, name.find(':'));  // "ud_verbs:aux"
      if (name == "all" || usable.count(name)) continue;
      if (aliases().count(name) || transports().count(name)) {
        // Excluding what is not here is harmless; asking for it is judged
        // where the run starts.
        if (exclude || scope == OptionCheck::names) continue;
        out.push_back("driver_options.tls: '" + name +
                      "' is a UCX transport this host has no device for (usable here: " +
                      join(usable) + "; ucx_info -d lists the devices)");
      } else {
        out.push_back("driver_options.tls: '" + name +
                      "' is not a UCX transport (usable here: " + join(usable) + ")");
      }
    }
  }

  const std::string& devices = o.devices;
  if (scope == OptionCheck::here && devices != "auto" && devices != "any" && devices != "all") {
    for (const std::string& name : split(devices))
      if (!found_devices.count(name))
        out.push_back("driver_options.devices: '" + name +
                      "' is not a device UCX finds here (devices: " + join(found_devices) + ")");
  }
  return out;
}

std::vector<std::string> check_ucx_options(const Config& config, OptionCheck scope) {
  try {
    const UcxOptions o = parse_ucx_options(&config);
    if (o.tls == "auto" && o.devices == "auto") return {};  // nothing named to look up
  } catch (const ConfigError& e) {
    return {e.what()};
  }
  return check_ucx_options(config, resources(), scope);
}

}  // namespace evb::ucx
