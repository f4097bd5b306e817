#include "drivers/verbs/verbs_probe.hpp"

#include <infiniband/verbs.h>

namespace evb::verbs {

namespace {

// Owns what ibv_get_device_list returns.
class DeviceList {
 public:
  DeviceList() : list_(ibv_get_device_list(&count_)) {
    if (!list_) count_ = 0;
  }
  ~DeviceList() {
    if (list_) ibv_free_device_list(list_);
  }
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;
  int size() const { return count_; }
  ibv_device* operator[](int i) const { return list_[i]; }

 private:
  int count_ = 0;
  ibv_device** list_;
};

}  // namespace

std::vector<PortInfo> ports() {
  std::vector<PortInfo> out;
  DeviceList devices;
  for (int d = 0; d < devices.size(); ++d) {
    const char* name = ibv_get_device_name(devices[d]);
    ibv_context* ctx = ibv_open_device(devices[d]);
    if (!ctx) {
      out.push_back(PortInfo{name ? name : "?", 0, false, false});
      continue;
    }
    ibv_device_attr attr{};
    if (ibv_query_device(ctx, &attr) == 0) {
      for (int p = 1; p <= attr.phys_port_cnt; ++p) {
        ibv_port_attr pa{};
        if (ibv_query_port(ctx, static_cast<uint8_t>(p), &pa) != 0) continue;
        out.push_back(PortInfo{name ? name : "?", p, pa.state == IBV_PORT_ACTIVE,
                               pa.link_layer == IBV_LINK_LAYER_ETHERNET});
      }
    }
    ibv_close_device(ctx);
  }
  return out;
}

DriverProbe probe_verbs() {
  DriverProbe probe;
  probe.library_version = "libibverbs " EVBENCH_IBVERBS_VERSION;
  const std::vector<PortInfo> found = ports();
  std::string list;
  for (const PortInfo& p : found) {
    list += (list.empty() ? "" : ", ") + p.device;
    if (p.port > 0)
      list += ":" + std::to_string(p.port) + (p.ethernet ? " Ethernet" : " InfiniBand") +
              (p.active ? " ACTIVE" : " down");
    else
      list += " (cannot be opened)";
    probe.can_run = probe.can_run || p.active;
  }
  if (found.empty()) {
    probe.reason = "built; no RDMA device found";
  } else {
    probe.details = "devices: " + list;
    if (!probe.can_run) probe.reason = "built; no RDMA port is active (" + list + ")";
  }
  return probe;
}

}  // namespace evb::verbs
