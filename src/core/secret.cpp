#include "core/secret.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.hpp"

namespace evb {

std::string random_hex(size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  size_t got = 0;
  while (got < bytes) {
    ssize_t r = ::getrandom(raw.data() + got, bytes - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("getrandom: ") + std::strerror(errno));
    }
    got += static_cast<size_t>(r);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * bytes);
  for (unsigned char c : raw) {
    s += kHex[c >> 4];
    s += kHex[c & 15];
  }
  return s;
}

bool secret_equal(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < n; ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace evb
