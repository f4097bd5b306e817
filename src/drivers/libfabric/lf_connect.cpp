// connect(): the peers' addresses into the AV, then a hello with every peer
// (same run, connections set up before the data path needs them), and when
// that times out, what the driver saw of each silent peer.
#include <rdma/fi_errno.h>

#include <algorithm>
#include <thread>

#include "core/error.hpp"
#include "drivers/common/hello_wait.hpp"
#include "drivers/libfabric/lf_driver.hpp"

namespace evb::libfabric {

void LfDriver::connect(const std::vector<std::string>& addresses,
                       const std::vector<PeerId>& peers) {
  if (connected_ || connecting_) throw Error(prefix() + ": connect() called twice");
  if (shut_down_) throw Error(prefix() + ": connect() after shutdown");
  book_.begin(prefix() + ": connect", addresses);
  connecting_ = true;

  std::vector<PeerId> targets;
  for (PeerId p : peers) {
    if (!valid_rank(p))
      throw Error(prefix() + ": connect: peer rank " + std::to_string(p) + " out of range");
    if (p != context_.rank && std::find(targets.begin(), targets.end(), p) == targets.end())
      targets.push_back(p);
  }
  for (PeerId r : targets) {  // (this rank is in the AV since construction)
    const std::string& a = addresses[r];
    if (a.empty()) throw Error(prefix() + ": connect: no address for rank " + std::to_string(r));
    fi_addr_t fa = FI_ADDR_NOTAVAIL;
    const int rc = fi_av_insert(fabric_->av(), a.data(), 1, &fa, 0, nullptr);
    if (rc != 1) {
      char text[128] = {};
      size_t tl = sizeof text;
      fi_av_straddr(fabric_->av(), a.data(), text, &tl);
      throw Error(prefix() + ": connect: fi_av_insert of rank " + std::to_string(r) + " (" + text +
                  ") failed: " + fi_error(rc < 0 ? rc : -FI_EINVAL));
    }
    peers_[r].addr = fa;
    by_addr_[fa] = r;
  }
  for (PeerId r : targets) book_.add(r);

  // A hello with every peer. This checks that every peer runs the same run
  // (same address list) and sets the connections up before the data path
  // needs them. The lower rank of a pair speaks first and the higher one
  // answers its hello: a connection-based provider (tcp;ofi_rxm, verbs;ofi_rxm)
  // then opens each pair's connection from one side only, where hellos sent
  // both ways at once made every pair a simultaneous connect, settled by
  // rejecting one of the two (measured: docs/drivers/libfabric.md, "Start-up
  // at scale").
  CtlMessage hello;
  hello.kind = CtlKind::hello;
  hello.rank = static_cast<uint32_t>(context_.rank);
  hello.size = static_cast<uint32_t>(context_.size);
  hello.a = book_.run();
  auto post_hellos = [&] {
    for (PeerId r : targets) {
      if (peers_[r].hello_posted || (r < context_.rank && !book_.hello_in(r))) continue;
      peers_[r].hello_posted = true;
      submit_tx(make_control(r, hello));
    }
  };
  post_hellos();

  using clock = std::chrono::steady_clock;
  auto retry_at = clock::now();
  auto step = [&] {
    progress();
    post_hellos();  // answers to the lower ranks whose hellos came in
    const auto now = clock::now();
    if (now >= retry_at) {
      // Hellos that failed (peer endpoint not reachable yet) are sent again.
      for (PeerId r : targets) {
        if (std::exchange(peers_[r].hello_failed, false)) submit_tx(make_control(r, hello));
      }
      retry_at = now + std::chrono::milliseconds(100);
    }
    if (caps_.can_block) {
      wait(std::chrono::milliseconds(1));
    } else {
      std::this_thread::yield();
    }
  };
  const HelloWait w = await_hellos(book_, targets, clock::now() + options_.connect_timeout, step,
                                   [this](PeerId r) { return peers_[r].hello_sent; });
  connecting_ = false;
  if (!w.ok()) {
    const std::string& last = done_.last_error();
    std::string tail = hello_diagnosis(w.missing);
    if (!last.empty()) tail += " (last error: " + last + ")";
    throw hello_failure(w, {.who = prefix() + ": connect",
                            .last_error = last,
                            .timeout_tail = tail,
                            .timeout = options_.connect_timeout});
  }
  connected_ = true;
  done_.forget_error();
  const auto now = clock::now();
  for (PeerId r : targets) peers_[r].heard = now;
}

std::string LfDriver::hello_diagnosis(const std::vector<PeerId>& missing) const {
  // Per silent peer, how far the exchange got on this side: our hello still
  // refused by the provider (queued), failed, in flight, or delivered with
  // the peer's own hello never seen.
  constexpr size_t kNamed = 4;
  std::string out;
  for (size_t i = 0; i < missing.size() && i < kNamed; ++i) {
    const PeerId r = missing[i];
    const Peer& p = peers_[r];
    std::string what;
    if (!p.hello_posted) {
      what = "its hello never came (a lower rank speaks first; ours answers it)";
    } else if (p.hello_sent) {
      what = "our hello was delivered, none came back (not polling, or its hello unmatched)";
    } else if (tx_queue_.waiting(r)) {
      what = "our hello is still refused by " + name_ + " (" + std::to_string(p.hello_busy) +
             " times FI_EAGAIN: its endpoint not reached, or its queue full)";
    } else if (!p.hello_error.empty()) {
      what = "our hello failed: " + p.hello_error;
    } else {
      what = "our hello was taken by " + name_ + " but has not completed";
    }
    if (book_.hello_in(r)) what += "; its hello arrived";
    out += (out.empty() ? "" : "; ") + ("rank " + std::to_string(r) + ": " + what);
  }
  if (missing.size() > kNamed) out += "; ...";
  return out.empty() ? out : ": " + out;
}

}  // namespace evb::libfabric
