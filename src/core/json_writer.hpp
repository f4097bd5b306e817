#pragma once
// Minimal streaming JSON writer (objects, arrays, scalars) for results:
// indented, one member or element a line; or compact (no whitespace at all)
// for bodies sent often, such as the monitor's /api/state.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace evb {

class JsonWriter {
 public:
  explicit JsonWriter(bool compact = false) : compact_(compact) {}
  JsonWriter& begin_object(const std::string& key = {});
  JsonWriter& end_object();
  JsonWriter& begin_array(const std::string& key = {});
  JsonWriter& end_array();
  JsonWriter& value(const std::string& key, const std::string& v);
  JsonWriter& value(const std::string& key, const char* v) { return value(key, std::string(v)); }
  JsonWriter& value(const std::string& key, double v);
  JsonWriter& value(const std::string& key, int64_t v);
  JsonWriter& value(const std::string& key, uint64_t v);
  JsonWriter& value(const std::string& key, int v) { return value(key, static_cast<int64_t>(v)); }
  JsonWriter& value(const std::string& key, bool v);
  // Inserts already-serialized JSON (e.g. the resolved config).
  JsonWriter& raw(const std::string& key, const std::string& json);
  std::string str() const { return out_.str(); }

  static std::string escape(const std::string& s);

 private:
  void key_prefix(const std::string& key);
  void newline();  // and the indent of the depth (nothing when compact)
  std::ostringstream out_;
  std::vector<bool> first_{true};
  int depth_ = 0;
  bool compact_ = false;
};

}  // namespace evb
