// RendezvousServer, what each message does: Hello (the checks before a
// rank joins, the Welcome once all have), contributions to the collective
// rounds and their completion, Abort and Goodbye, a lost connection, and the
// timers (join deadline, hello deadline, slow-round warning). The poll loop
// and the socket I/O that feed these are in rendezvous_server.cpp.
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bootstrap/rendezvous_conn.hpp"
#include "bootstrap/rendezvous_protocol.hpp"
#include "bootstrap/rendezvous_server.hpp"
#include "core/secret.hpp"

namespace evb::boot {

namespace {

std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s;
}

long long seconds(std::chrono::milliseconds ms) {
  return (ms.count() + 999) / 1000;
}

}  // namespace

void RendezvousServer::on_frame(Conn& c, const std::string& body) {
  MsgType t = body_type(body);
  if (c.rank < 0) {
    if (t != MsgType::hello) throw ProtocolError("expected a hello");
    on_hello(c, body);
    return;
  }
  switch (t) {
    case MsgType::contrib:
      on_contrib(c, body);
      break;
    case MsgType::abort: {
      const std::string why = decode_abort(body);
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!first_abort_) first_abort_ = RankReport{c.rank, why, false};
      }
      cv_.notify_all();
      fail(static_cast<int>(FailKind::aborted), c.rank,
           "bootstrap: rank " + std::to_string(c.rank) + " aborted: " + why);
      break;
    }
    case MsgType::goodbye: {
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto& st = states_[static_cast<size_t>(c.rank)];
        if (st == RankState::joined) ++goodbye_count_;
        st = RankState::goodbye;
      }
      cv_.notify_all();
      send(c, std::make_shared<const std::string>(encode_bye()));
      if (round_count_ > 0 && !round_has_[static_cast<size_t>(c.rank)])
        fail(static_cast<int>(FailKind::error), c.rank,
             "bootstrap: rank " + std::to_string(c.rank) + " finished while collective #" +
                 std::to_string(round_seq_) + " was waiting for it");
      break;
    }
    default:
      throw ProtocolError("unexpected message from rank " + std::to_string(c.rank));
  }
}

void RendezvousServer::on_hello(Conn& c, const std::string& body) {
  Hello h = decode_hello(body);
  const std::string who = "rank " + std::to_string(h.rank);
  if (h.magic != kMagic) return reject(c, "not an evbench rendezvous client (bad magic)");
  if (h.version != kVersion)
    return reject(c, "protocol version " + std::to_string(h.version) + ", this server speaks " +
                         std::to_string(kVersion));
  // Nothing about the run is told before the token matched, and never the token.
  if (!secret_equal(h.token, opt_.token)) return reject(c, "wrong run token");
  if (h.size != opt_.size)
    return reject(c, who + ": size " + std::to_string(h.size) + " does not match this run's " +
                         std::to_string(opt_.size) + " ranks");
  if (h.rank < 0 || h.rank >= opt_.size)
    return reject(c, who + " out of range 0.." + std::to_string(opt_.size - 1));
  if (failed()) return reject(c, who + ": the run has already failed");
  if (rank_state(h.rank) != RankState::absent) return reject(c, who + " has already joined");

  c.rank = h.rank;
  --unidentified_;
  by_rank_[static_cast<size_t>(h.rank)] = &c;
  hostnames_[static_cast<size_t>(h.rank)] = h.hostname;
  enable_keepalive(c.fd.get());
  {
    std::lock_guard<std::mutex> lock(mu_);
    states_[static_cast<size_t>(h.rank)] = RankState::joined;
  }
  if (++joined_ == opt_.size) {
    welcomed_ = true;
    auto frame = std::make_shared<const std::string>(encode_welcome(hostnames_));
    for (Conn* r : by_rank_)
      if (r) send(*r, frame);
  }
}

void RendezvousServer::on_contrib(Conn& c, const std::string& body) {
  if (failure_) return send(c, failure_);
  Contrib m = decode_contrib(body);
  const auto r = static_cast<size_t>(c.rank);
  if (!welcomed_ || m.seq != round_seq_ || round_has_[r])
    throw ProtocolError("collective out of step");
  // O(1) per contribution in the common case: rounds at 1024 ranks stay linear.
  for (int q = 0; goodbye_count_ > 0 && q < opt_.size; ++q) {
    if (rank_state(q) == RankState::goodbye)
      return fail(static_cast<int>(FailKind::error), q,
                  "bootstrap: collective #" + std::to_string(round_seq_) + " (" + op_name(m.op) +
                      ") cannot complete: rank " + std::to_string(q) + " has already finished");
  }
  if (round_count_ == 0) {
    round_start_ = Clock::now();
    round_warned_ = false;
    round_first_op_ = int(m.op);
  }
  for (int q = 0; round_first_op_ != int(m.op) && q < opt_.size; ++q) {
    if (round_has_[static_cast<size_t>(q)] && round_op_[static_cast<size_t>(q)] != int(m.op))
      return fail(static_cast<int>(FailKind::error), -1,
                  "bootstrap: collective mismatch in round #" + std::to_string(round_seq_) +
                      ": rank " + std::to_string(q) + " called " +
                      op_name(static_cast<Op>(round_op_[static_cast<size_t>(q)])) + ", rank " +
                      std::to_string(c.rank) + " called " + op_name(m.op));
  }
  round_has_[r] = true;
  round_op_[r] = int(m.op);
  round_data_[r] = std::move(m.data);
  ++round_count_;
  if (round_ready()) try_complete_round();
}

