#include "drivers/libfabric/lf_fabric.hpp"

#include <rdma/fi_errno.h>
#include <strings.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

namespace evb::libfabric {

std::string fi_error(int rc) {
  const int code = rc < 0 ? -rc : rc;
  return std::string(fi_strerror(code)) + " (-" + std::to_string(code) + ")";
}

bool is_peer_error(int err) {
  switch (err) {
    case ECONNREFUSED:
    case ECONNRESET:
    case ECONNABORTED:
    case EHOSTUNREACH:
    case EHOSTDOWN:
    case ENETUNREACH:
    case ENETDOWN:
    case ENETRESET:
    case ENOTCONN:
    case ESHUTDOWN:
    case ETIMEDOUT:
    case EPIPE:
    case EIO:
    case EADDRNOTAVAIL:
      return true;
    default:
      return false;
  }
}

std::string canonical_provider(const std::string& name) {
  if (name == "tcp") return "tcp;ofi_rxm";
  if (name == "udp") return "udp;ofi_rxd";
  if (name == "verbs") return "verbs;ofi_rxm";
  if (name == "net") return "net";
  return name;
}

bool survives_peer_loss(const std::string& prov_name) {
  const auto semi = prov_name.find(';');
  return semi != std::string::npos && prov_name.substr(semi + 1) == "ofi_rxm";
}

bool writes_beat_sends(const std::string& prov_name) {
  const std::string core = prov_name.substr(0, prov_name.find(';'));
  return core != "sockets" && core != "udp" && core != "net";
}

bool moves_by_memory_copy(const std::string& prov_name) {
  const std::string core = prov_name.substr(0, prov_name.find(';'));
  return core == "shm" || core == "sm2";
}

namespace {

// The value this process gives libfabric's parameter `name` (FI_...), as
// fi_getparams lists it; "" when unset or not a parameter of this library.
std::string fabric_param(const char* name) {
  std::string value;
  fi_param* params = nullptr;
  int count = 0;
  if (fi_getparams(&params, &count) != 0) return value;
  for (int i = 0; i < count; ++i)
    if (params[i].name && std::strcmp(params[i].name, name) == 0 && params[i].value)
      value = params[i].value;
  fi_freeparams(params);
  return value;
}

// libfabric's reading of a boolean parameter: 1/on/true/yes.
bool param_is_true(const std::string& v) {
  for (const char* yes : {"1", "on", "true", "yes"})
    if (strcasecmp(v.c_str(), yes) == 0) return true;
  return false;
}

}  // namespace

uint64_t read_rendezvous_above(const std::string& prov_name) {
  const auto semi = prov_name.find(';');
  if (semi == std::string::npos || prov_name.substr(semi + 1) != "ofi_rxm") return 0;
  if (param_is_true(fabric_param("FI_OFI_RXM_USE_RNDV_WRITE"))) return 0;
  // ofi_rxm sends eagerly up to its eager limit (at least the bounce
  // buffer's size, 16 KiB unset), by segments up to the SAR limit (at most
  // 8 times the eager limit unless set) and by rendezvous above; the
  // largest bound those settings allow.
  const auto size_param = [](const char* name) {
    const std::string v = fabric_param(name);
    return v.empty() ? uint64_t{0} : uint64_t{std::strtoull(v.c_str(), nullptr, 0)};
  };
  const uint64_t eager = std::max<uint64_t>(
      {16384, size_param("FI_OFI_RXM_BUFFER_SIZE"), size_param("FI_OFI_RXM_EAGER_LIMIT")});
  const uint64_t segmented = eager > UINT64_MAX / 8 ? UINT64_MAX : 8 * eager;
  return std::max(segmented, size_param("FI_OFI_RXM_SAR_LIMIT"));
}

bool is_ip_provider(const std::string& prov_name) {
  const std::string core = prov_name.substr(0, prov_name.find(';'));
  return core == "tcp" || core == "sockets" || core == "udp" || core == "net";
}

namespace {

char* dup(const std::string& s) {
  return s.empty() ? nullptr : ::strdup(s.c_str());
}

// Hints for one attempt; `source` adds FI_SOURCE (and FI_DIRECTED_RECV when
// the request wants it), `ordered` asks for send-after-send ordering,
// `progress` is the data progress asked for.
InfoPtr make_hints(const InfoRequest& r, bool source, bool ordered, fi_progress progress) {
  InfoPtr hints(fi_allocinfo());
  if (!hints) throw Error("libfabric: fi_allocinfo failed (out of memory)");
  hints->caps = kRequiredCaps;
  if (source) hints->caps |= FI_SOURCE | (r.directed_recv ? FI_DIRECTED_RECV : 0);
  hints->mode = kSupportedModes;
  hints->addr_format = FI_FORMAT_UNSPEC;
  hints->ep_attr->type = FI_EP_RDM;
  hints->domain_attr->mr_mode = kSupportedMrModes;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  hints->domain_attr->data_progress = progress;
  hints->domain_attr->control_progress = FI_PROGRESS_UNSPEC;
  hints->domain_attr->av_type = FI_AV_UNSPEC;
  hints->domain_attr->name = dup(r.domain);
  hints->tx_attr->msg_order = ordered ? FI_ORDER_SAS : FI_ORDER_NONE;
  hints->rx_attr->msg_order = ordered ? FI_ORDER_SAS : FI_ORDER_NONE;
  hints->tx_attr->size = r.tx_size;
  hints->rx_attr->size = r.rx_size;
  if (r.provider != "auto") hints->fabric_attr->prov_name = dup(r.provider);
  return hints;
}

}  // namespace

InfoPtr select_info(const InfoRequest& r, std::string* why) {
  struct Attempt {
    bool source;
    bool ordered;
    fi_progress progress;
  };
  // The driver drives progress itself, so a provider that only offers the
  // other mode still works: "manual" falls back to whatever it has.
  const fi_progress wanted = r.manual_progress ? FI_PROGRESS_MANUAL : FI_PROGRESS_AUTO;
  const fi_progress fallback = r.manual_progress ? FI_PROGRESS_UNSPEC : FI_PROGRESS_AUTO;
  const Attempt attempts[] = {{true, true, wanted},   {false, true, wanted},
                              {true, false, wanted},  {false, false, wanted},
                              {true, true, fallback}, {false, false, fallback}};
  int first_rc = 0;
  std::string domains;  // seen but not wanted, " a, b,"
  for (const Attempt& a : attempts) {
    if (a.source && !r.want_source) continue;
    if (a.progress == fallback && fallback == wanted) continue;
    InfoPtr hints = make_hints(r, a.source, a.ordered, a.progress);
    fi_info* out = nullptr;
    const char* node = r.node.empty() ? nullptr : r.node.c_str();
    const int rc = fi_getinfo(kApiVersion, node, nullptr, node ? FI_SOURCE : 0, hints.get(), &out);
    if (rc == 0 && out) {
      // fi_getinfo returns a list; keep the first entry of the wanted domain
      // (some providers, tcp;ofi_rxm among them, ignore the domain hint).
      const fi_info* pick = nullptr;
      for (const fi_info* i = out; i && !pick; i = i->next) {
        const char* name = i->domain_attr ? i->domain_attr->name : nullptr;
        if (r.domain.empty() || (name && r.domain == name)) {
          pick = i;
        } else if (name && domains.find(std::string(" ") + name + ",") == std::string::npos) {
          domains += std::string(" ") + name + ",";
        }
      }
      if (pick) {
        InfoPtr chosen(fi_dupinfo(pick));
        fi_freeinfo(out);
        if (!chosen) throw Error("libfabric: fi_dupinfo failed (out of memory)");
        return chosen;
      }
    }
    if (out) fi_freeinfo(out);
    if (first_rc == 0) first_rc = rc ? rc : -FI_ENODATA;
  }
  if (why) {
    if (first_rc == -FI_ENODATA && !domains.empty()) {
      domains.pop_back();  // the last ','
      *why = "no domain '" + r.domain + "' (there are:" + domains + ")";
    } else {
      *why = "fi_getinfo: " + fi_error(first_rc);
    }
  }
  return nullptr;
}

FabricSet::FabricSet(InfoPtr info, const std::string& context) : info_(std::move(info)) {
  auto check = [&](int rc, const char* what) {
    if (rc != 0) throw Error(context + ": " + what + " failed: " + fi_error(rc));
  };
  check(fi_fabric(info_->fabric_attr, fabric_.out(), nullptr), "fi_fabric");
  check(fi_domain(fabric_.get(), info_.get(), domain_.out(), nullptr), "fi_domain");

  // A CQ with a file descriptor to sleep on, if the provider offers one.
  // FI_WAIT_UNSPEC is not taken: on shm (1.17) it is a sched_yield() spin
  // inside fi_cq_sread that can miss its timeout.
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_TAGGED;
  cq_attr.size = 0;
  int rc = -FI_ENOSYS;
  for (fi_wait_obj w : {FI_WAIT_FD, FI_WAIT_NONE}) {
    cq_attr.wait_obj = w;
    rc = fi_cq_open(domain_.get(), &cq_attr, cq_.out(), nullptr);
    if (rc == 0) {
      wait_obj_ = w;
      break;
    }
  }
  check(rc, "fi_cq_open");
  if (wait_obj_ == FI_WAIT_FD && fi_control(&cq_->fid, FI_GETWAIT, &wait_fd_) != 0) {
    wait_fd_ = -1;
    wait_obj_ = FI_WAIT_NONE;  // no fd to poll: the driver cannot block
  }

  fi_av_attr av_attr{};
  table_av_ = info_->domain_attr->av_type != FI_AV_MAP;
  av_attr.type = table_av_ ? FI_AV_TABLE : FI_AV_MAP;
  rc = fi_av_open(domain_.get(), &av_attr, av_.out(), nullptr);
  if (rc != 0 && table_av_) {
    table_av_ = false;
    av_attr.type = FI_AV_MAP;
    rc = fi_av_open(domain_.get(), &av_attr, av_.out(), nullptr);
  }
  check(rc, "fi_av_open");

  check(fi_endpoint(domain_.get(), info_.get(), ep_.out(), nullptr), "fi_endpoint");
  check(fi_ep_bind(ep_.get(), &av_->fid, 0), "fi_ep_bind(av)");
  check(fi_ep_bind(ep_.get(), &cq_->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind(cq)");
  rc = fi_enable(ep_.get());
  if (rc == -FI_EBUSY && std::string(info_->fabric_attr->prov_name) == "shm") {
    // shm names its region after this process's PID. A region left by a
    // killed process whose PID this one now has (PIDs recycle) reads as in
    // use, since that PID is alive: 1.17 then removes it and reports EBUSY.
    // The second attempt creates the region afresh.
    rc = fi_enable(ep_.get());
  }
  check(rc, "fi_enable");
}

void FabricSet::close_endpoint() noexcept {
  ep_.reset();
  av_.reset();
  cq_.reset();
}

FabricSet::~FabricSet() {
  close_endpoint();
  domain_.reset();
  fabric_.reset();
}

}  // namespace evb::libfabric
