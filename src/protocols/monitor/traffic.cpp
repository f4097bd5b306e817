#include "protocols/monitor/traffic.hpp"

namespace evb {
namespace {

size_t node_count(int nodes) {
  return nodes > 0 ? static_cast<size_t>(nodes) : 0;
}

template <typename T>
std::vector<T> grouped(const std::vector<T>& m, int nodes) {
  const size_t n = node_count(nodes);
  const size_t size = matrix_group_size(nodes);
  const size_t groups = matrix_groups(nodes);
  // Rows per RU, or already per RU group (a row's group: r / row_size).
  const size_t rows = m.size() == n * n ? n : groups;
  if (n == 0 || m.size() != rows * n) return {};
  const size_t row_size = rows == n ? size : 1;
  std::vector<T> out(groups * groups, T{});
  for (size_t r = 0; r < rows; ++r) {
    T* row = &out[(r / row_size) * groups];
    for (size_t b = 0; b < n; ++b) row[b / size] += m[r * n + b];
  }
  return out;
}

}  // namespace

size_t matrix_group_size(int nodes) {
  const size_t n = node_count(nodes);
  if (nodes <= kMatrixFullNodes) return 1;
  return (n + kMatrixGroups - 1) / kMatrixGroups;
}

size_t matrix_groups(int nodes) {
  const size_t size = matrix_group_size(nodes);
  return (node_count(nodes) + size - 1) / size;
}

size_t matrix_rows(int nodes) {
  return nodes > kMatrixFullNodes ? matrix_groups(nodes) : node_count(nodes);
}

void matrix_row(const std::vector<uint64_t>& per_ru, int nodes, std::vector<uint64_t>& row) {
  const size_t rows = matrix_rows(nodes);
  const size_t size = rows == node_count(nodes) ? 1 : matrix_group_size(nodes);
  row.assign(rows, 0);
  for (size_t r = 0; r < per_ru.size() && r / size < rows; ++r) row[r / size] += per_ru[r];
}

std::string matrix_group_label(int nodes, size_t g) {
  const size_t size = matrix_group_size(nodes);
  const size_t first = g * size;
  size_t last = first + size - 1;
  if (last >= node_count(nodes)) last = node_count(nodes) - 1;
  if (first == last) return std::to_string(first);
  return std::to_string(first) + "-" + std::to_string(last);
}

std::vector<uint64_t> grouped_matrix(const std::vector<uint64_t>& m, int nodes) {
  return grouped(m, nodes);
}
std::vector<double> grouped_matrix(const std::vector<double>& m, int nodes) {
  return grouped(m, nodes);
}

}  // namespace evb
