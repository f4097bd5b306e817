#pragma once
// What a driver can do: the one vocabulary protocols, validation and the
// drivers share (protocols adapt to these, never to driver names).
//
// A started driver reports it (Driver::capabilities()). Before any rank
// starts, its factory answers the same struct from the configuration's
// driver_options (DriverFactory::query; PluginKeys::driver_capabilities in
// core): what the driver will report once started with these options. A
// field that only the library can know at run time (a provider's iov limit,
// a device's max_sge, MPI's tag bound, whether the chosen provider survives a
// lost peer) holds the most it can be instead: a flag is true when some
// start with these options may report true; a size is its upper bound, or 0
// when none is known before start (max_segments 0: not known until started).
#include <cstddef>

namespace evb {

struct Capabilities {
  size_t max_segments = 1;          // segments per post_send or rdma_write
  size_t max_message = 1ull << 30;  // largest send, receive or write
  size_t inline_size = 0;           // sends up to this size are copied at post time
  int tag_bits = 32;                // low bits of a Tag that are matched (rest ignored)
  bool rdma_write = false;          // rdma_write() and unpack_key() are implemented
  // data_path auto picks write: for this variant the one-sided path was
  // measured faster than send (bench/data_path.sh; each driver's page gives
  // its figures). A function of the options and the library's choice only,
  // so that every rank of a run resolves auto alike. Needs rdma_write.
  bool write_preferred = false;
  bool write_immediate = false;        // the immediate is native (else emulated by an
                                       // ordered notification after the write)
  bool registration_required = false;  // segments and receives must carry `reg`
  size_t packed_key_size = 0;          // upper bound of packed_key().size()
  bool ordered_per_peer = true;        // messages between two ranks arrive in send order
  bool zero_copy_send = true;          // send segments are not copied
  bool can_block = false;              // wait() really sleeps until work arrives
  bool alltoall = false;               // alltoall() is implemented (a library collective)
  // A peer's death surfaces as a peer_event and failed completions naming it
  // while the driver goes on with the other peers (on_failure: exclude is
  // refused otherwise).
  bool survives_peer_loss = false;
  // Descriptors the driver may hold per connected peer (its sockets; 0 where
  // peers share memory or a device context): what the open-file check
  // before start counts (core/open_files.hpp). An upper bound.
  unsigned descriptors_per_peer = 1;
  // Every peer of the run is on this host and the driver's transport
  // between them is shared memory: a message is a memory copy by one of
  // the two processes, no network stack in between. A function of the
  // options, the library's choice and whether every rank shares the host,
  // so every rank of a run answers alike (the micro-benchmarks size their
  // receive slots by it at parallel 1).
  bool shared_memory_path = false;
  // Messages of more than this many bytes move by a read rendezvous: the
  // sender announces the message and the receiver reads the data from the
  // sender's buffer once a receive matches it (ofi_rxm by default); 0 where
  // no send does. An upper bound of the library's threshold, from its
  // parameters; every rank of a run answers alike (the micro-benchmarks
  // post one receive slot at parallel 1 above it).
  uint64_t read_rendezvous_above = 0;
};

}  // namespace evb
