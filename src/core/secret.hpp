#pragma once
// Unguessable bytes for what gates a run (rendezvous tokens, the TCP run id):
// read from the kernel's CSPRNG (getrandom), never from a seeded generator.
#include <cstddef>
#include <string>

namespace evb {

// `bytes` random bytes as lowercase hex (2 * bytes characters). Throws
// evb::Error when the kernel cannot supply them.
std::string random_hex(size_t bytes);

// Compares two secrets in time independent of where they first differ.
bool secret_equal(const std::string& a, const std::string& b);

}  // namespace evb
