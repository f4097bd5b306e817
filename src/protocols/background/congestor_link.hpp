#pragma once
// CongestorLink: a congestor rank's line to the EVM's rank, when the run
// has a monitor or a `control:` list (Topology::congestors_report). Every
// report_interval it sends the monitor hub one stats command
// (MonitorStat::background) with what the rank counted and the interval
// it covers by this rank's clock, as a BU's MonitorReporter does; it keeps
// a few receives posted for the hub's start and stop of its entry
// (ControlKnob::background), each checked (only from the EVM's rank, only
// its own entry, a 0/1 value) before it switches the traffic. The wire
// format is the engine's: a Command padded to command_size on the tag of
// its channel, so the hub's engine takes it like any other.
#include <cstdint>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/topology.hpp"
#include "drivers/api/driver.hpp"
#include "protocols/background/congestor_stats.hpp"

namespace evb {

class CongestorLink {
 public:
  CongestorLink(Driver& driver, const Config& config, const Topology& topo, int rank);
  // Registers the command buffers and posts the control receives.
  void set_up();
  // Starts the reporting clock (the start barrier, this rank's clock).
  void start(int64_t now_ns);
  // Sends a report when one is due; `sending`: the rank sends traffic now.
  void tick(int64_t now_ns, const CongestorCounts& counts, bool sending);
  // Whether `cookie` is one of this link's.
  static bool owns(uint64_t cookie);
  // A completion of one of this link's operations; throws on a control
  // command the rank must refuse.
  void handle(const Completion& c);
  // The entry's traffic is switched on (true until the hub stops it).
  bool on() const { return on_; }
  // Every stats send has completed.
  bool idle() const { return sends_in_flight_ == 0; }

 private:
  void post_control_recv(size_t slot);

  Driver& driver_;
  const Config& config_;
  const Topology& topo_;
  int rank_;
  int entry_;
  AlignedBuffer recv_buffer_;  // control receives, command_size each
  AlignedBuffer send_buffer_;  // stats sends, command_size each
  RegistrationPtr recv_reg_;
  RegistrationPtr send_reg_;
  std::vector<bool> send_busy_;
  int64_t sends_in_flight_ = 0;
  int64_t interval_ns_ = 0;
  int64_t next_ns_ = -1;
  int64_t since_ns_ = 0;  // the start of the interval being counted
  bool on_ = true;
};

}  // namespace evb
