#pragma once
// RendezvousWatch: notices, while a rank runs its data phase, that the
// rendezvous connection was closed by the other side (the process serving
// it died or left), without reading from it.
//
// Under the env bootstrap rank 0 serves the rendezvous, so it is a single
// point of failure: without it no round (the final barrier, the gathering
// of results) can complete. A rank that learnt of it only at its next
// collective would run on until the end of the run first; the watch calls
// `on_lost` as soon as the kernel reports the hang-up (poll POLLRDHUP on a
// duplicate of the socket, so the owner may close its descriptor at any
// time). The owner decides what to do (the env bootstrap ends the rank).
// Destroying the watch stops it; `on_lost` is then never called.
#include <functional>
#include <thread>

#include "core/fd.hpp"

namespace evb::boot {

class RendezvousWatch {
 public:
  // Watches `socket_fd` (duplicated; the caller keeps its own). `on_lost`
  // runs on the watch's thread, at most once.
  RendezvousWatch(int socket_fd, std::function<void()> on_lost);
  ~RendezvousWatch();
  RendezvousWatch(const RendezvousWatch&) = delete;
  RendezvousWatch& operator=(const RendezvousWatch&) = delete;

 private:
  void run();

  Fd sock_;
  Fd stop_rd_, stop_wr_;
  std::function<void()> on_lost_;
  std::thread thread_;
};

}  // namespace evb::boot
