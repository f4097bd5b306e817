#pragma once
// ChassisOptions: the options every driver's chassis has, declared once.
//
// connect_timeout (how long connect() waits for its peers) and
// shutdown_timeout (how long shutdown() waits to deliver what is left) mean
// the same in every driver and share one name, type, unit and default. A
// driver's options struct derives from ChassisOptions and its option table
// embeds chassis_rows() after its own rows (UCX's base table idea,
// uct_tcp_iface_config_table's first row): the rows come from here, only
// the sentence that says what *this* driver waits for is the driver's.
#include <chrono>
#include <vector>

#include "drivers/common/option_table.hpp"

namespace evb {

struct ChassisOptions {
  std::chrono::milliseconds connect_timeout{};
  std::chrono::milliseconds shutdown_timeout{};
};

// What this driver's connect() and shutdown() wait for (docs/CONFIG.md); a
// null `connect` leaves connect_timeout out (a driver whose library
// connects on its own: mpi).
struct ChassisDocs {
  const char* connect;
  const char* shutdown;
};

template <class O>
std::vector<typename OptionTable<O>::Row> chassis_rows(ChassisDocs docs) {
  using T = OptionTable<O>;
  std::vector<typename T::Row> rows;
  if (docs.connect != nullptr)
    rows.push_back(T::duration("connect_timeout", &O::connect_timeout, "30s", docs.connect));
  rows.push_back(T::duration("shutdown_timeout", &O::shutdown_timeout, "10s", docs.shutdown));
  return rows;
}

}  // namespace evb
