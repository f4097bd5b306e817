// The provider asked for is looked up with the driver's own hints
// (select_info, as the ranks will); when it matches nothing, FI_PROV_ATTR_ONLY
// (every provider this libfabric has loaded, device or not) and the
// parameters of compiled-in providers (FI_<NAME>_*) tell a provider that is
// here but finds no usable interface from a name this libfabric does not have.
#include "drivers/libfabric/lf_check.hpp"

#include <rdma/fabric.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "drivers/libfabric/lf_fabric.hpp"
#include "drivers/libfabric/lf_options.hpp"
#include "drivers/libfabric/lf_probe.hpp"

namespace evb::libfabric {
namespace {

// Core provider names libfabric has: loaded ones, and those whose parameters
// are registered (compiled in, maybe not initialised for lack of a device).
std::set<std::string> providers_in_this_libfabric() {
  std::set<std::string> names;
  fi_info* list = nullptr;
  if (fi_getinfo(kApiVersion, nullptr, nullptr, FI_PROV_ATTR_ONLY, nullptr, &list) == 0)
    for (fi_info* i = list; i; i = i->next)
      if (i->fabric_attr && i->fabric_attr->prov_name) {
        std::string n = i->fabric_attr->prov_name;
        names.insert(n.substr(0, n.find(';')));
      }
  if (list) fi_freeinfo(list);
  fi_param* params = nullptr;
  int count = 0;
  if (fi_getparams(&params, &count) == 0) {
    for (int i = 0; i < count; ++i) {
      const std::string n = params[i].name ? params[i].name : "";
      const size_t end = n.find('_', 3);
      if (n.rfind("FI_", 0) != 0 || end == std::string::npos) continue;
      std::string prov = n.substr(3, end - 3);
      for (char& ch : prov) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      names.insert(prov);
    }
    fi_freeparams(params);
  }
  return names;
}

// The providers a run may use here (usable, and not refused for runs), and
// why `name` is not usable (when the probe knows it by name: "no RDMA
// device, provider not initialised").
std::string usable_here(const std::string& name, std::string* why_not) {
  std::string out;
  for (const ProviderCheck& c : check_providers()) {
    if (c.usable && refused_provider(canonical_provider(c.name)).empty())
      out += (out.empty() ? "" : ", ") + c.name;
    if (!c.usable && c.name == name && why_not) *why_not = c.reason;
  }
  return out.empty() ? "none" : out;
}

// A name this libfabric does not have: the message, with the nearest
// provider evbench knows or this libfabric has ("verb": did you mean
// 'verbs'?, and that it cannot run here when the probe says so).
std::string not_a_provider(const std::string& provider) {
  std::vector<std::string> names = known_providers();
  for (const std::string& n : providers_in_this_libfabric())
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  std::string hint;
  if (const auto near = nearest(provider, names)) {
    std::string why_not;
    usable_here(*near, &why_not);
    hint = "did you mean '" + *near + "'?";
    if (!refused_provider(canonical_provider(*near)).empty())
      hint += " evbench refuses it for runs;";
    else if (!why_not.empty())
      hint += " it cannot run here: " + why_not + ";";
    hint += " ";
  }
  return "driver_options.provider: '" + provider + "' is not a provider of this libfabric (" +
         hint + "usable here: " + usable_here(provider, nullptr) +
         "; fi_info -l lists the providers)";
}

}  // namespace

// Providers this libfabric has that evbench's protocols do not run over,
// and why (docs/drivers/libfabric.md, "sockets and udp"); empty for the rest.
std::string refused_provider(const std::string& canonical) {
  const std::string core = canonical.substr(0, canonical.find(';'));
  if (core == "sockets")
    return "event building over it fails here (libfabric 1.17: with 4 ranks the ranks stop "
           "hearing rank 0 at the end of the run and give it up by keepalive, exit 1)";
  if (core == "udp")
    return "udp;ofi_rxd stops delivering after rx_size (1024) messages larger than one "
           "datagram (~1.2 KiB) (libfabric 1.17, test "
           "libfabricQuirks.Udp117MultiPacketMessagesStallAfterRxSize), and every run sends more";
  return {};
}

std::vector<std::string> check_libfabric_options(const Config& config, OptionCheck scope) {
  LfOptions o;  // as the driver will read them
  try {
    o = parse_lf_options(&config);
  } catch (const ConfigError& e) {
    return {e.what()};
  }
  const std::string& provider = o.provider;
  if (const std::string why = refused_provider(canonical_provider(provider)); !why.empty())
    return {"driver_options.provider: '" + provider + "' is refused: " + why +
            "; use tcp (tcp;ofi_rxm) or shm"};
  if (scope == OptionCheck::names) {
    if (provider == "auto") return {};
    const std::string name = canonical_provider(provider);
    if (providers_in_this_libfabric().count(name.substr(0, name.find(';')))) return {};
    return {not_a_provider(provider)};
  }
  const std::string& domain = o.domain;
  const bool any_domain = domain.empty();
  if (provider == "auto" && any_domain) return {};
  InfoRequest r;
  r.provider = provider == "auto" ? "auto" : canonical_provider(provider);
  r.domain = any_domain ? "" : domain;
  r.want_source = false;
  std::string why;
  if (select_info(r, &why)) return {};
  if (provider != "auto") {
    // The core provider of a layering ("verbs;ofi_rxm" -> verbs).
    const std::string core = r.provider.substr(0, r.provider.find(';'));
    std::string why_not = why;
    const std::string usable = usable_here(provider, &why_not);
    if (!providers_in_this_libfabric().count(core)) return {not_a_provider(provider)};
    InfoRequest plain = r;
    plain.domain.clear();
    if (any_domain || !select_info(plain, nullptr))
      return {"driver_options.provider: '" + provider +
              "' is in this libfabric but finds no usable interface here (" + why_not +
              "; usable here: " + usable + ")"};
  }
  const std::string offered_by = provider == "auto" ? "any provider" : "provider " + provider;
  return {"driver_options.domain: '" + domain + "' is not a domain " + offered_by +
          " offers here (" + why + "; fi_info lists the domains)"};
}

}  // namespace evb::libfabric
