#include "core/histogram.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>

#include "core/error.hpp"

namespace evb {
namespace {
constexpr double kBase = 1.02;       // bucket growth factor
constexpr double kFirstNs = 1000.0;  // bucket 0 holds everything below 1 us
constexpr int kBuckets = 1200;       // 1 us * 1.02^1200 ~ 2e10 s: plenty
}  // namespace

Histogram::Histogram() : buckets_(kBuckets, 0) {}

int Histogram::bucket_of(int64_t ns) {
  if (ns <= kFirstNs) return 0;
  const int b =
      1 + static_cast<int>(std::log(static_cast<double>(ns) / kFirstNs) / std::log(kBase));
  return std::min(b, kBuckets - 1);
}

int64_t Histogram::upper_edge(int bucket) {
  return static_cast<int64_t>(kFirstNs * std::pow(kBase, bucket));
}

void Histogram::add(int64_t ns) {
  ++buckets_[bucket_of(ns)];
  ++count_;
  max_ = std::max(max_, ns);
}

void Histogram::merge(const Histogram& o) {
  for (int i = 0; i < kBuckets; ++i) buckets_[i] += o.buckets_[i];
  count_ += o.count_;
  max_ = std::max(max_, o.max_);
}

int64_t Histogram::quantile(double q) const {
  if (count_ == 0) return 0;
  const uint64_t target = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * count_)));
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= target) return std::min(upper_edge(i), max_);
  }
  return max_;
}

std::string Histogram::serialize() const {
  std::ostringstream os;
  for (int i = 0; i < kBuckets; ++i)
    if (buckets_[i]) os << i << ':' << buckets_[i] << ',';
  os << ';' << count_ << ';' << max_;
  return os.str();
}

namespace {
// One unsigned number filling all of `text`, or nullopt.
std::optional<uint64_t> whole_number(std::string_view text) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}
[[noreturn]] void refuse(const std::string& why) {
  throw Error("latency histogram: " + why);
}
}  // namespace

// Reads what serialize() wrote and nothing else: the text comes from
// another rank, so every item is checked (a number where one belongs, a
// bucket in range and given once, the count equal to the buckets' sum).
Histogram Histogram::deserialize(const std::string& text) {
  Histogram h;
  const auto first = text.find(';');
  const auto second = first == std::string::npos ? first : text.find(';', first + 1);
  if (second == std::string::npos) refuse("not of the form items;count;max");
  std::string_view items(text.data(), first);
  uint64_t sum = 0;
  while (!items.empty()) {
    const auto comma = items.find(',');
    const std::string_view item = items.substr(0, comma);
    items = comma == std::string_view::npos ? std::string_view() : items.substr(comma + 1);
    const auto colon = item.find(':');
    const auto b = whole_number(item.substr(0, colon));
    const auto n =
        colon == std::string_view::npos ? std::nullopt : whole_number(item.substr(colon + 1));
    if (!b || !n || *n == 0) refuse("a bucket item that is not index:count");
    if (*b >= static_cast<uint64_t>(kBuckets)) refuse("a bucket index out of range");
    if (h.buckets_[*b] != 0) refuse("a bucket given twice");
    if (*n > std::numeric_limits<uint64_t>::max() - sum) refuse("bucket counts that overflow");
    h.buckets_[*b] = *n;
    sum += *n;
  }
  const auto count = whole_number(std::string_view(text).substr(first + 1, second - first - 1));
  const auto max = whole_number(std::string_view(text).substr(second + 1));
  if (!count || !max) refuse("a count or maximum that is not a number");
  if (*count != sum) refuse("a count that is not the sum of its buckets");
  if (*max > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    refuse("a maximum out of range");
  h.count_ = *count;
  h.max_ = static_cast<int64_t>(*max);
  return h;
}

}  // namespace evb
