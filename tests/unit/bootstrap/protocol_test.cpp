#include <gtest/gtest.h>

#include "bootstrap/rendezvous_protocol.hpp"
#include "bootstrap/socket_util.hpp"
#include "core/error.hpp"

namespace evb::boot {
namespace {

std::string body_of(std::string frame) {
  std::string body;
  EXPECT_TRUE(take_frame(&frame, kMaxFrame, &body));
  EXPECT_TRUE(frame.empty());
  return body;
}

TEST(RendezvousProtocol, HelloRoundTrip) {
  Hello h;
  h.token = "slurm-42.0";
  h.rank = 3;
  h.size = 5;
  h.hostname = "node07";
  Hello d = decode_hello(body_of(encode_hello(h)));
  EXPECT_EQ(d.magic, kMagic);
  EXPECT_EQ(d.version, kVersion);
  EXPECT_EQ(d.token, "slurm-42.0");
  EXPECT_EQ(d.rank, 3);
  EXPECT_EQ(d.size, 5);
  EXPECT_EQ(d.hostname, "node07");
}

TEST(RendezvousProtocol, ResultWithLargeAndBinaryValues) {
  Result r;
  r.seq = 7;
  r.values = {std::string(3 << 20, 'x'), std::string("\0\1\2", 3), ""};
  Result d = decode_result(body_of(encode_result(r)));
  EXPECT_EQ(d.seq, 7u);
  EXPECT_EQ(d.values, r.values);
}

TEST(RendezvousProtocol, ContribFailAbort) {
  Contrib c{12, Op::gather, "abc"};
  Contrib dc = decode_contrib(body_of(encode_contrib(c)));
  EXPECT_EQ(dc.seq, 12u);
  EXPECT_EQ(dc.op, Op::gather);
  EXPECT_EQ(dc.data, "abc");
  Fail f{FailKind::peer_lost, 3, "bootstrap: rank 3 disappeared (connection closed)"};
  Fail df = decode_fail(body_of(encode_fail(f)));
  EXPECT_EQ(df.kind, FailKind::peer_lost);
  EXPECT_EQ(df.rank, 3);
  EXPECT_EQ(df.message, f.message);
  EXPECT_EQ(decode_abort(body_of(encode_abort("why"))), "why");
  EXPECT_EQ(decode_busy(body_of(encode_busy("come back"))), "come back");
  EXPECT_EQ(body_type(body_of(encode_busy("x"))), MsgType::busy);
  EXPECT_THROW(decode_reject(body_of(encode_busy("x"))), ProtocolError);
}

TEST(RendezvousProtocol, PartialFramesWaitAndOversizedFramesThrow) {
  std::string frame = encode_reject("no"), buf, body;
  buf = frame.substr(0, 5);
  EXPECT_FALSE(take_frame(&buf, kMaxFrame, &body));
  buf += frame.substr(5) + frame;
  EXPECT_TRUE(take_frame(&buf, kMaxFrame, &body));
  EXPECT_EQ(decode_reject(body), "no");
  EXPECT_TRUE(take_frame(&buf, kMaxFrame, &body));
  EXPECT_TRUE(buf.empty());
  std::string huge("\x7f\xff\xff\xff", 4);
  EXPECT_THROW(take_frame(&huge, kMaxHelloFrame, &body), ProtocolError);
}

TEST(RendezvousProtocol, MalformedBodiesThrow) {
  std::string body = body_of(encode_hello(Hello{}));
  EXPECT_THROW(decode_hello(body.substr(0, body.size() - 1)), ProtocolError);
  EXPECT_THROW(decode_contrib(body), ProtocolError);  // wrong type
  EXPECT_THROW(body_type(std::string("\x63", 1)), ProtocolError);
}

TEST(HostPort, Parses) {
  std::string h;
  int p = 0;
  split_host_port("node1.cluster:7777", "EVBENCH_RENDEZVOUS", &h, &p);
  EXPECT_EQ(h, "node1.cluster");
  EXPECT_EQ(p, 7777);
  split_host_port("[::1]:80", "X", &h, &p);
  EXPECT_EQ(h, "::1");
  EXPECT_EQ(p, 80);
  EXPECT_THROW(split_host_port("node1", "EVBENCH_RENDEZVOUS", &h, &p), ConfigError);
  EXPECT_THROW(split_host_port(":7777", "EVBENCH_RENDEZVOUS", &h, &p), ConfigError);
  EXPECT_THROW(split_host_port("h:0", "EVBENCH_RENDEZVOUS", &h, &p), ConfigError);
  EXPECT_THROW(split_host_port("h:77x", "EVBENCH_RENDEZVOUS", &h, &p), ConfigError);
  try {
    split_host_port("node1", "EVBENCH_RENDEZVOUS", &h, &p);
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("EVBENCH_RENDEZVOUS=\"node1\""), std::string::npos);
  }
}

}  // namespace
}  // namespace evb::boot
