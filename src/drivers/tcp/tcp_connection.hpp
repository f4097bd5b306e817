#pragma once
// One established connection to one peer: the framing state machine.
//
// Sends: queue_send() records the frame header and the caller's segments
// (no copy); flush() hands header + segments of as many queued messages as fit
// to one sendmsg() and resumes after partial writes at any byte. Receives:
// on_readable() reads a header, asks the FrameSink where the payload goes and
// reads it there (bytes past the target's capacity are discarded), resuming at
// any byte boundary. Small reads go through a staging buffer so that several
// small frames cost one recv(); large payloads are read straight into the
// target. The Connection owns the socket; the sink outlives it.
#include <sys/uio.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "core/ring_queue.hpp"
#include "drivers/api/driver.hpp"
#include "drivers/tcp/tcp_sink.hpp"
#include "drivers/tcp/tcp_socket.hpp"
#include "drivers/tcp/tcp_wire.hpp"

namespace evb::tcp {

// The SO_RCVLOWAT asked for at most (the kernel caps it further at half the
// receive buffer).
inline constexpr size_t kRcvLowatCap = size_t{1} << 30;

struct ConnectionLimits {
  size_t max_io = 0;    // bytes per send/recv call, 0 = unlimited (tests use 1)
  size_t max_iov = 64;  // iovecs per sendmsg
  uint64_t max_message = 1ull << 30;
  size_t staging = 16 * 1024;
  // SO_RCVLOWAT while a large payload is half read: the socket reports
  // readable (and wakes a blocked rank) only once this many more bytes are
  // queued, instead of at every segment. 0 = off.
  size_t rcvlowat = kRcvLowatCap;
};

enum class IoResult {
  ok,        // all possible progress made (would block, or nothing to do)
  bye,       // the peer sent BYE (on_readable stops there)
  eof,       // the peer closed the stream
  failed,    // socket error; see error()
  protocol,  // the peer sent something that is not a valid frame
};

class Connection {
 public:
  Connection(PeerId peer, Fd fd, FrameSink& sink, ConnectionLimits limits = {});

  PeerId peer() const { return peer_; }
  int fd() const { return fd_.get(); }

  void queue_send(Tag tag, std::span<const Segment> segments, uint64_t cookie);
  void queue_bye();
  bool send_pending() const { return !sends_.empty(); }
  // Writes queued frames until done or the socket would block.
  IoResult flush();
  // Reads and dispatches frames until the socket would block (or a budget).
  IoResult on_readable();
  // The framing parser on its own: takes `n` bytes of the incoming stream
  // (any split) and hands frames to the sink. ok, or bye / protocol where the
  // stream must stop (on_readable's reads go through it; so do the fuzz
  // targets, without a socket).
  IoResult feed(const std::byte* data, size_t n);

  // Fails every queued send and the message being received with `status`.
  void fail(OpStatus status);
  void close() { fd_.reset(); }

  int error() const { return error_; }  // errno of the last `failed`
  const char* protocol_error() const { return protocol_error_.c_str(); }
  bool bye_received() const { return bye_received_; }

 private:
  struct SendOp {
    FrameHeader header;
    std::vector<Segment> segments;
    uint64_t cookie = 0;
    size_t total = 0;  // header + payload bytes
    size_t sent = 0;
    bool internal = false;  // BYE: no completion
  };
  enum class RecvState { header, payload };

  SendOp& next_send();  // a cleared slot at the back of sends_
  // Both return false when reading must stop (`stop` says why).
  bool consume(const std::byte* data, size_t n, IoResult& stop);
  bool header_complete(IoResult& stop);
  void finish_message(OpStatus status);
  size_t io_limit(size_t n) const { return limits_.max_io ? std::min(n, limits_.max_io) : n; }
  void set_lowat(size_t bytes);

  PeerId peer_;
  Fd fd_;
  FrameSink& sink_;
  ConnectionLimits limits_;
  RingQueue<SendOp> sends_;
  std::vector<iovec> iov_;  // flush()'s gather list, sized once (max_iov)

  RecvState state_ = RecvState::header;
  FrameHeader header_{};
  size_t header_have_ = 0;
  RecvTarget target_{};
  uint64_t received_ = 0;  // payload bytes of the current message
  int lowat_ = 1;          // the socket's SO_RCVLOWAT (1 = the kernel's default)
  std::vector<std::byte> staging_;

  bool bye_received_ = false;
  int error_ = 0;
  std::string protocol_error_;
};

}  // namespace evb::tcp
