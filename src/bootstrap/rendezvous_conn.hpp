#pragma once
// RendezvousServer::Conn: one client connection of the rendezvous server —
// its socket, the bytes read and not yet framed, the frames queued to send,
// and the rank it said it is (-1 until a valid Hello). Private to the
// server's two sources (rendezvous_server.cpp: the poll loop and the socket
// I/O; rendezvous_rounds.cpp: what each message does).
#include <deque>
#include <memory>
#include <string>

#include "bootstrap/rendezvous_server.hpp"

namespace evb::boot {

struct RendezvousServer::Conn {
  Fd fd;
  std::string addr;
  std::string in;
  std::deque<std::shared_ptr<const std::string>> out;
  size_t out_off = 0;
  int rank = -1;
  Clock::time_point hello_deadline;
  bool close_after_flush = false;
  bool dead = false;
};

}  // namespace evb::boot
