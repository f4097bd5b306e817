#include "bootstrap/rendezvous_client.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "core/error.hpp"

namespace evb::boot {

namespace {
long long secs(std::chrono::milliseconds ms) {
  return (ms.count() + 999) / 1000;
}
}  // namespace

RendezvousClient::Backoff::Backoff(int rank)
    : state_(0x9e3779b97f4a7c15ull ^ (static_cast<uint64_t>(rank) << 17) ^
             static_cast<uint64_t>(Clock::now().time_since_epoch().count())) {}

std::chrono::milliseconds RendezvousClient::Backoff::next() {
  // xorshift64: a jitter of 50-100 % of the step, the step doubling to 1 s.
  state_ ^= state_ << 13;
  state_ ^= state_ >> 7;
  state_ ^= state_ << 17;
  const auto step = step_.count();
  current_ = std::chrono::milliseconds(step / 2 + static_cast<long long>(state_ % (step / 2 + 1)));
  step_ = std::min(step_ * 2, std::chrono::milliseconds(1000));
  return current_;
}

std::string RendezvousClient::server() const {
  return opt_.host + ":" + std::to_string(opt_.port);
}

RendezvousClient::RendezvousClient(ClientOptions options) : opt_(std::move(options)) {
  if (opt_.hostname.empty()) opt_.hostname = local_hostname();
  const std::string me = "bootstrap: rank " + std::to_string(opt_.rank);
  const auto start = Clock::now();
  // Past this the server's own join deadline has passed too (ours is a backstop).
  const auto deadline = start + opt_.connect_timeout + opt_.join_timeout + std::chrono::seconds(5);
  Hello h;
  h.token = opt_.token;
  h.rank = opt_.rank;
  h.size = opt_.size;
  h.hostname = opt_.hostname;
  const std::string hello = encode_hello(h);
  // A busy server, or a connection closed before the server read the hello,
  // costs a retry with backoff (jittered, so 1000 ranks do not come back
  // together), not the run: a server that is really gone refuses connects.
  Backoff backoff(opt_.rank);
  int turned_away = 0;
  std::string last;
  for (;;) {
    connect_to_server(start, me);
    std::string why;
    if (send_all(fd_.get(), hello.data(), hello.size(), &why)) {
      std::string body;
      try {
        body = read_frame(deadline, "all ranks to join");
      } catch (const RetryableClose& e) {
        why = e.what();
      }
      if (!body.empty()) {
        switch (body_type(body)) {
          case MsgType::welcome:
            hostnames_ = decode_welcome(body);
            break;
          case MsgType::busy:
            why = decode_busy(body);
            break;
          case MsgType::reject:
            done_ = true;
            throw Error(me + ": the rendezvous at " + server() +
                        " rejected it: " + decode_reject(body));
          case MsgType::fail:
            throw_fail(body);
          default:
            throw Error(me + ": unexpected reply from the rendezvous at " + server());
        }
        if (!hostnames_.empty()) break;
      }
    }
    fd_.reset();
    done_ = false;
    ++turned_away;
    last = why;
    if (Clock::now() + backoff.next() >= deadline)
      throw Error(me + ": the rendezvous at " + server() + " turned this rank away " +
                  std::to_string(turned_away) + " times before it could join (last: " + last + ")");
    std::this_thread::sleep_for(backoff.current());
  }
  for (const auto& name : hostnames_)
    if (name != hostnames_.at(0)) all_local_ = false;
}

void RendezvousClient::connect_to_server(Clock::time_point start, const std::string& me) {
  const auto give_up = start + opt_.connect_timeout;
  int err = 0;
  for (;;) {
    fd_ = try_connect_tcp(opt_.host, opt_.port, &err);
    if (fd_.valid()) break;
    if (Clock::now() >= give_up) {
      bool owner_is_me = opt_.server_owner == "rank " + std::to_string(opt_.rank);
      throw Error(me + ": cannot connect to the rendezvous at " + server() + " within " +
                  std::to_string(secs(opt_.connect_timeout)) + " s: " + std::strerror(err) +
                  (owner_is_me ? "" : "; is " + opt_.server_owner + " (which serves it) running?"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  enable_keepalive(fd_.get());
}

RendezvousClient::~RendezvousClient() {
  goodbye();
}

std::string RendezvousClient::read_frame(Clock::time_point deadline, const char* waiting_for) {
  char prefix[4];
  std::string why;
  auto fail = [&](int rc) -> Error {
    done_ = true;
    if (rc < 0)
      return Error("bootstrap: timed out waiting for " + std::string(waiting_for) +
                   " at the rendezvous " + server());
    bool owner_is_me = opt_.server_owner == "rank " + std::to_string(opt_.rank);
    return Error("bootstrap: lost the rendezvous at " + server() + " (" + why + ")" +
                 (owner_is_me ? "" : "; did " + opt_.server_owner + " (which serves it) die?"));
  };
  int rc = recv_exact(fd_.get(), prefix, 4, deadline, &why);
  // Not welcomed yet: the server may have closed this connection unread.
  if (rc == 0 && hostnames_.empty()) throw RetryableClose(why);
  if (rc != 1) throw fail(rc);
  uint32_t n = frame_length(prefix);
  if (n > kMaxFrame) throw ProtocolError("bootstrap: oversized frame from the rendezvous");
  std::string body(n, '\0');
  rc = recv_exact(fd_.get(), body.data(), n, deadline, &why);
  if (rc != 1) throw fail(rc);
  return body;
}

void RendezvousClient::throw_fail(const std::string& body) {
  done_ = true;
  stopped_by_server_ = true;
  Fail f = decode_fail(body);
  throw RendezvousFailure(f.kind != FailKind::error ? f.rank : -1, f.message);
}

std::vector<std::string> RendezvousClient::collective(Op op, const std::string& mine) {
  if (done_)
    throw Error(std::string("bootstrap: ") + op_name(op) +
                " after the bootstrap was closed or failed");
  Contrib c;
  c.seq = seq_;
  c.op = op;
  c.data = mine;
  std::string frame = encode_contrib(c), why;
  c.data.clear();
  if (!send_all(fd_.get(), frame.data(), frame.size(), &why)) {
    // The server may have told us why before closing; prefer its message.
    done_ = true;
    std::string body;
    try {
      body = read_frame(Clock::now() + std::chrono::seconds(1), "the failure reason");
    } catch (const Error&) {
      throw Error("bootstrap: lost the rendezvous at " + server() + " (" + why + ")");
    }
    if (body_type(body) == MsgType::fail) throw_fail(body);
    throw Error("bootstrap: lost the rendezvous at " + server());
  }
  for (;;) {
    std::string body = read_frame(Clock::time_point::max(), op_name(op));
    MsgType t = body_type(body);
    if (t == MsgType::fail) throw_fail(body);
    if (t != MsgType::result)
      throw ProtocolError("bootstrap: unexpected reply to " + std::string(op_name(op)));
    Result r = decode_result(body);
    if (r.seq != seq_) throw ProtocolError("bootstrap: collective result out of step");
    ++seq_;
    return std::move(r.values);
  }
}

std::vector<std::string> RendezvousClient::allgather(const std::string& mine) {
  return collective(Op::allgather, mine);
}

std::vector<std::string> RendezvousClient::gather(const std::string& mine) {
  return collective(Op::gather, mine);
}

void RendezvousClient::barrier() {
  collective(Op::barrier, std::string());
}

void RendezvousClient::abort(const std::string& why) noexcept {
  if (done_ || !fd_.valid()) return;
  done_ = true;
  try {
    std::string frame = encode_abort(why), err;
    abort_delivered_ = send_all(fd_.get(), frame.data(), frame.size(), &err);
  } catch (...) {
  }
  fd_.reset();
}

void RendezvousClient::goodbye() noexcept {
  if (done_ || !fd_.valid()) {
    fd_.reset();
    return;
  }
  done_ = true;
  try {
    std::string frame = encode_goodbye(), err;
    if (send_all(fd_.get(), frame.data(), frame.size(), &err)) {
      // Wait for the ack so the server has recorded the clean leave before
      // this process exits (the local launcher relies on it).
      auto deadline = Clock::now() + std::chrono::seconds(5);
      for (;;) {
        std::string body = read_frame(deadline, "the goodbye ack");
        if (body_type(body) != MsgType::fail) break;  // a late failure notice: skip
      }
    }
  } catch (...) {
  }
  fd_.reset();
}

}  // namespace evb::boot
