#include "protocols/common/rank_stats.hpp"

#include "protocols/common/stats_fields.hpp"

namespace evb {

std::string RankStats::serialize() const {
  return encode_record(*this);
}

RankStats RankStats::deserialize(const std::string& text) {
  return decode_record<RankStats>(text);
}

}  // namespace evb
