// driver_options.* of the mpi driver: the key table and its reader.
#include <cstdlib>

#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "drivers/mpi/mpi_driver.hpp"

namespace evb::mpi {
namespace {

[[noreturn]] void bad(const std::string& key, const std::string& value, const std::string& want) {
  throw ConfigError("driver_options." + key + ": '" + value + "' is not " + want);
}

bool to_bool(const std::string& key, const std::string& v) {
  return parse_boolean(v, "driver_options." + key);
}

long long to_int(const std::string& key, const std::string& v) {
  char* end = nullptr;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') bad(key, v, "an integer");
  return x;
}

double to_seconds(const std::string& key, const std::string& v) {
  return parse_duration(v, "driver_options." + key);
}

}  // namespace

std::vector<KeySpec> mpi_option_keys() {
  std::vector<KeySpec> keys;
  keys.push_back(KeySpec{.path = "sync_send",
                         .type = KeyType::boolean,
                         .default_value = "false",
                         .doc = "send with MPI_Issend: a send completes only once the receiver "
                                "matched it, so back pressure reaches the sender"});
  keys.push_back(KeySpec{.path = "max_requests",
                         .type = KeyType::integer,
                         .default_value = "65536",
                         .unit = "requests",
                         .min = 1,
                         .max = 1 << 24,
                         .doc = "sends and receives in flight at once; more complete with "
                                "status error"});
  keys.push_back(KeySpec{.path = "poll_method",
                         .type = KeyType::choice,
                         .default_value = "testsome",
                         .choices = {"testsome", "testany", "test"},
                         .doc = "how poll() finds finished requests: one MPI_Testsome, "
                                "MPI_Testany until idle, or MPI_Test on each"});
  keys.push_back(KeySpec{.path = "shutdown_timeout",
                         .type = KeyType::duration,
                         .default_value = "10s",
                         .unit = "s",
                         .min = 0,
                         .doc = "how long shutdown waits for unfinished sends before "
                                "detaching them"});
  keys.push_back(KeySpec{.path = "wait",
                         .type = KeyType::choice,
                         .default_value = "none",
                         .choices = {"none", "waitany"},
                         .doc = "what an idle rank does in the driver's wait(): none returns at "
                                "once (the engine polls), waitany blocks in MPI_Waitany until "
                                "an operation finishes (evbench sim sets it: simulated time then "
                                "runs to the next completion instead of advancing one poll at a "
                                "time)"});
  keys.push_back(KeySpec{.path = "wait_min_timeout",
                         .type = KeyType::duration,
                         .default_value = "10ms",
                         .unit = "s",
                         .min = 0,
                         .doc = "wait waitany: block only when the engine's next timer is at "
                                "least this far away (10ms: the engine's longest wait, i.e. no "
                                "timer due); a nearer timer makes the rank poll at 1-us "
                                "intervals up to it"});
  keys.push_back(KeySpec{.path = "any_source_depth",
                         .type = KeyType::integer,
                         .default_value = "0",
                         .unit = "requests",
                         .min = 0,
                         .max = 1 << 24,
                         .doc = "any-source receives of one tag (the engine's command "
                                "receives) handed to MPI at once; the others wait in the "
                                "driver, in order, and follow as those complete; 0 = all at "
                                "once (evbench sim sets 4: SMPI's MPI_Waitany and "
                                "MPI_Testany cost grows with every request posted)"});
  return keys;
}

MpiOptions MpiOptions::from(const Config* config) {
  MpiOptions o;
  if (config == nullptr) return o;
  for (const auto& [key, value] : config->driver_options) {
    if (key == "sync_send") {
      o.sync_send = to_bool(key, value);
    } else if (key == "max_requests") {
      long long n = to_int(key, value);
      if (n < 1 || n > (1 << 24)) bad(key, value, "in 1..16777216");
      o.max_requests = static_cast<size_t>(n);
    } else if (key == "poll_method") {
      if (value == "testsome") {
        o.poll_method = PollMethod::testsome;
      } else if (value == "testany") {
        o.poll_method = PollMethod::testany;
      } else if (value == "test") {
        o.poll_method = PollMethod::test;
      } else {
        bad(key, value, "one of testsome, testany, test");
      }
    } else if (key == "shutdown_timeout") {
      o.shutdown_timeout_s = to_seconds(key, value);
      if (o.shutdown_timeout_s < 0) bad(key, value, "a non-negative duration");
    } else if (key == "wait") {
      if (value == "none") {
        o.wait = WaitMode::none;
      } else if (value == "waitany") {
        o.wait = WaitMode::waitany;
      } else {
        bad(key, value, "one of none, waitany");
      }
    } else if (key == "wait_min_timeout") {
      o.wait_min_timeout_s = to_seconds(key, value);
      if (o.wait_min_timeout_s < 0) bad(key, value, "a non-negative duration");
    } else if (key == "any_source_depth") {
      long long n = to_int(key, value);
      if (n < 0 || n > (1 << 24)) bad(key, value, "in 0..16777216");
      o.any_source_depth = static_cast<size_t>(n);
    }
    // Other keys were rejected by config validation against mpi_option_keys().
  }
  return o;
}

}  // namespace evb::mpi
