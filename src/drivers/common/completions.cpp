// The drivers' ready queue and last error (completions.hpp).
#include "drivers/common/completions.hpp"

namespace evb {

void Completions::fail(OpType type, PeerId peer, Tag tag, uint64_t cookie, OpStatus status,
                       const std::string& why, size_t bytes) {
  ready_.push_back(Completion{cookie, type, status, peer, tag, bytes, 0});
  note(why);
}

void Completions::peer_event(PeerId peer, OpStatus status) {
  ready_.push_back(Completion{0, OpType::peer_event, status, peer, 0, 0, 0});
}

void Completions::remote_write(PeerId peer, size_t bytes, uint32_t immediate) {
  ready_.push_back(Completion{0, OpType::remote_write, OpStatus::ok, peer, 0, bytes, immediate});
}

}  // namespace evb
