#include "protocols/common/failure_record.hpp"

#include <array>

#include "protocols/common/stats_fields.hpp"

namespace evb {
namespace {

// An earlier evbench wrote a record as a list in this order, the action
// last and optional: read by these names, so by the same table.
constexpr std::array<const char*, 8> kListOrder{"unit",           "rank",          "cause",
                                                "lost_at_s",      "detected_at_s", "reassigned",
                                                "recovered_at_s", "action"};

FailureRecord decode_list(const YAML::Node& n) {
  if (n.size() < kListOrder.size() - 1 || n.size() > kListOrder.size())
    throw Error("failure record: a list of " + std::to_string(n.size()) + " values, not 7 or 8");
  FailureRecord r;
  std::array<bool, field_count<FailureRecord>()> seen{};
  for (size_t k = 0; k < n.size(); ++k) {
    try {
      read_field(r, kListOrder[k], n[k], seen);
    } catch (const FieldShapeError& e) {
      throw Error("failure record: " + e.what);
    }
  }
  return r;
}

}  // namespace

std::string FailureRecord::encode() const {
  return encode_record(*this);
}

FailureRecord FailureRecord::decode(const std::string& text) {
  const YAML::Node n = load_record_text("failure record", text);
  return n.IsSequence() ? decode_list(n) : record_from_node<FailureRecord>(n);
}

}  // namespace evb