bool RendezvousServer::round_ready() const {
  if (round_count_ == 0 || round_count_ + lost_count_ < opt_.size) return false;
  for (int q = 0; q < opt_.size; ++q)
    if (!round_has_[static_cast<size_t>(q)] && rank_state(q) != RankState::lost) return false;
  return true;
}

void RendezvousServer::try_complete_round() {
  int first = 0;
  while (!round_has_[static_cast<size_t>(first)]) ++first;  // rank 0 may be lost
  Op op = static_cast<Op>(round_op_[static_cast<size_t>(first)]);
  Result res;
  res.seq = round_seq_;
  std::shared_ptr<const std::string> empty;
  std::shared_ptr<const std::string> full;
  if (op == Op::barrier) {
    empty = std::make_shared<const std::string>(encode_result(res));
  } else {
    res.values = std::move(round_data_);
    full = std::make_shared<const std::string>(encode_result(res));
    if (op == Op::gather) {
      res.values.clear();
      empty = std::make_shared<const std::string>(encode_result(res));
    }
  }
  for (int q = 0; q < opt_.size; ++q) {
    Conn* c = by_rank_[static_cast<size_t>(q)];
    if (!c) continue;
    bool gets_all = op == Op::allgather || (op == Op::gather && q == 0);
    send(*c, gets_all ? full : empty);
  }
  ++round_seq_;
  round_count_ = 0;
  round_data_.assign(static_cast<size_t>(opt_.size), "");
  round_has_.assign(static_cast<size_t>(opt_.size), false);
}

void RendezvousServer::fail(int kind, int rank, const std::string& message) {
  if (failure_) return;
  if (opt_.log_failures) log(message);
  Fail f;
  f.kind = static_cast<FailKind>(kind);
  f.rank = rank;
  f.message = message;
  failure_ = std::make_shared<const std::string>(encode_fail(f));
  {
    std::lock_guard<std::mutex> lock(mu_);
    failed_ = true;
    first_failure_ = RankReport{rank, message, f.kind == FailKind::peer_lost};
  }
  cv_.notify_all();
  for (Conn* c : by_rank_)
    if (c && !c->dead) send(*c, failure_);
}

void RendezvousServer::on_closed(Conn& c, const std::string& why) {
  c.dead = true;
  if (c.rank < 0) return;
  by_rank_[static_cast<size_t>(c.rank)] = nullptr;
  bool lost;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& s = states_[static_cast<size_t>(c.rank)];
    lost = s == RankState::joined;
    if (lost) {
      s = RankState::lost;
      ++lost_count_;
    }
  }
  cv_.notify_all();
  if (lost && opt_.tolerate_loss && welcomed_ && c.rank != 0 && !failure_) {
    if (opt_.log_failures)
      log("rendezvous: rank " + std::to_string(c.rank) + " lost (" + why +
          "); the run goes on without it (on_failure: exclude)");
    if (round_ready()) try_complete_round();
    return;
  }
  if (lost)
    fail(static_cast<int>(FailKind::peer_lost), c.rank,
         "bootstrap: rank " + std::to_string(c.rank) + " disappeared (" + why + ")");
}

void RendezvousServer::check_timers() {
  auto now = Clock::now();
  for (auto& c : conns_) {
    if (c->rank >= 0 || c->dead || c->close_after_flush || now < c->hello_deadline) continue;
    log("rendezvous: closing connection from " + c->addr + ": no hello within " +
        std::to_string(seconds(opt_.hello_timeout)) + " s");
    c->dead = true;
  }
  reap();
  if (!welcomed_ && !failure_ && now > join_deadline_) {
    std::vector<int> missing;
    for (int q = 0; q < opt_.size; ++q)
      if (rank_state(q) == RankState::absent) missing.push_back(q);
    fail(static_cast<int>(FailKind::error), missing.empty() ? -1 : missing[0],
         "bootstrap: timed out after " + std::to_string(seconds(opt_.join_timeout)) +
             " s waiting for rank(s) " + rank_list(missing) + " to join the rendezvous at " +
             opt_.host + ":" + std::to_string(port_) + " (" + std::to_string(joined_) + " of " +
             std::to_string(opt_.size) + " joined)");
  }
  if (welcomed_ && !failure_ && round_count_ > 0 && !round_warned_ &&
      now - round_start_ > opt_.slow_round_warning) {
    round_warned_ = true;
    std::vector<int> waiting;
    for (int q = 0; q < opt_.size; ++q)
      if (!round_has_[static_cast<size_t>(q)]) waiting.push_back(q);
    log("rendezvous: collective #" + std::to_string(round_seq_) + " has waited " +
        std::to_string(seconds(opt_.slow_round_warning)) + " s for rank(s) " + rank_list(waiting) +
        " (still connected; waiting on)");
  }
}

}  // namespace evb::boot
