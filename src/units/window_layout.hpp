#pragma once
// WindowLayout: where fragments land in a BU's memory. Per event slot, one
// window per RU, sized for that RU's largest fragment (header, MEP table,
// metadata, p events' largest payloads). It follows from the configuration alone, so every rank
// computes the same layout: an RU writing into a BU's windows (data_path: write) knows the offset
// of (slot, RU) without being told.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/config.hpp"

namespace evb {

class WindowLayout {
 public:
  explicit WindowLayout(const Config& config);
  size_t offset(uint32_t slot, int ru) const { return slot * slot_stride_ + window_offset_[ru]; }
  size_t size(int ru) const { return window_size_[ru]; }
  size_t slots() const { return slots_; }
  size_t total() const { return slot_stride_ * slots_; }

 private:
  std::vector<size_t> window_size_;
  std::vector<size_t> window_offset_;
  size_t slot_stride_ = 0;
  size_t slots_ = 0;
};

}  // namespace evb
