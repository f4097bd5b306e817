#include "protocols/common/rank_stats.hpp"

#include <yaml-cpp/yaml.h>

namespace evb {

bool RankStats::book(int64_t t, uint64_t bytes, uint64_t network_bytes, uint64_t events,
                     int64_t warmup_ns, int64_t end_ns, int64_t interval_ns) {
  bytes_total += bytes;
  network_bytes_total += network_bytes;
  last_completion_ns = std::max(last_completion_ns, t);
  const bool in_window = t >= warmup_ns && (end_ns <= 0 || t <= end_ns);
  if (in_window) {
    bytes_in_window += bytes;
    network_bytes_in_window += network_bytes;
    events_in_window += events;
  }
  if (interval_ns > 0 && t >= 0) {
    const size_t k = static_cast<size_t>(t / interval_ns);
    if (sample_bytes.size() <= k) {
      sample_bytes.resize(k + 1, 0);
      sample_events.resize(k + 1, 0);
    }
    sample_bytes[k] += bytes;
    sample_events[k] += events;
  }
  return in_window;
}

std::string FailureRecord::encode() const {
  YAML::Emitter out;
  out << YAML::Flow << YAML::BeginSeq << unit << rank << cause << lost_at_s << detected_at_s
      << reassigned << recovered_at_s << action << YAML::EndSeq;
  return out.c_str();
}

FailureRecord FailureRecord::decode(const std::string& text) {
  const YAML::Node n = YAML::Load(text);
  FailureRecord r;
  r.unit = n[0].as<std::string>();
  r.rank = n[1].as<int>();
  r.cause = n[2].as<std::string>();
  r.lost_at_s = n[3].as<double>();
  r.detected_at_s = n[4].as<double>();
  r.reassigned = n[5].as<uint64_t>();
  r.recovered_at_s = n[6].as<double>();
  if (n.size() > 7) r.action = n[7].as<std::string>();
  return r;
}

std::string RankStats::serialize() const {
  YAML::Emitter out;
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "rank" << YAML::Value << rank;
  out << YAML::Key << "host" << YAML::Value << host;
  out << YAML::Key << "poll_mode" << YAML::Value << poll_mode;
  out << YAML::Key << "cpus" << YAML::Value << cpus;
  out << YAML::Key << "bu" << YAML::Value << bu;
  out << YAML::Key << "events_built" << YAML::Value << events_built;
  out << YAML::Key << "events_in_window" << YAML::Value << events_in_window;
  out << YAML::Key << "bytes_in_window" << YAML::Value << bytes_in_window;
  out << YAML::Key << "bytes_total" << YAML::Value << bytes_total;
  out << YAML::Key << "network_bytes_in_window" << YAML::Value << network_bytes_in_window;
  out << YAML::Key << "network_bytes_total" << YAML::Value << network_bytes_total;
  out << YAML::Key << "arrival_bytes_in_window" << YAML::Value << arrival_bytes_in_window;
  out << YAML::Key << "arrival_bytes_total" << YAML::Value << arrival_bytes_total;
  out << YAML::Key << "events_started" << YAML::Value << events_started;
  out << YAML::Key << "last_completion_ns" << YAML::Value << last_completion_ns;
  out << YAML::Key << "sample_bytes" << YAML::Value << sample_bytes;
  out << YAML::Key << "sample_events" << YAML::Value << sample_events;
  out << YAML::Key << "evm_sample_bytes" << YAML::Value << evm_sample_bytes;
  out << YAML::Key << "evm_sample_events" << YAML::Value << evm_sample_events;
  out << YAML::Key << "latency" << YAML::Value << latency.serialize();
  out << YAML::Key << "corrupt" << YAML::Value << integrity.corrupt;
  out << YAML::Key << "duplicate" << YAML::Value << integrity.duplicate;
  out << YAML::Key << "incomplete" << YAML::Value << integrity.incomplete;
  out << YAML::Key << "verified" << YAML::Value << integrity.verified;
  out << YAML::Key << "bad_events" << YAML::Value << integrity.bad_events;
  out << YAML::Key << "out_of_sync" << YAML::Value << integrity.out_of_sync;
  out << YAML::Key << "out_of_sync_events" << YAML::Value << integrity.out_of_sync_events;
  out << YAML::Key << "injected" << YAML::Value << integrity.injected;
  out << YAML::Key << "injected_detected" << YAML::Value << integrity.injected_detected;
  out << YAML::Key << "injected_in" << YAML::Value
      << std::vector<uint64_t>(integrity.injected_in.begin(), integrity.injected_in.end());
  out << YAML::Key << "detected_in" << YAML::Value
      << std::vector<uint64_t>(integrity.detected_in.begin(), integrity.detected_in.end());
  out << YAML::Key << "fu_processed" << YAML::Value << fu_processed;
  out << YAML::Key << "fu_accepted" << YAML::Value << fu_accepted;
  out << YAML::Key << "max_requests_in_flight" << YAML::Value << max_requests_in_flight;
  out << YAML::Key << "max_events_in_flight" << YAML::Value << max_events_in_flight;
  out << YAML::Key << "max_outstanding_per_bu" << YAML::Value << max_outstanding_per_bu;
  out << YAML::Key << "ru" << YAML::Value << ru;
  out << YAML::Key << "fragments_sent" << YAML::Value << fragments_sent;
  out << YAML::Key << "bytes_sent" << YAML::Value << bytes_sent;
  out << YAML::Key << "fragments_in_place" << YAML::Value << fragments_in_place;
  out << YAML::Key << "evm" << YAML::Value << evm;
  out << YAML::Key << "events_assigned" << YAML::Value << events_assigned;
  out << YAML::Key << "step_bytes" << YAML::Value << step_bytes;
  out << YAML::Key << "step_messages" << YAML::Value << step_messages;
  out << YAML::Key << "step_network_bytes" << YAML::Value << step_network_bytes;
  out << YAML::Key << "step_window_s" << YAML::Value << step_window_s;
  out << YAML::Key << "peak_rss_bytes" << YAML::Value << peak_rss_bytes;
  out << YAML::Key << "anon_huge_bytes" << YAML::Value << anon_huge_bytes;
  out << YAML::Key << "anon_rss_bytes" << YAML::Value << anon_rss_bytes;
  out << YAML::Key << "lifecycle" << YAML::Value << YAML::Flow << YAML::BeginSeq << lifecycle.join_s
      << lifecycle.connect_s << lifecycle.setup_s << lifecycle.teardown_s << YAML::EndSeq;
  out << YAML::Key << "host_load" << YAML::Value << YAML::Flow << to_numbers(host_load);
  out << YAML::Key << "completed_per_bu" << YAML::Value << completed_per_bu;
  out << YAML::Key << "excluded_bus" << YAML::Value << excluded_bus;
  std::vector<std::string> f;
  for (const auto& r : failures) f.push_back(r.encode());
  out << YAML::Key << "failures" << YAML::Value << f;
  out << YAML::Key << "control" << YAML::Value << YAML::BeginSeq;
  for (const auto& r : control)
    out << YAML::Flow << YAML::BeginSeq << r.t_s << r.key << r.value << r.from_event << r.source
        << YAML::EndSeq;
  out << YAML::EndSeq;
  out << YAML::Key << "phases" << YAML::Value << YAML::BeginSeq;
  for (const auto& p : phases)
    out << YAML::Flow << YAML::BeginSeq << p.from_s << p.first_control << p.events << p.bytes
        << p.window_events << p.window_bytes << YAML::EndSeq;
  out << YAML::EndSeq;
  out << YAML::Key << "rate_bins" << YAML::Value << rate_bins;
  out << YAML::Key << "rate_bin_s" << YAML::Value << rate_bin_s;
  out << YAML::Key << "assign_stopped_at_s" << YAML::Value << assign_stopped_at_s;
  out << YAML::Key << "late_discarded" << YAML::Value << late_discarded;
  out << YAML::Key << "incomplete_lost_peer" << YAML::Value << incomplete_lost_peer;
  out << YAML::Key << "masked_events" << YAML::Value << masked_events;
  out << YAML::Key << "masked_per_ru" << YAML::Value << masked_per_ru;
  out << YAML::Key << "evm_masked_events" << YAML::Value << evm_masked_events;
  out << YAML::Key << "ring_overrun" << YAML::Value << ring_overrun;
  out << YAML::Key << "max_events_held" << YAML::Value << max_events_held;
  out << YAML::Key << "assignments_held_back" << YAML::Value << assignments_held_back;
  out << YAML::Key << "error" << YAML::Value << error;
  out << YAML::Key << "integrity_problem" << YAML::Value << integrity_problem;
  out << YAML::EndMap;
  return out.c_str();
}

RankStats RankStats::deserialize(const std::string& text) {
  const YAML::Node n = YAML::Load(text);
  RankStats s;
  s.rank = n["rank"].as<int>();
  s.host = n["host"].as<std::string>("");
  s.poll_mode = n["poll_mode"].as<std::string>("");
  s.cpus = n["cpus"].as<std::vector<int>>(std::vector<int>{});
  s.bu = n["bu"].as<int>();
  s.events_built = n["events_built"].as<uint64_t>();
  s.events_in_window = n["events_in_window"].as<uint64_t>();
  s.bytes_in_window = n["bytes_in_window"].as<uint64_t>();
  s.bytes_total = n["bytes_total"].as<uint64_t>();
  s.network_bytes_in_window = n["network_bytes_in_window"].as<uint64_t>(0);
  s.network_bytes_total = n["network_bytes_total"].as<uint64_t>(0);
  s.arrival_bytes_in_window = n["arrival_bytes_in_window"].as<uint64_t>(0);
  s.arrival_bytes_total = n["arrival_bytes_total"].as<uint64_t>(0);
  s.events_started = n["events_started"].as<uint64_t>();
  s.last_completion_ns = n["last_completion_ns"].as<int64_t>();
  s.sample_bytes = n["sample_bytes"].as<std::vector<uint64_t>>();
  s.sample_events = n["sample_events"].as<std::vector<uint64_t>>();
  s.evm_sample_bytes = n["evm_sample_bytes"].as<std::vector<uint64_t>>(std::vector<uint64_t>{});
  s.evm_sample_events = n["evm_sample_events"].as<std::vector<uint64_t>>(std::vector<uint64_t>{});
  s.latency = Histogram::deserialize(n["latency"].as<std::string>());
  s.integrity.corrupt = n["corrupt"].as<uint64_t>();
  s.integrity.duplicate = n["duplicate"].as<uint64_t>();
  s.integrity.incomplete = n["incomplete"].as<uint64_t>();
  s.integrity.verified = n["verified"].as<uint64_t>();
  s.integrity.bad_events = n["bad_events"].as<uint64_t>();
  s.integrity.out_of_sync = n["out_of_sync"].as<uint64_t>();
  s.integrity.out_of_sync_events = n["out_of_sync_events"].as<uint64_t>();
  s.integrity.injected = n["injected"].as<uint64_t>();
  s.integrity.injected_detected = n["injected_detected"].as<uint64_t>();
  const auto in = n["injected_in"].as<std::vector<uint64_t>>(std::vector<uint64_t>{});
  const auto det = n["detected_in"].as<std::vector<uint64_t>>(std::vector<uint64_t>{});
  for (size_t k = 0; k < s.integrity.injected_in.size() && k < in.size() && k < det.size(); ++k) {
    s.integrity.injected_in[k] = in[k];
    s.integrity.detected_in[k] = det[k];
  }
  s.fu_processed = n["fu_processed"].as<uint64_t>();
  s.fu_accepted = n["fu_accepted"].as<uint64_t>();
  s.max_requests_in_flight = n["max_requests_in_flight"].as<int>();
  s.max_events_in_flight = n["max_events_in_flight"].as<int>();
  s.max_outstanding_per_bu = n["max_outstanding_per_bu"].as<int>();
  s.ru = n["ru"].as<int>();
  s.fragments_sent = n["fragments_sent"].as<uint64_t>();
  s.bytes_sent = n["bytes_sent"].as<uint64_t>();
  s.fragments_in_place = n["fragments_in_place"].as<uint64_t>(0);
  s.evm = n["evm"].as<bool>();
  s.events_assigned = n["events_assigned"].as<uint64_t>();
  s.step_bytes = n["step_bytes"].as<std::vector<uint64_t>>();
  s.step_messages = n["step_messages"].as<std::vector<uint64_t>>();
  s.step_network_bytes = n["step_network_bytes"].as<std::vector<uint64_t>>(std::vector<uint64_t>{});
  s.step_window_s = n["step_window_s"].as<std::vector<double>>();
  s.peak_rss_bytes = n["peak_rss_bytes"].as<uint64_t>(0);
  s.anon_huge_bytes = n["anon_huge_bytes"].as<uint64_t>(0);
  s.anon_rss_bytes = n["anon_rss_bytes"].as<uint64_t>(0);
  if (const auto l = n["lifecycle"]; l && l.size() == 4)
    s.lifecycle =
        Lifecycle{l[0].as<double>(), l[1].as<double>(), l[2].as<double>(), l[3].as<double>()};
  s.host_load = from_numbers(n["host_load"].as<std::vector<double>>(std::vector<double>{}));
  s.completed_per_bu = n["completed_per_bu"].as<std::vector<uint64_t>>(std::vector<uint64_t>{});
  s.excluded_bus = n["excluded_bus"].as<std::vector<int>>(std::vector<int>{});
  for (const auto& t : n["failures"].as<std::vector<std::string>>(std::vector<std::string>{}))
    s.failures.push_back(FailureRecord::decode(t));
  for (const auto& r : n["control"])
    s.control.push_back(ControlRecord{r[0].as<double>(), r[1].as<std::string>(),
                                      r[2].as<std::string>(), r[3].as<uint64_t>(),
                                      r[4].as<std::string>()});
  for (const auto& p : n["phases"])
    s.phases.push_back(PhaseBook{p[0].as<double>(), p[1].as<uint64_t>(), p[2].as<uint64_t>(),
                                 p[3].as<uint64_t>(), p[4].as<uint64_t>(), p[5].as<uint64_t>()});
  s.rate_bins = n["rate_bins"].as<std::vector<uint64_t>>(std::vector<uint64_t>{});
  s.rate_bin_s = n["rate_bin_s"].as<double>(0.0);
  s.assign_stopped_at_s = n["assign_stopped_at_s"].as<double>(-1.0);
  s.late_discarded = n["late_discarded"].as<uint64_t>(0);
  s.incomplete_lost_peer = n["incomplete_lost_peer"].as<uint64_t>(0);
  s.masked_events = n["masked_events"].as<uint64_t>(0);
  s.masked_per_ru = n["masked_per_ru"].as<std::vector<uint64_t>>(std::vector<uint64_t>{});
  s.evm_masked_events = n["evm_masked_events"].as<uint64_t>(0);
  s.ring_overrun = n["ring_overrun"].as<uint64_t>(0);
  s.max_events_held = n["max_events_held"].as<uint64_t>(0);
  s.assignments_held_back = n["assignments_held_back"].as<uint64_t>(0);
  s.error = n["error"].as<std::string>("");
  s.integrity_problem = n["integrity_problem"].as<std::string>("");
  return s;
}

}  // namespace evb
