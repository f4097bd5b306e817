#include "drivers/tcp/tcp_connection.hpp"

#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace evb::tcp {

Connection::Connection(PeerId peer, Fd fd, FrameSink& sink, ConnectionLimits limits)
    : peer_(peer), fd_(std::move(fd)), sink_(sink), limits_(limits) {
  limits_.staging = std::max<size_t>(limits_.staging, sizeof(FrameHeader));
  limits_.max_iov = std::clamp<size_t>(limits_.max_iov, 2, 1024);
  staging_.resize(limits_.staging);
  iov_.resize(limits_.max_iov);
}

Connection::SendOp& Connection::next_send() {
  // A reused slot: every field set here, the segment vector keeps its capacity.
  SendOp& op = sends_.push_slot();
  op.header = FrameHeader{};
  op.segments.clear();
  op.cookie = 0;
  op.total = sizeof(FrameHeader);
  op.sent = 0;
  op.internal = false;
  return op;
}

void Connection::queue_send(Tag tag, std::span<const Segment> segments, uint64_t cookie) {
  SendOp& op = next_send();
  op.header.tag = tag;
  op.segments.assign(segments.begin(), segments.end());
  op.cookie = cookie;
  for (const auto& s : segments) op.header.length += s.size;
  op.total += op.header.length;
}

void Connection::queue_bye() {
  SendOp& op = next_send();
  op.header.kind = static_cast<uint16_t>(FrameKind::bye);
  op.internal = true;
}

IoResult Connection::flush() {
  std::vector<iovec>& iov = iov_;
  const size_t limit = limits_.max_io ? limits_.max_io : SIZE_MAX;
  while (!sends_.empty()) {
    if (!fd_.valid()) return IoResult::failed;
    size_t n = 0;
    size_t bytes = 0;
    for (auto& op : sends_) {
      size_t skip = op.sent;
      auto add = [&](const void* p, size_t len) {
        if (skip >= len) {
          skip -= len;
          return true;
        }
        if (n == iov.size() || bytes >= limit) return false;
        p = static_cast<const std::byte*>(p) + skip;
        len = std::min(len - skip, limit - bytes);
        skip = 0;
        iov[n++] = iovec{const_cast<void*>(p), len};
        bytes += len;
        return true;
      };
      bool room = add(&op.header, sizeof op.header);
      for (const auto& s : op.segments) {
        if (!room) break;
        room = add(s.data, s.size);
      }
      if (!room || n == iov.size() || bytes >= limit) break;
    }
    msghdr msg{};
    msg.msg_iov = iov.data();
    msg.msg_iovlen = n;
    ssize_t w = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return IoResult::ok;
      error_ = errno;
      return IoResult::failed;
    }
    size_t left = static_cast<size_t>(w);
    while (!sends_.empty()) {
      SendOp& op = sends_.front();
      size_t need = op.total - op.sent;
      if (left < need) {
        op.sent += left;
        break;
      }
      left -= need;
      const bool report = !op.internal;
      const Tag tag = op.header.tag;
      const uint64_t cookie = op.cookie;
      const uint64_t length = op.header.length;
      sends_.pop_front();
      if (report) sink_.send_done(peer_, tag, cookie, length, OpStatus::ok);
    }
    if (static_cast<size_t>(w) < bytes && !limits_.max_io) return IoResult::ok;  // buffer full
  }
  return IoResult::ok;
}

IoResult Connection::on_readable() {
  for (int round = 0; round < 64; ++round) {
    if (!fd_.valid()) return IoResult::failed;
    std::byte* dst = staging_.data();
    size_t len = staging_.size();
    bool direct = false;
    if (state_ == RecvState::payload && received_ < target_.capacity) {
      uint64_t want = std::min<uint64_t>(target_.capacity, header_.length) - received_;
      if (want >= limits_.staging) {
        dst = target_.data + received_;
        len = static_cast<size_t>(want);
        direct = true;
      }
    }
    if (!direct && lowat_ != 1) set_lowat(1);
    ssize_t r = ::recv(fd_.get(), dst, io_limit(len), MSG_DONTWAIT);
    if (r == 0) return IoResult::eof;
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        // Half way through a large payload: be woken when the rest is there.
        if (direct && limits_.rcvlowat) set_lowat(std::min(len, limits_.rcvlowat));
        return IoResult::ok;
      }
      error_ = errno;
      return IoResult::failed;
    }
    if (direct) {
      received_ += static_cast<uint64_t>(r);
      if (received_ == header_.length) {
        if (lowat_ != 1) set_lowat(1);  // the next header may be a few bytes
        finish_message(OpStatus::ok);
      }
      continue;
    }
    const IoResult stop = feed(staging_.data(), static_cast<size_t>(r));
    if (stop != IoResult::ok) return stop;
  }
  return IoResult::ok;
}

