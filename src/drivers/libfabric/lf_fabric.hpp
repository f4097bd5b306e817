#pragma once
// RAII for libfabric objects, provider naming, and the choice of one fi_info.
//
// Fid<T> owns one fid (fabric, domain, av, cq, ep, mr) and fi_close()s it
// exactly once; FabricSet opens the objects one rank needs in dependency order
// (fabric, domain, cq, av, ep) and closes them in reverse, so a failure
// half-way through setup leaks nothing.
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace evb::libfabric {

// The libfabric API version the driver is written against (works with 1.9+).
constexpr uint32_t kApiVersion = FI_VERSION(1, 9);

// Capabilities every endpoint of the driver needs.
constexpr uint64_t kRequiredCaps =
    FI_TAGGED | FI_MSG | FI_RMA | FI_SEND | FI_RECV | FI_WRITE | FI_REMOTE_WRITE;
// Modes the driver honours: op contexts are fi_context2 at the start of each
// operation, iovec arrays live until completion, and it can keep receives
// posted for remote CQ data.
constexpr uint64_t kSupportedModes = FI_CONTEXT | FI_CONTEXT2 | FI_ASYNC_IOV | FI_RX_CQ_DATA;
// Memory-registration modes the driver honours.
constexpr int kSupportedMrModes =
    FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT | FI_MR_RAW;

// "No data available (-61)": fi_strerror of a negative libfabric return code.
std::string fi_error(int rc);
// True for error codes (positive) that mean the peer, or the path to it, is
// gone rather than that the operation itself was wrong.
bool is_peer_error(int err);

// Owns one libfabric object; T is fid_fabric, fid_domain, fid_av, fid_cq,
// fid_ep or fid_mr. Move-only; closing never throws.
template <class T>
class Fid {
 public:
  Fid() = default;
  explicit Fid(T* p) : p_(p) {}
  ~Fid() { reset(); }
  Fid(Fid&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Fid& operator=(Fid&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  Fid(const Fid&) = delete;
  Fid& operator=(const Fid&) = delete;

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }
  // For fi_xxx_open(..., &out): closes the current object first.
  T** out() {
    reset();
    return &p_;
  }
  // Closes the object (if any); returns fi_close's code.
  int reset() noexcept {
    int rc = 0;
    if (p_) rc = fi_close(&p_->fid);
    p_ = nullptr;
    return rc;
  }

 private:
  T* p_ = nullptr;
};

struct InfoDeleter {
  void operator()(fi_info* info) const noexcept { fi_freeinfo(info); }
};
using InfoPtr = std::unique_ptr<fi_info, InfoDeleter>;

// The short provider names users write, mapped to what fi_info reports:
// "tcp" -> "tcp;ofi_rxm", "udp" -> "udp;ofi_rxd", "verbs" -> "verbs;ofi_rxm";
// full names and others ("shm", "psm2", "cxi", "auto") pass through.
std::string canonical_provider(const std::string& name);
// True for providers addressed by IP (tcp, sockets, udp, net and their
// utility layerings): those get a source address to stay on loopback.
bool is_ip_provider(const std::string& prov_name);
// True for providers over which a run survives losing a peer (on_failure:
// exclude): the ofi_rxm layerings (tcp;ofi_rxm measured; verbs;ofi_rxm
// shares the layer that answers FI_EAGAIN for a dead peer). Others are
// refused: shm and sockets failed the fault runs, udp;ofi_rxd stalls on
// fragment-sized messages anyway (docs/drivers/libfabric.md, "What it
// survives"); the rest is unmeasured.
bool survives_peer_loss(const std::string& prov_name);

// The provider's data_path preference (Capabilities::write_preferred):
// writes, where measured faster than sends (bench/data_path.sh, 4 nodes:
// shm 1.83 and tcp;ofi_rxm 1.43-1.50 times send; docs/drivers/libfabric.md)
// and for the RDMA providers (verbs, psm2/3, cxi, efa: the NIC's one-sided
// path, not measured here); sends over sockets, udp and net, whose RMA is
// carried as messages over the same socket (sockets and udp are refused for
// event building anyway: docs/drivers/libfabric.md).
bool writes_beat_sends(const std::string& prov_name);

// Capabilities::shared_memory_path: the provider moves data between
// processes of one host by memory copies (shm, sm2), never over a network.
bool moves_by_memory_copy(const std::string& prov_name);

// Capabilities::read_rendezvous_above: over ofi_rxm, unless
// FI_OFI_RXM_USE_RNDV_WRITE is set, messages above its eager and SAR limits
// move by a read rendezvous (the receiver reads from the sender's buffer);
// the bound follows FI_OFI_RXM_SAR_LIMIT / _EAGER_LIMIT / _BUFFER_SIZE as
// this process sets them (128 KiB unset). 0 for the other providers.
uint64_t read_rendezvous_above(const std::string& prov_name);

// What to ask fi_getinfo for.
struct InfoRequest {
  std::string provider = "auto";  // canonical name or "auto"
  std::string domain;             // domain_attr->name, "" = any
  std::string node;               // source address (FI_SOURCE), "" = provider's choice
  size_t tx_size = 0;             // 0 = provider default
  size_t rx_size = 0;
  bool manual_progress = true;
  bool want_source = true;  // ask for the FI_SOURCE capability first
  // With FI_SOURCE, also ask for FI_DIRECTED_RECV (receives matched on the
  // source address): the exact-tag matching shm needs (lf_driver.hpp).
  bool directed_recv = false;
};

// Runs fi_getinfo with the driver's hints; when nothing matches, retries
// without the optional wishes (FI_SOURCE, then FI_ORDER_SAS). Returns the
// first match, or null with fi_getinfo's reason in *why.
InfoPtr select_info(const InfoRequest& request, std::string* why);

// The objects of one rank, opened from `info` in dependency order. Throws
// evb::Error prefixed with `context` when any step fails.
class FabricSet {
 public:
  FabricSet(InfoPtr info, const std::string& context);
  ~FabricSet();
  FabricSet(const FabricSet&) = delete;
  FabricSet& operator=(const FabricSet&) = delete;

  const fi_info& info() const { return *info_; }
  fid_fabric* fabric() const { return fabric_.get(); }
  fid_domain* domain() const { return domain_.get(); }
  fid_ep* ep() const { return ep_.get(); }
  fid_av* av() const { return av_.get(); }
  fid_cq* cq() const { return cq_.get(); }
  bool open() const { return static_cast<bool>(ep_); }
  // The CQ's wait object (FI_WAIT_FD, or FI_WAIT_NONE when the provider has
  // no fd to sleep on) and its file descriptor (fi_control FI_GETWAIT) or -1.
  fi_wait_obj wait_obj() const { return wait_obj_; }
  int wait_fd() const { return wait_fd_; }
  bool table_av() const { return table_av_; }

  // Closes the endpoint, address vector and CQ (shutdown); the domain and
  // fabric stay open until destruction so registrations can still be closed.
  void close_endpoint() noexcept;

 private:
  InfoPtr info_;
  Fid<fid_fabric> fabric_;
  Fid<fid_domain> domain_;
  Fid<fid_cq> cq_;
  Fid<fid_av> av_;
  Fid<fid_ep> ep_;
  fi_wait_obj wait_obj_ = FI_WAIT_NONE;
  int wait_fd_ = -1;
  bool table_av_ = true;
};

}  // namespace evb::libfabric
