#pragma once
// One UCP context and its worker, configured from the driver's options: the
// part of the ucx driver that owns library objects but knows nothing of
// ranks. Created once per rank; destroyed after every endpoint, memory map
// and remote key of the driver.
#include <ucp/api/ucp.h>

#include <string>

#include "drivers/ucx/ucx_options.hpp"

namespace evb::ucx {

// "Connection reset by remote peer (-25)".
std::string status_text(ucs_status_t status);

class UcxWorker {
 public:
  // `all_local`: every rank is on this host (devices: auto keeps traffic on
  // lo). `prefix` starts every error message. Throws evb::Error naming the
  // option when UCX refuses a setting, ConfigError for a malformed one.
  UcxWorker(const UcxOptions& options, bool all_local, const std::string& prefix);
  ~UcxWorker();
  UcxWorker(const UcxWorker&) = delete;
  UcxWorker& operator=(const UcxWorker&) = delete;

  ucp_context_h context() const { return context_; }
  ucp_worker_h worker() const { return worker_; }
  // The worker address bytes peers create their endpoints from.
  const std::string& address() const { return address_; }
  // The worker's event file descriptor (UCP_FEATURE_WAKEUP), or -1.
  int event_fd() const { return event_fd_; }
  // What UCX was told: "TLS=sm NET_DEVICES=lo ..." (for error messages).
  const std::string& settings() const { return settings_; }

 private:
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  std::string address_;
  std::string settings_;
  int event_fd_ = -1;
};

}  // namespace evb::ucx
