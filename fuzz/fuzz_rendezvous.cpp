// libFuzzer target: the rendezvous protocol (bootstrap/rendezvous_protocol.*)
// as the server reads it from a connection that has not identified itself:
// frames split off a byte stream with the hello limit, each body decoded as
// whatever type its first byte names.
//
// Asserts: only ProtocolError is thrown; a frame taken is never longer than
// the limit and consumes exactly 4 + length bytes of the buffer; a body that
// decodes re-encodes to the same frame (length prefix + body; goodbye and bye
// carry no fields), so the decoder accepts nothing the encoder would not write.
#include <cstddef>
#include <cstdint>
#include <string>

#include "bootstrap/rendezvous_protocol.hpp"
#include "fuzz_assert.hpp"

namespace {

using namespace evb::boot;

std::string framed(const std::string& body) {
  std::string f(4, '\0');
  const auto n = static_cast<uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) f[i] = static_cast<char>((n >> (24 - 8 * i)) & 0xff);
  return f + body;
}

// Decodes `body` by its type and re-encodes it.
std::string round_trip(const std::string& body) {
  switch (body_type(body)) {
    case MsgType::hello:
      return encode_hello(decode_hello(body));
    case MsgType::welcome:
      return encode_welcome(decode_welcome(body));
    case MsgType::reject:
      return encode_reject(decode_reject(body));
    case MsgType::busy:
      return encode_busy(decode_busy(body));
    case MsgType::contrib:
      return encode_contrib(decode_contrib(body));
    case MsgType::result:
      return encode_result(decode_result(body));
    case MsgType::fail:
      return encode_fail(decode_fail(body));
    case MsgType::abort:
      return encode_abort(decode_abort(body));
    case MsgType::goodbye:  // no fields: what follows the type byte is ignored
      return encode_goodbye();
    case MsgType::bye:
      return encode_bye();
  }
  FUZZ_ASSERT(false, "body_type returned a type outside MsgType");
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string buf(reinterpret_cast<const char*>(data), size);
  std::string body;
  try {
    for (;;) {
      const size_t before = buf.size();
      if (!take_frame(&buf, kMaxHelloFrame, &body)) break;
      FUZZ_ASSERT(body.size() <= kMaxHelloFrame, "a frame above the limit was taken");
      FUZZ_ASSERT(before - buf.size() == 4 + body.size(), "a frame consumes 4 + length bytes");
      try {
        const std::string again = round_trip(body);
        const bool bare = body_type(body) == MsgType::goodbye || body_type(body) == MsgType::bye;
        FUZZ_ASSERT(again == framed(bare ? body.substr(0, 1) : body),
                    "a decoded body re-encodes to the same frame");
      } catch (const ProtocolError&) {
        // Malformed body: refused, the stream goes on with the next frame.
      }
    }
  } catch (const ProtocolError&) {
    // A length above the limit: the server drops the connection.
  }
  return 0;
}
