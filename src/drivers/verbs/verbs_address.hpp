#pragma once
// What a rank publishes through the bootstrap so that every peer can bring
// its reliable-connected queue pair up: the port's address (LID, GID, MTU)
// and, for every rank of the run, the number and initial packet sequence
// number of the queue pair this rank created for it.
//
// Encoded as text ("evbverbs1:" + hex) because bootstraps carry strings.
// decode_address() trusts nothing: magic, version, exact length, rank count,
// 24-bit QPNs and PSNs, MTU code and a usable LID or GID are all checked,
// and a bad address is an evb::Error naming the rank it came from.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace evb::verbs {

struct QpEndpoint {
  uint32_t qpn = 0;  // 24 bits; 0 for the rank's own slot (no queue pair to itself)
  uint32_t psn = 0;  // 24 bits
};

struct VerbsAddress {
  uint16_t lid = 0;
  std::array<uint8_t, 16> gid{};
  bool use_gid = false;         // address with the GID (RoCE, routed IB): a global route header
  uint8_t gid_index = 0;        // the sender's table index (informational; each side uses its own)
  uint8_t mtu = 0;              // enum ibv_mtu: 1 = 256 B ... 5 = 4096 B
  std::vector<QpEndpoint> qps;  // indexed by rank
};

constexpr uint32_t kMax24 = 0xFFFFFF;

std::string encode_address(const VerbsAddress& a);

// Throws evb::Error "verbs: address of rank FROM: WHY" unless `text` is a
// well-formed address of a run with `ranks` ranks.
VerbsAddress decode_address(const std::string& text, int from, int ranks);

}  // namespace evb::verbs