void Connection::set_lowat(size_t bytes) {
  const int v = static_cast<int>(std::min<size_t>(bytes, 1u << 30));
  if (v == lowat_) return;
  // Best effort: a kernel that refuses only costs the wake-ups it would save.
  if (::setsockopt(fd_.get(), SOL_SOCKET, SO_RCVLOWAT, &v, sizeof v) == 0) lowat_ = v;
}

IoResult Connection::feed(const std::byte* data, size_t n) {
  IoResult stop = IoResult::ok;
  return consume(data, n, stop) ? IoResult::ok : stop;
}

bool Connection::consume(const std::byte* data, size_t n, IoResult& stop) {
  size_t pos = 0;
  while (pos < n) {
    if (state_ == RecvState::header) {
      size_t take = std::min(sizeof(FrameHeader) - header_have_, n - pos);
      std::memcpy(reinterpret_cast<std::byte*>(&header_) + header_have_, data + pos, take);
      header_have_ += take;
      pos += take;
      if (header_have_ == sizeof(FrameHeader)) {
        header_have_ = 0;
        if (!header_complete(stop)) return false;
      }
    } else {
      uint64_t remaining = header_.length - received_;
      size_t take = static_cast<size_t>(std::min<uint64_t>(remaining, n - pos));
      if (received_ < target_.capacity) {
        size_t copy = static_cast<size_t>(std::min<uint64_t>(take, target_.capacity - received_));
        std::memcpy(target_.data + received_, data + pos, copy);
      }
      received_ += take;
      pos += take;
      if (received_ == header_.length) finish_message(OpStatus::ok);
    }
  }
  return true;
}

bool Connection::header_complete(IoResult& stop) {
  if (header_.magic != kFrameMagic) {
    protocol_error_ = "bad frame magic";
    stop = IoResult::protocol;
    return false;
  }
  if (header_.kind == static_cast<uint16_t>(FrameKind::bye)) {
    bye_received_ = true;
    stop = IoResult::bye;
    return false;
  }
  if (header_.kind != static_cast<uint16_t>(FrameKind::data)) {
    protocol_error_ = "unknown frame kind";
    stop = IoResult::protocol;
    return false;
  }
  if (header_.length > limits_.max_message) {
    protocol_error_ = "frame longer than max_message";
    stop = IoResult::protocol;
    return false;
  }
  target_ = sink_.begin_message(peer_, header_.tag, header_.length);
  if (target_.refused) {
    target_ = {};
    protocol_error_ = "a " + std::to_string(header_.length) +
                      " B message nobody posted a receive for would pass the unexpected-message "
                      "limits (driver_options.unexpected_bytes, unexpected_messages)";
    stop = IoResult::protocol;
    return false;
  }
  received_ = 0;
  state_ = RecvState::payload;
  if (header_.length == 0) finish_message(OpStatus::ok);
  return true;
}

void Connection::finish_message(OpStatus status) {
  RecvTarget t = target_;
  target_ = {};
  state_ = RecvState::header;
  sink_.end_message(peer_, header_.tag, t, header_.length, status);
}

void Connection::fail(OpStatus status) {
  // Reported after the queue is emptied: a sink may queue again meanwhile.
  const size_t n = sends_.size();
  for (size_t i = 0; i < n; ++i) {
    const SendOp& op = sends_.front();
    const bool report = !op.internal;
    const Tag tag = op.header.tag;
    const uint64_t cookie = op.cookie;
    const uint64_t length = op.header.length;
    sends_.pop_front();
    if (report) sink_.send_done(peer_, tag, cookie, length, status);
  }
  if (state_ == RecvState::payload) finish_message(status);
  header_have_ = 0;
}

}  // namespace evb::tcp
