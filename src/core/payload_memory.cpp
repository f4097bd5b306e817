#include "core/payload_memory.hpp"

#include "core/error.hpp"

namespace evb {

bool payload_checks(const Config& config) {
  switch (config.verify_payload) {
    case VerifyPayload::off:
      return false;
    case VerifyPayload::automatic:
      return !payload_memory_shared();
    case VerifyPayload::on:
      break;
  }
  if (payload_memory_shared())
    throw ConfigError(
        "verify.payload: on, but this build (SMPI) keeps payloads in shared memory, where "
        "payload checksums cannot hold; use off or auto");
  return true;
}

}  // namespace evb
