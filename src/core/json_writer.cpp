#include "core/json_writer.hpp"

#include <cmath>
#include <cstdio>

namespace evb {

std::string JsonWriter::escape(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\t':
        o += "\\t";
        break;
      case '\r':
        o += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

void JsonWriter::key_prefix(const std::string& key) {
  if (!first_.back()) out_ << ',';
  first_.back() = false;
  newline();
  if (!key.empty()) out_ << escape(key) << (compact_ ? ":" : ": ");
}

void JsonWriter::newline() {
  if (!compact_) out_ << '\n' << std::string(2 * depth_, ' ');
}

JsonWriter& JsonWriter::begin_object(const std::string& key) {
  if (depth_ > 0 || !first_.back()) key_prefix(key);
  out_ << '{';
  first_.push_back(true);
  ++depth_;
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  first_.pop_back();
  --depth_;
  newline();
  out_ << '}';
  return *this;
}

JsonWriter& JsonWriter::begin_array(const std::string& key) {
  key_prefix(key);
  out_ << '[';
  first_.push_back(true);
  ++depth_;
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  first_.pop_back();
  --depth_;
  newline();
  out_ << ']';
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, const std::string& v) {
  key_prefix(key);
  out_ << escape(v);
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, double v) {
  key_prefix(key);
  if (!std::isfinite(v)) {
    out_ << "null";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    out_ << buf;
  }
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, int64_t v) {
  key_prefix(key);
  out_ << v;
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, uint64_t v) {
  key_prefix(key);
  out_ << v;
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, bool v) {
  key_prefix(key);
  out_ << (v ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::raw(const std::string& key, const std::string& json) {
  key_prefix(key);
  out_ << json;
  return *this;
}

}  // namespace evb
