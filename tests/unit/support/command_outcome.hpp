#pragma once
// What an agent makes of a command in a test: "accepted", or the text of
// the PeerError it refused it with (which must name the sender).
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "protocols/common/engine.hpp"

namespace evb::test_support {

inline std::string command_outcome(Agent& a, PeerId from, const Command& cmd) {
  try {
    a.on_command(from, cmd);
  } catch (const PeerError& e) {
    EXPECT_EQ(e.peer(), from);
    return e.what();
  }
  return "accepted";
}

}  // namespace evb::test_support
