#include "bootstrap/rendezvous_watch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace evb::boot {

RendezvousWatch::RendezvousWatch(int socket_fd, std::function<void()> on_lost)
    : on_lost_(std::move(on_lost)) {
  sock_ = Fd(::fcntl(socket_fd, F_DUPFD_CLOEXEC, 0));
  if (!sock_.valid())
    throw Error(std::string("bootstrap: cannot watch the rendezvous connection: ") +
                std::strerror(errno));
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0)
    throw Error(std::string("bootstrap: cannot watch the rendezvous connection: pipe: ") +
                std::strerror(errno));
  stop_rd_ = Fd(p[0]);
  stop_wr_ = Fd(p[1]);
  thread_ = std::thread([this] { run(); });
}

RendezvousWatch::~RendezvousWatch() {
  const char c = 0;
  while (::write(stop_wr_.get(), &c, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
}

void RendezvousWatch::run() {
  pollfd fds[2] = {{sock_.get(), POLLRDHUP, 0}, {stop_rd_.get(), POLLIN, 0}};
  for (;;) {
    const int n = ::poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) return;
    if (fds[0].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
      on_lost_();
      return;
    }
  }
}

}  // namespace evb::boot
