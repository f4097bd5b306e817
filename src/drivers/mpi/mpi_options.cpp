// The mpi driver's options: one row each (drivers/common/option_table.hpp).
#include "drivers/mpi/mpi_options.hpp"

#include "drivers/common/chassis_options.hpp"
#include "drivers/common/option_table.hpp"

namespace evb::mpi {

namespace {

using T = OptionTable<MpiOptions>;

const T& table() {
  static const T rows(
      {
          T::boolean("sync_send", &MpiOptions::sync_send, "false",
                     "send with MPI_Issend: a send completes only once the receiver matched it, so "
                     "back pressure reaches the sender"),
          T::integer("max_requests", &MpiOptions::max_requests, "65536", "requests", 1, 1 << 24,
                     "sends and receives in flight at once; more complete with status error"),
          T::choice(
              "poll_method", &MpiOptions::poll_method, "testsome",
              std::vector<std::pair<const char*, PollMethod>>{{"testsome", PollMethod::testsome},
                                                              {"testany", PollMethod::testany},
                                                              {"test", PollMethod::test}},
              "how poll() finds finished requests: one MPI_Testsome, MPI_Testany until idle, "
              "or MPI_Test on each"),
          T::choice(
              "wait", &MpiOptions::wait, "none",
              std::vector<std::pair<const char*, WaitMode>>{{"none", WaitMode::none},
                                                            {"waitany", WaitMode::waitany}},
              "what an idle rank does in the driver's wait(): none returns at once (the engine "
              "polls), waitany blocks in MPI_Waitany until an operation finishes (evbench sim "
              "sets it: simulated time then runs to the next completion instead of advancing "
              "one poll at a time)"),
          T::duration(
              "wait_min_timeout", &MpiOptions::wait_min_timeout_s, "10ms",
              "wait waitany: block only when the engine's next timer is at least this far "
              "away (10ms: the engine's longest wait, i.e. no timer due); a nearer timer makes "
              "the rank poll at 1-us intervals up to it"),
          T::integer("any_source_depth", &MpiOptions::any_source_depth, "0", "requests", 0, 1 << 24,
                     "any-source receives of one tag (the engine's command receives) handed to MPI "
                     "at once; the others wait in the driver, in order, and follow as those "
                     "complete; 0 = all at once (evbench sim sets 4: SMPI's MPI_Waitany and "
                     "MPI_Testany cost grows with every request posted)"),
      },
      chassis_rows<MpiOptions>(
          {nullptr, "how long shutdown waits for unfinished sends before detaching them"}));
  return rows;
}

}  // namespace

const std::vector<KeySpec>& mpi_option_keys() {
  return table().specs();
}

MpiOptions MpiOptions::from(const Config* config) {
  return table().parse(config);
}

}  // namespace evb::mpi
