#pragma once
// The seam between a connection's framing state machine and whoever consumes
// its messages (the driver, or a test). A Connection reports every finished
// send and asks the sink where each incoming payload goes.
#include <cstddef>
#include <cstdint>

#include "drivers/api/driver.hpp"
#include "drivers/common/tag_matcher.hpp"

namespace evb::tcp {

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // A data header arrived from `peer`.
  virtual RecvTarget begin_message(PeerId peer, Tag tag, uint64_t length) = 0;
  // The message ended: status ok (all `length` bytes read) or a peer failure.
  virtual void end_message(PeerId peer, Tag tag, const RecvTarget& target, uint64_t length,
                           OpStatus status) = 0;
  // A queued send finished (ok, or failed with the peer).
  virtual void send_done(PeerId peer, Tag tag, uint64_t cookie, size_t bytes, OpStatus status) = 0;
};

}  // namespace evb::tcp
