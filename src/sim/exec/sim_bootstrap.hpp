#pragma once
// SimBootstrap: the bootstrap of a simulated rank (`evbench sim --model
// credit`): rank and size from the World, collectives over its fibers (no
// virtual time passes in them), abort ends the simulation for every rank.
#include "drivers/api/bootstrap.hpp"
#include "sim/exec/world.hpp"

namespace evb::simexec {

class SimBootstrap : public Bootstrap {
 public:
  SimBootstrap(World& world, int rank) : world_(world), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return world_.ranks(); }
  bool all_local() const override { return false; }
  std::vector<std::string> allgather(const std::string& mine) override {
    return world_.collective(mine, true);
  }
  std::vector<std::string> gather(const std::string& mine) override {
    return world_.collective(mine, false);
  }
  void barrier() override { world_.collective(std::string(), true); }
  void abort(const std::string& why) noexcept override { world_.abort(why); }

 private:
  World& world_;
  int rank_;
};

}  // namespace evb::simexec
