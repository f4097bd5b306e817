#pragma once
// How the views give the RU->BU traffic matrix as the node count grows: cell
// by cell up to kMatrixFullNodes nodes (nodes x nodes: 4096 cells at 64);
// above, summed over groups of consecutive RUs and BUs, at most
// kMatrixGroups groups a side (256 cells whatever the node count), so that
// /metrics, /api/state and the page stay bounded (docs/MONITORING.md,
// "Large runs"). Above that bound each BU reports its bytes per RU group,
// not per RU (monitor_reporter.*), so the matrix the EVM's rank keeps has a
// row per RU group (matrix_rows). The rate timeline's per-BU series are
// bounded the same way: at most kHistoryUnitCells BU figures in
// /api/state's history.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace evb {

inline constexpr int kMatrixFullNodes = 64;
inline constexpr size_t kMatrixGroups = 16;
inline constexpr size_t kHistoryUnitCells = 600 * 64;

// Units a group holds: 1 up to kMatrixFullNodes nodes, else the fewest
// that make at most kMatrixGroups groups (the last one may hold fewer).
size_t matrix_group_size(int nodes);

// Groups a side for that size (ceil(nodes / size); 0 for no nodes).
size_t matrix_groups(int nodes);

// Rows of the matrix the EVM's rank keeps: one per RU up to
// kMatrixFullNodes nodes, else one per RU group (columns: one per BU).
size_t matrix_rows(int nodes);

// "0-31": the first and last unit index of group `g` ("5" for a group of one).
std::string matrix_group_label(int nodes, size_t g);

// A BU's bytes per RU (`per_ru`, `nodes` entries) as its row of the matrix
// the EVM's rank keeps: into `row`, matrix_rows(nodes) entries, each RU's
// bytes or an RU group's sum (`row` is reused: no allocation once sized).
void matrix_row(const std::vector<uint64_t>& per_ru, int nodes, std::vector<uint64_t>& row);

// The matrix (`nodes` x `nodes`, row RU, column BU; or matrix_rows(nodes)
// x `nodes`, rows already RU groups) summed over groups: matrix_groups(nodes)
// a side, [ru_group * groups + bu_group]. Empty for any other size.
std::vector<uint64_t> grouped_matrix(const std::vector<uint64_t>& m, int nodes);
std::vector<double> grouped_matrix(const std::vector<double>& m, int nodes);

}  // namespace evb
