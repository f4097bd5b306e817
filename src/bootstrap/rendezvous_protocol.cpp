#include "bootstrap/rendezvous_protocol.hpp"

namespace evb::boot {

const char* op_name(Op op) {
  switch (op) {
    case Op::allgather:
      return "allgather";
    case Op::gather:
      return "gather";
    case Op::barrier:
      return "barrier";
  }
  return "?";
}

namespace {

class Writer {
 public:
  explicit Writer(MsgType t) {
    out_.assign(4, '\0');
    u8(static_cast<uint8_t>(t));
  }
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u16(uint16_t v) { be(v, 2); }
  void u32(uint32_t v) { be(v, 4); }
  void u64(uint64_t v) { be(v, 8); }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void strs(const std::vector<std::string>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (const auto& s : v) str(s);
  }
  std::string finish() {
    uint64_t body = out_.size() - 4;
    if (body > kMaxFrame)
      throw ProtocolError("bootstrap: message of " + std::to_string(body) +
                          " bytes exceeds the 1 GiB frame limit");
    for (int i = 0; i < 4; ++i) out_[i] = static_cast<char>((body >> (24 - 8 * i)) & 0xff);
    return std::move(out_);
  }

 private:
  void be(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string out_;
};

class Reader {
 public:
  Reader(const std::string& body, MsgType expect) : b_(body) {
    if (body_type(body) != expect) throw ProtocolError("bootstrap: unexpected message type");
    pos_ = 1;
  }
  uint8_t u8() { return static_cast<uint8_t>(be(1)); }
  uint16_t u16() { return static_cast<uint16_t>(be(2)); }
  uint32_t u32() { return static_cast<uint32_t>(be(4)); }
  uint64_t u64() { return be(8); }
  std::string str() {
    uint32_t n = u32();
    need(n);
    std::string s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<std::string> strs() {
    uint32_t n = u32();
    if (n > b_.size()) throw ProtocolError("bootstrap: malformed message (list too long)");
    std::vector<std::string> v;
    v.reserve(n);
    for (uint32_t i = 0; i < n; ++i) v.push_back(str());
    return v;
  }
  void end() {
    if (pos_ != b_.size()) throw ProtocolError("bootstrap: malformed message (trailing bytes)");
  }

 private:
  void need(size_t n) {
    if (b_.size() - pos_ < n) throw ProtocolError("bootstrap: malformed message (truncated)");
  }
  uint64_t be(int n) {
    need(static_cast<size_t>(n));
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(b_[pos_++]);
    return v;
  }
  const std::string& b_;
  size_t pos_ = 0;
};

}  // namespace

std::string encode_hello(const Hello& m) {
  Writer w(MsgType::hello);
  w.u32(m.magic);
  w.u16(m.version);
  w.str(m.token);
  w.u32(static_cast<uint32_t>(m.rank));
  w.u32(static_cast<uint32_t>(m.size));
  w.str(m.hostname);
  return w.finish();
}

std::string encode_welcome(const std::vector<std::string>& hostnames) {
  Writer w(MsgType::welcome);
  w.strs(hostnames);
  return w.finish();
}

std::string encode_reject(const std::string& why) {
  Writer w(MsgType::reject);
  w.str(why);
  return w.finish();
}

std::string encode_busy(const std::string& why) {
  Writer w(MsgType::busy);
  w.str(why);
  return w.finish();
}

std::string encode_contrib(const Contrib& m) {
  Writer w(MsgType::contrib);
  w.u64(m.seq);
  w.u8(static_cast<uint8_t>(m.op));
  w.str(m.data);
  return w.finish();
}

std::string encode_result(const Result& m) {
  Writer w(MsgType::result);
  w.u64(m.seq);
  w.strs(m.values);
  return w.finish();
}

std::string encode_fail(const Fail& m) {
  Writer w(MsgType::fail);
  w.u8(static_cast<uint8_t>(m.kind));
  w.u32(static_cast<uint32_t>(m.rank));
  w.str(m.message);
  return w.finish();
}

std::string encode_abort(const std::string& why) {
  Writer w(MsgType::abort);
  w.str(why);
  return w.finish();
}

std::string encode_goodbye() {
  return Writer(MsgType::goodbye).finish();
}
std::string encode_bye() {
  return Writer(MsgType::bye).finish();
}

MsgType body_type(const std::string& body) {
  if (body.empty()) throw ProtocolError("bootstrap: malformed message (empty)");
  auto t = static_cast<uint8_t>(body[0]);
  if (t < 1 || t > 10) throw ProtocolError("bootstrap: unknown message type " + std::to_string(t));
  return static_cast<MsgType>(t);
}

Hello decode_hello(const std::string& body) {
  Reader r(body, MsgType::hello);
  Hello m;
  m.magic = r.u32();
  m.version = r.u16();
  m.token = r.str();
  m.rank = static_cast<int32_t>(r.u32());
  m.size = static_cast<int32_t>(r.u32());
  m.hostname = r.str();
  r.end();
  return m;
}

std::vector<std::string> decode_welcome(const std::string& body) {
  Reader r(body, MsgType::welcome);
  auto v = r.strs();
  r.end();
  return v;
}

std::string decode_reject(const std::string& body) {
  Reader r(body, MsgType::reject);
  auto s = r.str();
  r.end();
  return s;
}

std::string decode_busy(const std::string& body) {
  Reader r(body, MsgType::busy);
  auto s = r.str();
  r.end();
  return s;
}

Contrib decode_contrib(const std::string& body) {
  Reader r(body, MsgType::contrib);
  Contrib m;
  m.seq = r.u64();
  uint8_t op = r.u8();
  if (op < 1 || op > 3) throw ProtocolError("bootstrap: unknown collective " + std::to_string(op));
  m.op = static_cast<Op>(op);
  m.data = r.str();
  r.end();
  return m;
}

Result decode_result(const std::string& body) {
  Reader r(body, MsgType::result);
  Result m;
  m.seq = r.u64();
  m.values = r.strs();
  r.end();
  return m;
}

Fail decode_fail(const std::string& body) {
  Reader r(body, MsgType::fail);
  Fail m;
  m.kind = static_cast<FailKind>(r.u8());
  m.rank = static_cast<int32_t>(r.u32());
  m.message = r.str();
  r.end();
  return m;
}

std::string decode_abort(const std::string& body) {
  Reader r(body, MsgType::abort);
  auto s = r.str();
  r.end();
  return s;
}

uint32_t frame_length(const char* p) {
  return (uint32_t{static_cast<uint8_t>(p[0])} << 24) |
         (uint32_t{static_cast<uint8_t>(p[1])} << 16) |
         (uint32_t{static_cast<uint8_t>(p[2])} << 8) | uint32_t{static_cast<uint8_t>(p[3])};
}

bool take_frame(std::string* buf, uint32_t max_frame, std::string* body) {
  if (buf->size() < 4) return false;
  uint32_t n = frame_length(buf->data());
  if (n > max_frame)
    throw ProtocolError("bootstrap: frame of " + std::to_string(n) +
                        " bytes exceeds the limit of " + std::to_string(max_frame));
  if (buf->size() < 4 + uint64_t{n}) return false;
  body->assign(*buf, 4, n);
  buf->erase(0, 4 + size_t{n});
  return true;
}

}  // namespace evb::boot
