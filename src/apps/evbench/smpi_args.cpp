#include "apps/evbench/smpi_args.hpp"

#include <cstdio>

#include "core/error.hpp"

namespace evb {
namespace {
bool needs_escape(char c) {
  switch (c) {
    case ' ':
    case '\t':
    case '\n':
    case '\r':
    case '\v':
    case '\f':
    case '*':
    case '?':
    case '[':
    case ']':
    case '%':
      return true;
    default:
      return false;
  }
}
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

std::string smpi_arg_encode(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (!needs_escape(c)) {
      out += c;
      continue;
    }
    char buf[4];
    std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
    out += buf;
  }
  return out;
}

std::string smpi_arg_decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const int hi = i + 1 < text.size() ? hex_value(text[i + 1]) : -1;
    const int lo = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
    if (hi < 0 || lo < 0) throw UsageError("--simulated-on: a '%' that is not an escape");
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

}  // namespace evb
