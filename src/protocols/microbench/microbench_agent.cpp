#include "protocols/microbench/microbench_agent.hpp"

#include <algorithm>
#include <cstring>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "protocols/microbench/microbench_cookie.hpp"

namespace evb::micro {
namespace {

bool has_cmd(Pattern p) {
  return p == Pattern::gather_cmd || p == Pattern::gather_cmd_meta;
}

}  // namespace

size_t MicroAgent::arena_bytes(const Config& c, size_t max_sources) {
  const uint64_t meta =
      pattern_of(c) == Pattern::gather_cmd_meta ? round64(meta_message_size(c)) : 0;
  const uint64_t per_slot = round64(data_message_size(c)) + meta;
  return std::max<size_t>(64, max_sources * receive_slots_of(c) * per_slot);
}

MicroAgent::MicroAgent(Engine& engine, const Topology& topo, DataPool* pool,
                       const Registration* pool_reg, uint8_t* arena, const Registration& arena_reg,
                       size_t max_sources, const std::vector<WriteTarget>* windows,
                       MicrobenchStats& stats)
    : engine_(engine),
      topo_(topo),
      config_(engine.config()),
      pool_(pool),
      pool_reg_(pool_reg),
      arena_reg_(arena_reg),
      arena_(arena),
      max_sources_(max_sources),
      windows_(windows),
      stats_(stats),
      headers_(engine.driver(), sizeof(BenchHeader)) {
  id_ = engine_.add_agent(this);
  with_cmd_ = has_cmd(pattern_of(config_));
  with_meta_ = pattern_of(config_) == Pattern::gather_cmd_meta;
  data_size_ = data_message_size(config_);
  meta_size_ = with_meta_ ? meta_message_size(config_) : 0;
  parallel_ = static_cast<uint32_t>(std::max(1, config_.parallel));
  slots_ = receive_slots_of(config_);
  tickets_ = credit_tickets_of(config_);
  batch_ = credit_batch_of(config_);
  shared_slots_ = shares_slots(config_);
  // Commands in flight towards one rank: credits for its targets (a credit
  // returns `batch_` slots, so about tickets / batch of them, and one more for
  // a run the write path sends early), segments, finals and acks; deeper
  // pools only avoid the driver's unexpected queue. Not one per ticket: every
  // receive posted takes an entry of the provider's receive pool, which
  // unexpected messages need too (libfabric shm holds 1024: 300 receive slots
  // meant 1204 command receives, shm dropped the final and the run stalled).
  const uint32_t credit_messages = (tickets_ + batch_ - 1) / batch_ + 1;
  const int open = static_cast<int>(std::max(parallel_, credit_messages));
  const int depth = std::max(16, topo.nodes * open * 2 + 2 * topo.nodes);
  engine_.listen(Channel::bench, id_, depth);
  if (windows_) {
    engine_.listen_writes(id_);
    landed_.assign(max_sources_ * slots_, 0);
  }
  target_of_bu_.assign(topo.nodes, -1);
  source_of_ru_.assign(topo.nodes, -1);
}

uint64_t MicroAgent::slot_bytes() const {
  return round64(data_size_) + round64(meta_size_);
}

uint8_t* MicroAgent::data_buffer(size_t s, uint32_t slot) const {
  return arena_ + (s * slots_ + slot) * slot_bytes();
}

uint8_t* MicroAgent::meta_buffer(size_t s, uint32_t slot) const {
  return data_buffer(s, slot) + round64(data_size_);
}

void MicroAgent::begin_step(const StepPlan& plan) {
  step_ = plan.step;
  std::fill(target_of_bu_.begin(), target_of_bu_.end(), -1);
  std::fill(source_of_ru_.begin(), source_of_ru_.end(), -1);
  targets_.clear();
  sources_.clear();
  for (int bu : plan.targets) {
    target_of_bu_.at(bu) = static_cast<int>(targets_.size());
    Target t;
    t.bu = bu;
    t.rank = topo_.bu_rank.at(bu);
    targets_.push_back(t);
  }
  if (plan.sources.size() > max_sources_)
    throw Error("micro-benchmark: receive arena holds " + std::to_string(max_sources_) +
                " sources, step " + std::to_string(step_) + " needs " +
                std::to_string(plan.sources.size()));
  for (int ru : plan.sources) {
    source_of_ru_.at(ru) = static_cast<int>(sources_.size());
    Source s;
    s.ru = ru;
    s.rank = topo_.ru_rank.at(ru);
    sources_.push_back(s);
  }
  cursor_ = 0;
  stopped_ = targets_.empty();
  sequence_ = 0;
}

void MicroAgent::start(int64_t now) {
  window_begin_ns_ = now + s_to_ns(config_.warmup_s);
  deadline_ns_ = now + s_to_ns(config_.duration_s);
  std::fill(landed_.begin(), landed_.end(), 0);
  data_slots_.reset(sources_.size(), slots_, tickets_);
  meta_slots_.reset(sources_.size(), slots_, tickets_);
  for (size_t s = 0; s < sources_.size(); ++s) {
    for (uint32_t k = 0; k < tickets_; ++k) {
      const uint32_t slot = data_slots_.take(s);
      if (!windows_) {
        post_data(s, slot);
        if (with_meta_) post_meta(s, meta_slots_.take(s));
      }
      hold_credit(s, slot);
    }
    flush_credits(s);  // every slot at once: one credit where they follow each other
  }
}

Command MicroAgent::bench_command(BenchOp op) const {
  Command cmd;
  cmd.type = CommandType::bench;
  cmd.slot = static_cast<uint32_t>(op);
  cmd.event_id = static_cast<uint64_t>(step_);
  cmd.count = 1;
  return cmd;
}

void MicroAgent::post_data(size_t s, uint32_t slot) {
  engine_.recv(sources_[s].rank, bench_tag(step_, BenchStream::data), data_buffer(s, slot),
               data_size_, &arena_reg_, Engine::make_cookie(id_, cookie_of(kDataRecv, s, slot)));
}

void MicroAgent::post_meta(size_t s, uint32_t slot) {
  engine_.recv(sources_[s].rank, bench_tag(step_, BenchStream::meta), meta_buffer(s, slot),
               meta_size_, &arena_reg_, Engine::make_cookie(id_, cookie_of(kMetaRecv, s, slot)));
}

void MicroAgent::book(int64_t now, uint64_t bytes, int ru) {
  const bool network = ru != stats_.bu;  // another node's RU: the bytes crossed the driver
  stats_.bytes_total += bytes;
  if (network) stats_.network_bytes_total += bytes;
  if (now < window_begin_ns_ || now > deadline_ns_) return;
  stats_.step_bytes.at(step_) += bytes;
  if (network) stats_.step_network_bytes.at(step_) += bytes;
}

void MicroAgent::exchange_progress(size_t s) {
  Source& src = sources_[s];
  const uint64_t done = with_meta_ ? std::min(src.data_done, src.meta_done) : src.data_done;
  while (src.exchanges_credited < done) {
    ++src.exchanges_credited;
    if (!src.final) credit(s, 0);
  }
}

void MicroAgent::on_command(PeerId from, const Command& cmd) {
  const RankRoles& peer = topo_.ranks.at(from);
  if (cmd.type != CommandType::bench)
    throw PeerError(from, "micro-benchmark: unexpected command " +
                              std::to_string(static_cast<int>(cmd.type)) + " from " +
                              engine_.peer_name(from));
  if (cmd.event_id != static_cast<uint64_t>(step_)) return;  // another step's; cannot happen
  const int t = peer.bu >= 0 ? target_of_bu_[peer.bu] : -1;
  const int s = peer.ru >= 0 ? source_of_ru_[peer.ru] : -1;
  switch (static_cast<BenchOp>(cmd.slot)) {
    case BenchOp::credit:
    case BenchOp::ack:
      if (t < 0) break;
      if (static_cast<BenchOp>(cmd.slot) == BenchOp::ack) {
        targets_[t].acked = true;
        targets_[t].credits_announced = cmd.bytes;
        return;
      }
      take_credit(static_cast<size_t>(t), from, cmd);
      send_exchanges(now_ns());
      return;
    case BenchOp::final: {
      if (s < 0) break;
      Source& src = sources_[s];
      src.final = true;
      src.expected = cmd.bytes;
      src.pending = 0;  // the sender sends no more: held slots stay with the receiver
      Command ack = bench_command(BenchOp::ack);
      ack.ru = static_cast<uint32_t>(src.ru);
      ack.bu = static_cast<uint32_t>(stats_.bu);
      ack.bytes = src.credits_sent;
      engine_.send_command(src.rank, Channel::bench, ack);
      return;
    }
    case BenchOp::segment:
      if (s < 0) break;
      ++sources_[s].cmd_done;
      if (cmd.ru != static_cast<uint32_t>(sources_[s].ru) ||
          cmd.bu != static_cast<uint32_t>(stats_.bu))
        ++stats_.integrity.corrupt;
      book(now_ns(), config_.command_size, sources_[s].ru);
      return;
  }
  throw PeerError(from, "micro-benchmark: unexpected bench command " + std::to_string(cmd.slot) +
                            " from " + engine_.peer_name(from));
}

// What the receiver checks of every data message, sent or written: its
// length and its header (magic, source RU, this BU, this step).
bool MicroAgent::data_ok(size_t s, uint32_t slot, size_t bytes) const {
  BenchHeader h;
  std::memcpy(&h, data_buffer(s, slot), sizeof h);
  return bytes == data_size_ && h.magic == kBenchMagic &&
         h.source == static_cast<uint32_t>(sources_[s].ru) &&
         h.target == static_cast<uint32_t>(stats_.bu) && h.step == static_cast<uint32_t>(step_);
}

void MicroAgent::check_data(size_t s, uint32_t slot, size_t bytes, bool wrong_peer) {
  const bool alone = data_slots_.land(s, slot);
  if (shared_slots_ && !alone) {
    ++stats_.headers_unchecked;
    if (wrong_peer || bytes != data_size_) ++stats_.integrity.corrupt;
    return;
  }
  ++stats_.headers_checked;
  if (wrong_peer || !data_ok(s, slot, bytes)) ++stats_.integrity.corrupt;
}

// A write landed in this BU's arena (data_path write): the immediate names
// the arena slot and whether it is the data or the metadata part. Checked as
// a received message; the slot is credited again once every part of its
// exchange has landed.
void MicroAgent::on_write(const Completion& c) {
  const uint32_t arena_slot = c.immediate >> 1;
  const bool meta = c.immediate & 1;
  const size_t s = arena_slot / slots_;
  if (s >= sources_.size() || (meta && !with_meta_))
    throw PeerError(c.peer,
                    "micro-benchmark: a write from " +
                        (c.peer == kAnyPeer ? std::string("a peer") : engine_.peer_name(c.peer)) +
                        " names arena slot " + std::to_string(arena_slot) +
                        (meta ? " (metadata)" : "") + ", not one of this step's " +
                        std::to_string(sources_.size() * slots_));
  Source& src = sources_[s];
  const uint32_t slot = arena_slot % slots_;
  const bool wrong_peer = c.peer != kAnyPeer && c.peer != src.rank;
  if (meta) {
    if (wrong_peer || c.bytes != meta_size_) ++stats_.integrity.corrupt;
    ++src.meta_done;
  } else {
    check_data(s, slot, c.bytes, wrong_peer);
    ++src.data_done;
    ++stats_.events_built;
  }
  const int64_t now = now_ns();
  if (!meta && now >= window_begin_ns_ && now <= deadline_ns_) ++stats_.step_messages.at(step_);
  book(now, c.bytes, src.ru);
  // An exchange is done with its slot once all its parts landed (a shared
  // slot counts the parts of all its exchanges: each full set frees one).
  const uint8_t parts = with_meta_ ? 2 : 1;
  if (++landed_[arena_slot] < parts) return;
  landed_[arena_slot] -= parts;
  data_slots_.give_back(s, slot);
  if (!src.final) credit(s, data_slots_.take(s));
}

void MicroAgent::on_completion(const Completion& c) {
  if (c.type == OpType::remote_write) {
    on_write(c);
    return;
  }
  const uint64_t v = Engine::cookie_value(c.cookie);
  switch (kind_of(v)) {
    case kDataSendInline:
      --pool_slot_sends_.at(slot_of(v));
      --sends_in_flight_;
      data_sent(source_of(v));
      return;
    case kDataSend:
      headers_.release(slot_of(v));
      --sends_in_flight_;
      data_sent(source_of(v));
      return;
    case kMetaSend:
      --sends_in_flight_;
      stats_.bytes_sent += meta_size_;
      return;
    case kDataRecv: {
      const size_t s = source_of(v);
      const uint32_t slot = slot_of(v);
      Source& src = sources_.at(s);
      check_data(s, slot, c.bytes, false);
      ++src.data_done;
      ++stats_.events_built;
      const int64_t now = now_ns();
      if (now >= window_begin_ns_ && now <= deadline_ns_) ++stats_.step_messages.at(step_);
      book(now, c.bytes, src.ru);
      data_slots_.give_back(s, slot);
      if (!src.final) post_data(s, data_slots_.take(s));
      exchange_progress(s);
      return;
    }
    case kMetaRecv: {
      const size_t s = source_of(v);
      Source& src = sources_.at(s);
      if (c.bytes != meta_size_) ++stats_.integrity.corrupt;
      ++src.meta_done;
      book(now_ns(), c.bytes, src.ru);
      meta_slots_.give_back(s, slot_of(v));
      if (!src.final) post_meta(s, meta_slots_.take(s));
      exchange_progress(s);
      return;
    }
  }
  throw Error("micro-benchmark: completion with unknown cookie " + std::to_string(c.cookie));
}

void MicroAgent::on_tick(int64_t now) {
  if (!stopped_ && now >= deadline_ns_) stop_sending();
}

int64_t MicroAgent::next_timer_ns() const {
  return stopped_ ? -1 : deadline_ns_;
}

bool MicroAgent::receiver_done() const {
  for (const Source& s : sources_) {
    if (!s.final || s.data_done < s.expected) return false;
    if (with_meta_ && s.meta_done < s.expected) return false;
    if (with_cmd_ && s.cmd_done < s.expected) return false;
  }
  return true;
}

bool MicroAgent::done() const {
  return sender_done() && receiver_done();
}

std::string MicroAgent::waiting_for() const {
  std::string w = "micro-benchmark step " + std::to_string(step_) + ":";
  if (!stopped_) w += " RU " + std::to_string(stats_.ru) + " sending until the deadline;";
  if (sends_in_flight_) w += " " + std::to_string(sends_in_flight_) + " send(s) unfinished;";
  for (const Target& t : targets_) {
    if (stopped_ && !t.acked) w += " ack from " + engine_.peer_name(t.rank) + ";";
    if (t.acked && t.credits_received != t.credits_announced)
      w += " credits from " + engine_.peer_name(t.rank) + " (" +
           std::to_string(t.credits_received) + " of " + std::to_string(t.credits_announced) + ");";
  }
  for (const Source& s : sources_) {
    if (!s.final) {
      w += " final from " + engine_.peer_name(s.rank) + ";";
      continue;
    }
    if (s.data_done < s.expected || (with_meta_ && s.meta_done < s.expected) ||
        (with_cmd_ && s.cmd_done < s.expected))
      w += " messages from " + engine_.peer_name(s.rank) + " (data " + std::to_string(s.data_done) +
           ", meta " + std::to_string(s.meta_done) + ", cmd " + std::to_string(s.cmd_done) +
           " of " + std::to_string(s.expected) + ");";
  }
  return w;
}

}  // namespace evb::micro
