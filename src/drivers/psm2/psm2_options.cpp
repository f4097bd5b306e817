// The psm2 driver's options: one row each (drivers/common/option_table.hpp).
#include "drivers/psm2/psm2_options.hpp"

#include "drivers/common/chassis_options.hpp"
#include "drivers/common/option_table.hpp"

namespace evb::psm2 {

namespace {

using T = OptionTable<Psm2Options>;

const T& table() {
  static const T rows(
      {}, chassis_rows<Psm2Options>(
              {"how long psm2_ep_connect waits for every peer",
               "how long shutdown() waits to deliver its goodbyes and close the endpoint"}));
  return rows;
}

}  // namespace

const std::vector<KeySpec>& psm2_option_specs() {
  return table().specs();
}

Psm2Options parse_psm2_options(const Config* config) {
  return table().parse(config);
}

}  // namespace evb::psm2
