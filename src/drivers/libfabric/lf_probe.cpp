#include "drivers/libfabric/lf_probe.hpp"

#include <rdma/fabric.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "drivers/libfabric/lf_check.hpp"
#include "drivers/libfabric/lf_fabric.hpp"

namespace evb::libfabric {

namespace {

// The providers libfabric has loaded (whether or not they found a device).
std::set<std::string> loaded_providers() {
  std::set<std::string> names;
  fi_info* list = nullptr;
  if (fi_getinfo(kApiVersion, nullptr, nullptr, FI_PROV_ATTR_ONLY, nullptr, &list) == 0) {
    for (fi_info* i = list; i; i = i->next) {
      if (i->fabric_attr && i->fabric_attr->prov_name) names.insert(i->fabric_attr->prov_name);
    }
  }
  if (list) fi_freeinfo(list);
  return names;
}

// Providers that registered parameters (FI_<NAME>_*): compiled in, even when
// they found no device and did not register themselves.
std::set<std::string> compiled_providers() {
  std::set<std::string> names;
  fi_param* params = nullptr;
  int count = 0;
  if (fi_getparams(&params, &count) == 0) {
    for (int i = 0; i < count; ++i) {
      const std::string n = params[i].name ? params[i].name : "";
      if (n.rfind("FI_", 0) != 0) continue;
      const size_t end = n.find('_', 3);
      if (end == std::string::npos) continue;
      std::string prov = n.substr(3, end - 3);
      for (char& ch : prov) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      names.insert(prov);
    }
    fi_freeparams(params);
  }
  return names;
}

// Why a provider has nothing to offer, in hardware terms.
std::string missing_hardware(const std::string& name) {
  if (name == "verbs") return "no RDMA device";
  if (name == "psm2") return "no Omni-Path HFI";
  if (name == "psm3") return "no usable NIC";
  if (name == "efa") return "no EFA device";
  if (name == "cxi") return "no Slingshot NIC";
  return "no usable interface";
}

}  // namespace

const std::vector<std::string>& known_providers() {
  static const std::vector<std::string> names = {"tcp",  "shm",  "sockets", "udp", "verbs",
                                                 "psm2", "psm3", "efa",     "cxi"};
  return names;
}

std::vector<ProviderCheck> check_providers() {
  const std::set<std::string> loaded = loaded_providers();
  const std::set<std::string> compiled = compiled_providers();
  std::vector<ProviderCheck> out;
  for (const std::string& name : known_providers()) {
    ProviderCheck c;
    c.name = name;
    InfoRequest r;
    r.provider = canonical_provider(name);
    r.want_source = false;
    std::string why;
    InfoPtr info = select_info(r, &why);
    if (info) {
      c.usable = true;
      c.resolved = info->fabric_attr->prov_name;
    } else if (loaded.contains(name)) {
      c.reason = missing_hardware(name) + ", " + why;
    } else if (compiled.contains(name)) {
      c.reason = missing_hardware(name) + ", provider not initialised";
    } else {
      c.reason = "not in this libfabric build, or no device";
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string library_version() {
  const uint32_t v = fi_version();
  std::string s = "libfabric " + std::to_string(FI_MAJOR(v)) + "." + std::to_string(FI_MINOR(v));
  if (FI_MAJOR(v) == FI_MAJOR_VERSION && FI_MINOR(v) == FI_MINOR_VERSION)
    s += "." + std::to_string(FI_REVISION_VERSION);
  return s;
}

DriverProbe probe_libfabric() {
  DriverProbe probe;
  probe.library_version = library_version();
  std::string usable;
  std::string missing;
  std::string refused;
  for (const ProviderCheck& c : check_providers()) {
    // Usable at the driver level (the conformance suite runs over it), but
    // refused for runs: said in the details, as validate says it.
    if (c.usable && !refused_provider(canonical_provider(c.name)).empty())
      refused += (refused.empty() ? "" : " ") + c.resolved;
    if (c.usable) {
      usable += (usable.empty() ? "" : " ") + c.resolved;
      const std::string variant = "libfabric/" + c.resolved;  // as results.driver names it
      if (std::find(probe.variants_usable.begin(), probe.variants_usable.end(), variant) ==
          probe.variants_usable.end())
        probe.variants_usable.push_back(variant);
    } else {
      missing += (missing.empty() ? "" : ", ") + c.name + " (" + c.reason + ")";
      probe.variants_not_here.emplace_back("libfabric/" + c.name, c.reason);
    }
  }
  probe.can_run = !usable.empty();
  if (!probe.can_run) probe.reason = "no libfabric provider can open an RDM endpoint here";
  probe.details = "usable: " + (usable.empty() ? std::string("none") : usable);
  if (!missing.empty()) probe.details += "; not here: " + missing;
  if (!refused.empty())
    probe.details += "; refused for runs (evbench validate says why): " + refused;
  return probe;
}

}  // namespace evb::libfabric
