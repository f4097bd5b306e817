#include "drivers/tcp/tcp_wire.hpp"

namespace evb::tcp {

const char* to_string(RefuseReason reason) {
  switch (reason) {
    case RefuseReason::none:
      return "accepted";
    case RefuseReason::bad_magic:
      return "bad handshake (not an evbench tcp hello)";
    case RefuseReason::bad_version:
      return "bad handshake (protocol version mismatch)";
    case RefuseReason::run_id_mismatch:
      return "bad handshake (run id mismatch)";
    case RefuseReason::not_a_peer:
      return "bad handshake (rank is not a peer connecting here)";
    case RefuseReason::wrong_target:
      return "bad handshake (addressed to another rank)";
    case RefuseReason::duplicate:
      return "bad handshake (rank already connected)";
  }
  return "bad handshake (unknown reason)";
}

uint64_t run_id_of(const std::vector<std::string>& addresses) {
  // FNV-1a over the count and every address, each terminated by a NUL.
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 0x100000001b3ull;
  };
  for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>(addresses.size() >> (8 * i)));
  for (const auto& a : addresses) {
    for (char c : a) mix(static_cast<unsigned char>(c));
    mix(0);
  }
  return h;
}

std::string endpoint_of(const std::string& address) {
  return address.substr(0, address.find('#'));
}

}  // namespace evb::tcp
