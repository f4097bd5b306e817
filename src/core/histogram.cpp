#include "core/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

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

Histogram Histogram::deserialize(const std::string& text) {
  Histogram h;
  const auto semi = text.find(';');
  std::istringstream items(text.substr(0, semi));
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) continue;
    const int b = std::stoi(item.substr(0, colon));
    if (b >= 0 && b < kBuckets) h.buckets_[b] = std::stoull(item.substr(colon + 1));
  }
  std::istringstream rest(text.substr(semi + 1));
  char sep;
  rest >> h.count_ >> sep >> h.max_;
  return h;
}

}  // namespace evb
