#pragma once
// Where fragment payloads live: the one place the SMPI build differs in how
// units get their memory. The ordinary build gives every unit private memory
// (AlignedBuffer). The SMPI build (EVBENCH_SIM, payload_memory/smpi.cpp)
// maps the payload part of every slot onto SimGrid's shared memory and keeps
// only the first `private_bytes` of each slot (the fragment header) private:
// SimGrid then copies just the headers of a message from such a slot, 512
// simulated ranks fit in one process, and every header the BUs check is the
// one the RU wrote. What lands in shared memory is whatever some rank wrote
// there last, so payload checksums cannot hold on it: payload_checks() says
// whether the BUs check them.
#include <cstddef>

#include "core/aligned_buffer.hpp"
#include "core/config.hpp"

namespace evb {

// `slots` slots of `stride` bytes, page-aligned; `private_bytes` (< stride)
// at the start of each slot are private memory in every build.
AlignedBuffer payload_slots(size_t slots, size_t stride, size_t private_bytes, PageSize pages);

// True in the SMPI build, whose payload_slots() share payloads.
bool payload_memory_shared();

// Whether BUs check payload checksums: verify.payload on or off; auto: on
// unless payload memory is shared. Throws ConfigError naming verify.payload
// when it asks for checks on shared payloads.
bool payload_checks(const Config& config);

}  // namespace evb
