// The rules on batch.events (command batches, core/command_batch.hpp) that
// the event builders add: a batch fits in `credits`, in `command_size` and
// in one message of the driver; PULL-without-EVM, which has no credits or
// assignments to batch, refuses batches.
#include <string>

#include "core/command_batch.hpp"
#include "core/config.hpp"
#include "core/config_detail.hpp"
#include "protocols/event_building/event_building_run.hpp"

namespace evb {
namespace {

std::optional<KeyProblem> within_credits(const Config& c, const PluginKeys&) {
  if (c.batch.events <= c.credits) return std::nullopt;
  return KeyProblem{{"batch.events", "credits"},
                    "batch.events (" + std::to_string(c.batch.events) + ") exceeds credits (" +
                        std::to_string(c.credits) +
                        "): a BU cannot have that many free slots to credit at once (leave "
                        "credits unset and it rises to twice batch.events)"};
}

std::optional<KeyProblem> fits_command_size(const Config& c, const PluginKeys&) {
  const uint64_t need = batch_message_size(c.batch.events);
  if (c.batch.events <= 1 || c.command_size >= need) return std::nullopt;
  return KeyProblem{{"command_size", "batch.events"},
                    "command_size (" + config_detail::format_size(c.command_size) +
                        ") cannot hold a batch of " + std::to_string(c.batch.events) +
                        " commands, which takes " + config_detail::format_size(need) +
                        " (leave command_size unset and it grows to fit)"};
}

std::optional<KeyProblem> fits_driver(const Config& c, const PluginKeys& p) {
  const auto caps = config_detail::capabilities_of(c, p);
  if (!caps || caps->max_message == 0 || c.command_size <= caps->max_message) return std::nullopt;
  return KeyProblem{{"command_size", "batch.events", "driver"},
                    "a command message of " + config_detail::format_size(c.command_size) +
                        " is larger than driver " + c.driver + " sends (" +
                        config_detail::format_size(caps->max_message) + ")"};
}

std::optional<KeyProblem> no_batches(const Config& c, const PluginKeys&) {
  if (c.batch.events <= 1) return std::nullopt;
  return KeyProblem{{"batch.events", "protocol"},
                    "batch.events (" + std::to_string(c.batch.events) +
                        ") is for pull and push: " + c.protocol +
                        " has no EVM, hence no credits or assignments to batch; set "
                        "batch.events to 1 or leave it unset"};
}

}  // namespace

std::vector<KeyRule> batch_rules(bool with_evm) {
  if (!with_evm)
    return {
        {"`batch.events` is 1 for an event builder without an EVM (nothing to batch)", no_batches}};
  return {
      {"`batch.events` does not exceed `credits` (a BU credits that many free slots at once)",
       within_credits},
      {"`command_size` holds a batch of `batch.events` commands (64 B each behind a 64 B "
       "header)",
       fits_command_size},
      {"`command_size` fits in one message of the selected `driver`", fits_driver},
  };
}

}  // namespace evb
