#include "drivers/ucx/ucx_worker.hpp"

#include <memory>
#include <vector>

#include "core/error.hpp"

namespace evb::ucx {

std::string status_text(ucs_status_t status) {
  return std::string(ucs_status_string(status)) + " (" + std::to_string(static_cast<int>(status)) +
         ")";
}

namespace {

struct ConfigDeleter {
  void operator()(ucp_config_t* c) const { ucp_config_release(c); }
};

// One UCX setting the driver makes: the UCX name without its UCX_ prefix,
// the value, and the driver_options key it comes from ("" for the driver's
// own).
struct Setting {
  std::string name;
  std::string value;
  std::string key;
};

// Whether a UCX_TLS value can select posix or sysv: every transport, an
// exclusion list, or a list naming them (sm, shm, mm, posix, sysv).
bool may_use_shared_memory(const std::string& tls) {
  if (tls == "auto" || tls.empty() || tls[0] == '^') return true;
  for (const char* name : {"sm", "shm", "mm", "posix", "sysv", "all"}) {
    size_t pos = 0;
    const std::string n = name;
    while ((pos = tls.find(n, pos)) != std::string::npos) {
      const bool start = pos == 0 || tls[pos - 1] == ',';
      const size_t end = pos + n.size();
      if (start && (end == tls.size() || tls[end] == ',')) return true;
      pos = end;
    }
  }
  return false;
}

std::vector<Setting> settings_for(const UcxOptions& o, bool all_local) {
  std::vector<Setting> out;
  if (o.tls != "auto") out.push_back({"TLS", o.tls, "tls"});
  if (o.devices == "auto") {
    if (all_local) out.push_back({"NET_DEVICES", "lo", "devices"});
  } else if (o.devices != "any") {
    out.push_back({"NET_DEVICES", o.devices, "devices"});
  }
  // Peer failure handling (UCP_ERR_HANDLING_MODE_PEER) is what turns a dead
  // rank into completions; the shared-memory transports only take part in
  // it when asked to (and UCX warns about the setting when none is chosen).
  const bool peer = o.error_handling == ErrorHandling::peer;
  if (peer && may_use_shared_memory(o.tls)) out.push_back({"MM_ERROR_HANDLING", "y", ""});
  if (peer && o.keepalive_interval.count() > 0)
    out.push_back({"KEEPALIVE_INTERVAL", std::to_string(o.keepalive_interval.count()) + "ms",
                   "keepalive_interval"});
  return out;
}

}  // namespace

UcxWorker::UcxWorker(const UcxOptions& options, bool all_local, const std::string& prefix) {
  ucp_config_t* raw = nullptr;
  ucs_status_t st = ucp_config_read(nullptr, nullptr, &raw);
  if (st != UCS_OK) throw Error(prefix + ": ucp_config_read failed: " + status_text(st));
  std::unique_ptr<ucp_config_t, ConfigDeleter> config(raw);

  for (const Setting& set : settings_for(options, all_local)) {
    settings_ += (settings_.empty() ? "" : " ") + set.name + "=" + set.value;
    st = ucp_config_modify(config.get(), set.name.c_str(), set.value.c_str());
    if (st != UCS_OK) {
      const std::string who =
          set.key.empty() ? "the driver's setting" : "driver_options." + set.key;
      throw ConfigError(prefix + ": UCX refused " + set.name + "=" + set.value + " (from " + who +
                        "): " + status_text(st));
    }
  }

  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  params.features = UCP_FEATURE_TAG | UCP_FEATURE_RMA | UCP_FEATURE_WAKEUP;
  params.mt_workers_shared = 0;
  st = ucp_init(&params, config.get(), &context_);
  if (st != UCS_OK)
    throw Error(prefix + ": ucp_init failed (" + settings_ + "): " + status_text(st) +
                "; check driver_options.tls and driver_options.devices against what "
                "`evbench drivers` lists for ucx");

  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;
  st = ucp_worker_create(context_, &wp, &worker_);
  if (st != UCS_OK) {
    ucp_cleanup(context_);
    throw Error(prefix + ": ucp_worker_create failed (" + settings_ + "): " + status_text(st));
  }

  ucp_address_t* addr = nullptr;
  size_t len = 0;
  st = ucp_worker_get_address(worker_, &addr, &len);
  if (st != UCS_OK) {
    ucp_worker_destroy(worker_);
    ucp_cleanup(context_);
    throw Error(prefix + ": ucp_worker_get_address failed: " + status_text(st));
  }
  address_.assign(reinterpret_cast<const char*>(addr), len);
  ucp_worker_release_address(worker_, addr);

  int fd = -1;
  if (ucp_worker_get_efd(worker_, &fd) == UCS_OK) event_fd_ = fd;
}

UcxWorker::~UcxWorker() {
  if (worker_) ucp_worker_destroy(worker_);
  if (context_) ucp_cleanup(context_);
}

}  // namespace evb::ucx
