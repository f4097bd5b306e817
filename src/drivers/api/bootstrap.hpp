#pragma once
// The bootstrap interface: how ranks learn who they are and find each other.
//
// Bootstraps are independent of drivers: driver endpoint addresses are opaque
// strings that the bootstrap exchanges. All calls are collective and blocking
// (setup and teardown only, never on the data path) and throw evb::Error
// naming the rank that failed.
#include <chrono>
#include <string>
#include <vector>

#include "core/lifecycle.hpp"

namespace evb {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // True when every rank runs on this host (drivers may then bind loopback).
  virtual bool all_local() const = 0;
  // Every rank contributes `mine`; everyone gets all contributions by rank.
  virtual std::vector<std::string> allgather(const std::string& mine) = 0;
  // Rank 0 gets all contributions by rank; other ranks get an empty vector.
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  virtual void barrier() = 0;
  // Best effort: tells the other ranks to stop (error path; never throws).
  virtual void abort(const std::string& /*why*/) noexcept {}
  // When this rank was launched, on the steady clock: the start of the
  // start-up time it reports (results.startup). A launcher that forks its
  // ranks knows it (before its first fork); else the process's own start.
  virtual std::chrono::steady_clock::time_point launched_at() const { return process_start(); }
};

}  // namespace evb
