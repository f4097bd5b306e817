#pragma once
// The mpi driver: evbench's driver interface on MPI non-blocking
// point-to-point (MPI_Isend/MPI_Issend/MPI_Irecv + MPI_Testsome).
//
// Ranks are the ranks of a private communicator split from the parent
// (normally MPI_COMM_WORLD) and ordered by evbench rank, so evbench rank ==
// MPI rank. The driver owns that communicator and the table of in-flight
// requests; callers own every buffer until its completion. MPI itself is
// initialised and finalised by MpiEnv, not here.
#include <mpi.h>

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"
#include "core/ring_queue.hpp"
#include "drivers/api/driver.hpp"
#include "drivers/common/completions.hpp"
#include "drivers/mpi/mpi_options.hpp"
#include "drivers/mpi/mpi_requests.hpp"

namespace evb::mpi {

class MpiDriver final : public Driver {
 public:
  static constexpr size_t kMaxSegments = 256;  // hindexed datatype blocks per send

  // Collective over `parent`: every rank of it must construct its driver.
  // Throws ConfigError if `rank` is not this process's place in `parent`.
  MpiDriver(MPI_Comm parent, int rank, const MpiOptions& options);
  ~MpiDriver() override;

  std::string name() const override { return "mpi"; }
  // "mpi/vader", "mpi/tcp", "mpi/ucx": what Open MPI chose (mpi_transport.hpp).
  std::string variant() const override { return variant_; }
  Capabilities capabilities() const override;
  void alltoall(const void* send, void* recv, size_t block) override;
  std::string local_address() override;
  void connect(const std::vector<std::string>& addresses,
               const std::vector<PeerId>& peers) override;
  void post_send(PeerId peer, Tag tag, std::span<const Segment> segments, uint64_t cookie) override;
  void post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration* reg,
                 uint64_t cookie) override;
  size_t poll(std::span<Completion> out) override;
  void wait(std::chrono::microseconds timeout) override;
  void shutdown() override;
  std::string last_error() const override { return done_.last_error(); }

  // The MPI tag an evbench tag is sent with (tag & tag_mask()).
  int mpi_tag(Tag tag) const { return static_cast<int>(tag & tag_mask_); }
  Tag tag_mask() const { return tag_mask_; }
  size_t in_flight() const { return pool_.in_flight(); }

 private:
  void fail_now(OpType type, PeerId peer, Tag tag, uint64_t cookie, const std::string& why);
  Completion to_completion(const FinishedOp& f);
  // Converts finished_ (sorted by posting order) into completions: into
  // `out` while it has room, the rest into done_. Returns how many went
  // into `out`.
  size_t hand_out(std::span<Completion> out, size_t n);
  // MPI_Irecv into the pool; false when it failed (reported by fail_now).
  bool post_irecv(PeerId peer, Tag tag, void* buffer, size_t size, uint64_t cookie);
  // An any-source receive of `tag` finished: hand MPI the next one held back.
  void release_any_source(Tag tag);
  // Every held-back receive of `tag` to MPI (a receive from one peer with
  // that tag must not overtake them).
  void flush_any_source(Tag tag);

  MpiOptions options_;
  std::string variant_ = "mpi";
  bool shared_memory_ = false;  // Capabilities::shared_memory_path (mpi_transport.hpp)
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  Tag tag_mask_ = 0x7fff;
  uint64_t seq_ = 0;
  bool shut_down_ = false;
  RequestPool pool_;
  std::vector<FinishedOp> finished_;
  Completions done_;  // finished but not yet handed out by poll(), and the last error
  // any_source_depth: per tag, receives given to MPI and the ones held back.
  struct HeldRecv {
    void* buffer;
    size_t size;
    uint64_t cookie;
  };
  struct AnySource {
    size_t posted = 0;
    std::deque<HeldRecv> held;
  };
  std::map<Tag, AnySource> any_source_;
};

}  // namespace evb::mpi
