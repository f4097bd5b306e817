#pragma once
// Helpers for the bootstrap tests: leak checks for child processes and
// sockets, a free loopback port, and a quiet default config.
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "core/config.hpp"

namespace evb::boot::test {

// Number of socket file descriptors this process holds.
inline int socket_fds() {
  int n = 0;
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return -1;
  while (dirent* e = ::readdir(d)) {
    char target[256] = {};
    std::string path = std::string("/proc/self/fd/") + e->d_name;
    if (::readlink(path.c_str(), target, sizeof target - 1) > 0 &&
        std::string(target).rfind("socket:", 0) == 0)
      ++n;
  }
  ::closedir(d);
  return n;
}

// True when this process has no child (running or zombie).
inline bool no_children() {
  int st;
  return ::waitpid(-1, &st, WNOHANG) < 0 && errno == ECHILD;
}

inline Config test_config() {
  Config c;
  c.peer_timeout_s = 5;
  return c;
}

}  // namespace evb::boot::test
