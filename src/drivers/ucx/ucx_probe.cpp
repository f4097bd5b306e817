#include "drivers/ucx/ucx_probe.hpp"

#include <stdio.h>
#include <ucp/api/ucp.h>

#include <cstdlib>
#include <exception>
#include <set>

#include "drivers/ucx/ucx_worker.hpp"

namespace evb::ucx {

std::string library_version() {
  unsigned major = 0, minor = 0, release = 0;
  ucp_get_version(&major, &minor, &release);
  return "ucx " + std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(release);
}

std::vector<std::string> resources(ucp_context_h context) {
  char* text = nullptr;
  size_t len = 0;
  std::vector<std::string> out;
  if (FILE* f = open_memstream(&text, &len)) {
    ucp_context_print_info(context, f);
    fclose(f);
    // "#      resource 2  :  md 1  dev 2  flags -- tcp/lo"
    const std::string all(text, len);
    free(text);
    size_t pos = 0;
    while ((pos = all.find("resource", pos)) != std::string::npos) {
      const size_t dashes = all.find("-- ", pos);
      const size_t end = all.find('\n', pos);
      if (dashes == std::string::npos || end == std::string::npos || dashes > end) break;
      out.push_back(all.substr(dashes + 3, end - dashes - 3));
      pos = end;
    }
  }
  return out;
}

std::vector<std::string> resources() {
  ucp_config_t* config = nullptr;
  if (ucp_config_read(nullptr, nullptr, &config) != UCS_OK) return {};
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_TAG | UCP_FEATURE_RMA;
  ucp_context_h context = nullptr;
  const ucs_status_t st = ucp_init(&params, config, &context);
  ucp_config_release(config);
  if (st != UCS_OK) return {};
  std::vector<std::string> out = resources(context);
  ucp_cleanup(context);
  return out;
}

namespace {

bool shared_memory_transport(const std::string& tl) {
  return tl == "posix" || tl == "sysv" || tl == "cma" || tl == "knem" || tl == "xpmem";
}

}  // namespace

bool puts_beat_sends(const std::vector<std::string>& found, bool all_local) {
  for (const std::string& r : found) {
    const std::string tl = r.substr(0, r.find('/'));
    const bool rdma = tl.rfind("rc", 0) == 0 || tl.rfind("dc", 0) == 0 || tl.rfind("ud", 0) == 0 ||
                      tl.rfind("gga", 0) == 0;
    if (rdma || (all_local && shared_memory_transport(tl))) return true;
  }
  return false;
}

bool shares_memory(const std::vector<std::string>& found, bool all_local) {
  if (!all_local) return false;
  for (const std::string& r : found)
    if (shared_memory_transport(r.substr(0, r.find('/')))) return true;
  return false;
}

bool tcp_alone(const std::vector<std::string>& found) {
  bool tcp = false;
  for (const std::string& r : found) {
    const std::string tl = r.substr(0, r.find('/'));
    if (tl == "self") continue;
    if (tl != "tcp") return false;
    tcp = true;
  }
  return tcp;
}

DriverProbe probe_ucx() {
  DriverProbe probe;
  probe.library_version = library_version();
  const std::vector<std::string> found = resources();
  std::string list;
  std::set<std::string> seen;
  for (const std::string& r : found) {
    if (r.rfind("self/", 0) == 0 || !seen.insert(r).second) continue;
    list += (list.empty() ? "" : " ") + r;
  }
  probe.can_run = !list.empty();
  if (!probe.can_run) probe.reason = "UCX finds no transport here (ucx_info -d lists them)";
  // The driver_options.tls values and what each needs (results.driver "ucx/<tls>").
  auto any_of = [&](std::initializer_list<const char*> prefixes) {
    for (const std::string& r : found)
      for (const char* p : prefixes)
        if (r.rfind(p, 0) == 0) return true;
    return false;
  };
  const struct {
    const char* tls;
    bool here;
    const char* reason;
  } variants[] = {
      {"tcp", any_of({"tcp/"}), "UCX finds no tcp interface"},
      {"sm", any_of({"posix/", "sysv/", "cma/"}), "UCX finds no shared-memory transport"},
      {"rc", any_of({"rc_verbs/", "rc_mlx5/"}), "no InfiniBand/RoCE device (rc transport)"},
      {"ud", any_of({"ud_verbs/", "ud_mlx5/"}), "no InfiniBand/RoCE device (ud transport)"},
      {"dc", any_of({"dc_mlx5/"}), "no Mellanox ConnectX device (dc transport)"},
  };
  for (const auto& v : variants) {
    if (v.here)
      probe.variants_usable.push_back(std::string("ucx/") + v.tls);
    else
      probe.variants_not_here.emplace_back(std::string("ucx/") + v.tls, v.reason);
  }
  probe.details = "transports: " + (list.empty() ? std::string("none") : list) +
                  "; tls=tcp and tls=sm (posix,sysv,cma) run here without RDMA hardware";
  return probe;
}

}  // namespace evb::ucx
