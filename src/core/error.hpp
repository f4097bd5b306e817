#pragma once
// Error types and process exit codes shared by every layer.
//
// Setup paths throw one of these with full context (file:line:column, key,
// peer); the data path returns statuses instead. main() maps each type to one
// documented exit code (docs/USER_GUIDE.md, "Exit codes").
#include <stdexcept>
#include <string>

namespace evb {

enum ExitCode : int {
  kExitOk = 0,
  kExitRuntime = 1,    // runtime failure: peer lost, driver error, timeout, worker died
  kExitUsage = 2,      // bad command line or configuration
  kExitIntegrity = 3,  // run finished but integrity counters are non-zero
  kExitInterrupted = 130,
};

// Base class of every evbench error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad configuration or command line; message names file:line:column and key.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// Bad command-line usage (unknown flag, missing argument).
class UsageError : public Error {
 public:
  using Error::Error;
};

// A failure involving one peer (rank); message names the peer.
class PeerError : public Error {
 public:
  PeerError(int peer, const std::string& what) : Error(what), peer_(peer) {}
  int peer() const { return peer_; }

 private:
  int peer_;
};

}  // namespace evb
