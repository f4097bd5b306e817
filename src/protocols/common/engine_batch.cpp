// The Engine's command batches (batch.events > 1): commands held back per
// peer and channel (CommandBatcher) and sent several to a message, and a
// received batch checked before its commands reach their agent.
#include <string>

#include "core/command_batch.hpp"
#include "core/error.hpp"
#include "protocols/common/engine.hpp"

namespace evb {

void Engine::hold_command(PeerId peer, Channel channel, const Command& cmd) {
  if (batcher_.add(peer, channel, cmd, now_ns())) send_batch(peer, channel);
}

void Engine::flush_lists(Channel channel) {
  batcher_.lists_on(channel, flushing_);
  for (const CommandBatcher::Key& k : flushing_) send_batch(k.peer, k.channel);
}

void Engine::flush_due(int64_t now) {
  batcher_.lists_due(now, flushing_);
  for (const CommandBatcher::Key& k : flushing_) send_batch(k.peer, k.channel);
}

void Engine::send_batch(PeerId peer, Channel channel) {
  batcher_.take(peer, channel, batch_out_);
  if (batch_out_.empty()) return;
  if (batch_out_.size() == 1) {
    post_command(peer, channel, batch_out_.data(), sizeof(Command));
    return;
  }
  // The list fits: batch.events is at most kMaxBatchEvents and command_size
  // holds batch_message_size(batch.events) (the event builders' key rules).
  const size_t size = batch_message_size(static_cast<int>(batch_out_.size()));
  if (size > config_.command_size)
    throw Error("rank " + std::to_string(rank_) + ": a batch of " +
                std::to_string(batch_out_.size()) + " commands does not fit in command_size " +
                std::to_string(config_.command_size) + " B");
  unsigned char buffer[batch_message_size(kMaxBatchEvents)];
  encode_batch(batch_out_, buffer);
  post_command(peer, channel, buffer, size);
}

void Engine::take_batch(PeerId from, const Command& head, const std::byte* bytes, size_t size) {
  const std::string problem = decode_batch(head, bytes, size, config_.batch.events, batch_in_);
  if (!problem.empty())
    throw PeerError(from, "rank " + std::to_string(rank_) + ": a command batch from " +
                              peer_name(from) + " refused: " + problem);
}

}  // namespace evb
