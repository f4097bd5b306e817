#pragma once
// Run-time control: what POST /control may change, the limits set at start,
// and the parser that turns a request body into a checked request.
//
// The body is a YAML (or JSON) mapping of one or more keys:
//   {"parallel": 2}   {"credits": 1, "fu.processing_time": "2ms"}
//   {"ru_rate_factors": [1, 0.5, 1, 1]}   {"pause": true}   {"resume": true}
//   {"background.1.active": false}  (background entry 1 stopped; true starts it)
// Every key is checked before anything is queued: one bad key refuses the
// whole request (nothing of it applies). A refusal names the key and the
// limit, never anything secret.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace evb {

// A checked request (the keys it set).
struct ControlRequest {
  std::optional<int> parallel;
  std::optional<int> credits;
  std::optional<double> processing_time_s;
  std::optional<std::vector<double>> ru_rate_factors;
  std::optional<bool> pause;  // true: pause, false: resume
  // background.N.active: (entry index from 0, on), in the body's order.
  std::vector<std::pair<int, bool>> background;
};

// What may be changed in this run, fixed at start.
struct ControlLimits {
  int nodes = 0;                        // parallel: 1..nodes; ru_rate_factors: nodes entries
  int credits_allocated = 0;            // credits: 1..this
  double processing_time_max_s = 0;     // fu.processing_time: 0..this
  std::vector<double> rate_factor_max;  // per RU: the largest factor its ring holds
  int background_entries = 0;           // background.N.active: N in 1..this
  // Keys this protocol does not take at run time, each with the reason
  // (e.g. {"parallel", "push does not read parallel"}).
  std::vector<std::pair<std::string, std::string>> not_here;
};

// The outcome: status 202 with the request, or a 4xx with a message that
// names the key and the limit (400 malformed or out of range, 409 a key this
// protocol does not take at run time, 413 a body over kControlBodyMax, 415
// a content type other than JSON/YAML/form-less text).
struct ControlParse {
  int status = 202;
  std::string message;
  ControlRequest request;
};
constexpr size_t kControlBodyMax = 4096;

ControlParse parse_control(std::string_view body, const ControlLimits& limits);

}  // namespace evb
