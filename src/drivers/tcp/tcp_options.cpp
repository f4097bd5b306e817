// The tcp driver's options: one row each (drivers/common/option_table.hpp).
#include "drivers/tcp/tcp_options.hpp"

#include "drivers/common/chassis_options.hpp"
#include "drivers/common/option_table.hpp"

namespace evb::tcp {

namespace {

using T = OptionTable<TcpOptions>;

const T& table() {
  static const T rows(
      {
          T::text("bind", &TcpOptions::bind, "auto",
                  "listen address; auto = 127.0.0.1 when all ranks are local, else 0.0.0.0 "
                  "advertising the host's primary address"),
          T::integer("port", &TcpOptions::port, "0", "", 0, 65535, "listen port; 0 = ephemeral"),
          T::size("sndbuf", T::nested(&TcpOptions::socket, &SocketOptions::sndbuf), "0", 0,
                  2147483647.0, "SO_SNDBUF per connection; 0 = kernel default (autotuning)"),
          T::size("rcvbuf", T::nested(&TcpOptions::socket, &SocketOptions::rcvbuf), "0", 0,
                  2147483647.0, "SO_RCVBUF per connection; 0 = kernel default (autotuning)"),
          T::boolean("nodelay", T::nested(&TcpOptions::socket, &SocketOptions::nodelay), "true",
                     "TCP_NODELAY (disable Nagle) on every connection"),
          T::boolean(
              "rcvlowat", [](TcpOptions& o, bool on) { o.limits.rcvlowat = on ? kRcvLowatCap : 0; },
              "true",
              "while a large payload is half read, SO_RCVLOWAT = the bytes still missing (capped "
              "by "
              "the kernel at half the receive buffer): a waiting rank is woken once per message, "
              "not "
              "once per segment"),
          T::size("unexpected_bytes", T::nested(&TcpOptions::unexpected, &UnexpectedLimits::bytes),
                  "256MiB", 0, 1073741824.0,
                  "most bytes buffered for messages whose receive is not posted yet (all peers); a "
                  "peer "
                  "that sends past it is dropped as broken"),
          T::integer("unexpected_messages",
                     T::nested(&TcpOptions::unexpected, &UnexpectedLimits::messages), "65536", "",
                     0, 1e9, "most messages buffered before their receive is posted (all peers)"),
      },
      chassis_rows<TcpOptions>({"how long connect() waits for all peers before failing",
                                "how long shutdown() waits to flush queued sends and the BYE"}));
  return rows;
}

}  // namespace

const std::vector<KeySpec>& tcp_option_specs() {
  return table().specs();
}

TcpOptions parse_tcp_options(const Config* config) {
  return table().parse(config);
}

}  // namespace evb::tcp
