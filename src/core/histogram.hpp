#pragma once
// Log-bucketed latency histogram (about 2 % resolution from 1 us to ~1 h).
// Histograms from many ranks merge by adding buckets.
#include <cstdint>
#include <string>
#include <vector>

namespace evb {

class Histogram {
 public:
  Histogram();
  void add(int64_t ns);
  void merge(const Histogram& other);
  uint64_t count() const { return count_; }
  // Value (ns) at quantile q in [0,1]: the upper edge of the bucket reached.
  int64_t quantile(double q) const;
  int64_t max() const { return max_; }
  // Compact text form "i:n,i:n,...;count;max" for the bootstrap gather;
  // deserialize refuses any other text with evb::Error.
  std::string serialize() const;
  static Histogram deserialize(const std::string& text);

 private:
  static int bucket_of(int64_t ns);
  static int64_t upper_edge(int bucket);
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  int64_t max_ = 0;
};

}  // namespace evb
