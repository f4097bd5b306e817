# Micro-benchmarks (docs/MICROBENCH.md) end to end: every point-to-point
# pattern over the TCP driver with the local bootstrap on 3 nodes, the
# one-to-one shift scan (one JSON entry per shift), the split layout, the
# write path over ucx/sm and libfabric/shm (refused over tcp), and the
# alltoall baseline (rejected over tcp; run over mpi under mpirun when built).
# check_result.py asserts messages were received, integrity counters are 0
# and the per-node fields are present.
set(_evb_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
# parallel 2: the config check bounds parallel by the number of nodes.
set(_evb_micro --set duration=1s --set warmup=200ms --set nodes=3 --set parallel=2
               --set peer_timeout=20s --quiet)

set(_evb_micro_tests)
foreach(protocol one-to-one many-to-one gather gather-cmd gather-cmd-meta)
  string(REPLACE "-" "_" id ${protocol})
  add_test(NAME micro_${id}_tcp
           COMMAND ${_evb_check} --min-events 1 -- $<TARGET_FILE:evbench> run
                   ${_evb_micro} --set protocol=${protocol})
  list(APPEND _evb_micro_tests micro_${id}_tcp)
endforeach()

# Every shift 0..n-1 as one step; shift 0 goes through the engine's loopback.
add_test(NAME micro_one_to_one_shift_scan_tcp
         COMMAND ${_evb_check} --min-events 1 --shifts 3 -- $<TARGET_FILE:evbench> run
                 ${_evb_micro} --set protocol=one-to-one --set shift=scan)
# RU and BU in separate processes; 1 MiB messages with explicit metadata size.
add_test(NAME micro_gather_cmd_meta_split_tcp
         COMMAND ${_evb_check} --min-events 1 -- $<TARGET_FILE:evbench> run
                 ${_evb_micro} --set protocol=gather-cmd-meta --set layout=split
                 --set fragment.size=1MiB --set fragment.meta_size=4KiB
                 --set fragment.meta_segments=1)
# alltoall is a library collective: the tcp driver has none.
add_test(NAME micro_alltoall_tcp_rejected
         COMMAND ${_evb_check} --no-json --expect-exit 2
                 --expect-stderr "protocol alltoall needs a driver with a library all-to-all"
                 -- $<TARGET_FILE:evbench> run ${_evb_micro} --set protocol=alltoall)
list(APPEND _evb_micro_tests micro_one_to_one_shift_scan_tcp micro_gather_cmd_meta_split_tcp
     micro_alltoall_tcp_rejected)
# receive_slots (docs/MICROBENCH.md "Receive slots"): one slot for 4
# messages in flight, as the libraries' tools receive into one buffer. The
# results say which checks ran: every length, and a header only where no
# other message was in flight into its slot; nothing is counted corrupt.
# More slots than messages in flight rotate, and every header is checked.
set(_evb_one_way --set protocol=one-to-one --set nodes=2 --set senders=1 --set parallel=4)
add_test(NAME micro_one_to_one_shared_slot_tcp
         COMMAND ${_evb_check} --min-events 1 --expect-json results.integrity.checks.receive_slots=1
                 --expect-json results.integrity.checks.in_flight=4
                 --expect-json-gt results.integrity.checks.length=0
                 --expect-json-gt results.integrity.checks.header_unchecked=0
                 -- $<TARGET_FILE:evbench> run ${_evb_micro} ${_evb_one_way} --set receive_slots=1)
add_test(NAME micro_one_to_one_more_slots_tcp
         COMMAND ${_evb_check} --min-events 1 --expect-json results.integrity.checks.receive_slots=16
                 --expect-json results.integrity.checks.header_unchecked=0
                 --expect-json-gt results.integrity.checks.header=0
                 -- $<TARGET_FILE:evbench> run ${_evb_micro} ${_evb_one_way} --set receive_slots=16)
# Unset at parallel 1 the receiver holds two slots (no credit round trip per
# message), and the settings line says so; set to 1 it holds one.
set(_evb_window_one --set protocol=one-to-one --set nodes=2 --set senders=1 --set parallel=1)
add_test(NAME micro_one_to_one_window_one_two_slots_tcp
         COMMAND ${_evb_check} --min-events 1
                 --expect-stdout "receive slots 2 (receive_slots unset: parallel + 1)"
                 -- $<TARGET_FILE:evbench> run ${_evb_micro} ${_evb_window_one})
add_test(NAME micro_one_to_one_window_one_one_slot_tcp
         COMMAND ${_evb_check} --min-events 1 --expect-json results.integrity.checks.receive_slots=1
                 --expect-json results.integrity.checks.header_unchecked=0
                 --reject-stdout "receive slots 2"
                 -- $<TARGET_FILE:evbench> run ${_evb_micro} ${_evb_window_one}
                 --set receive_slots=1)
list(APPEND _evb_micro_tests micro_one_to_one_shared_slot_tcp micro_one_to_one_more_slots_tcp
     micro_one_to_one_window_one_two_slots_tcp micro_one_to_one_window_one_one_slot_tcp)
set_tests_properties(${_evb_micro_tests} PROPERTIES TIMEOUT 60 LABELS "integration;micro")

# data_path write: one-sided writes into the arena each receiver advertises
# (the immediate names the slot), over the drivers built here that have
# rdma_write; the receivers check every landed message as on the send path
# (check_result.py: corrupt 0). senders 1 on 2 nodes: one direction only.
set(_evb_micro_write_tests)
set(_evb_micro_write_variants)
if(TARGET evbench_driver_ucx)
  list(APPEND _evb_micro_write_variants "ucx_sm|--set driver=ucx --set driver_options.tls=sm|ucx/sm")
endif()
if(TARGET evbench_driver_libfabric)
  list(APPEND _evb_micro_write_variants
       "libfabric_shm|--set driver=libfabric --set driver_options.provider=shm|libfabric/shm")
endif()
foreach(variant ${_evb_micro_write_variants})
  string(REPLACE "|" ";" parts "${variant}")
  list(GET parts 0 vid)
  list(GET parts 1 vopts)
  list(GET parts 2 vname)
  separate_arguments(vopts)
  foreach(protocol one-to-one many-to-one gather gather-cmd-meta)
    string(REPLACE "-" "_" id ${protocol})
    add_test(NAME micro_${id}_write_${vid}
             COMMAND ${_evb_check} --min-events 1 "--expect-json=results.variant=${vname} write"
                     -- $<TARGET_FILE:evbench> run ${_evb_micro} ${vopts} --set protocol=${protocol}
                     --set data_path=write)
    list(APPEND _evb_micro_write_tests micro_${id}_write_${vid})
  endforeach()
  # auto picks write where the driver can, as for the event builders.
  add_test(NAME micro_one_to_one_auto_${vid}
           COMMAND ${_evb_check} --min-events 1 "--expect-json=results.variant=${vname} write"
                   -- $<TARGET_FILE:evbench> run ${_evb_micro} ${vopts} --set protocol=one-to-one)
  # One direction (RU 0 -> BU 1): BU 0 receives nothing, BU 1 everything.
  # At parallel 1 over shared memory the receiver holds one slot (unset
  # receive_slots; two over a network: micro_one_to_one_window_one_*_tcp).
  add_test(NAME micro_one_to_one_one_way_write_${vid}
           COMMAND ${_evb_check} --min-events 1 --expect-json results.bandwidth_gbps.per_node_values.0=0
                   --expect-json-gt results.bandwidth_gbps.per_node_values.1=0
                   --expect-json results.integrity.checks.receive_slots=1
                   "--expect-json=results.integrity.checks.receive_slots_by=shared memory"
                   --expect-json results.integrity.checks.header_unchecked=0
                   --expect-stdout "receive slots 1 (receive_slots unset: one at parallel 1 over shared memory)"
                   -- $<TARGET_FILE:evbench> run ${_evb_micro} ${vopts} --set protocol=one-to-one
                   --set data_path=write --set nodes=2 --set senders=1 --set parallel=1
                   --set ru_buffer=512KiB)
  # Steps (every write of a step lands before the next) and split layout
  # (RU-only ranks write, BU-only ranks advertise).
  add_test(NAME micro_one_to_one_shift_scan_write_${vid}
           COMMAND ${_evb_check} --min-events 1 --shifts 3 -- $<TARGET_FILE:evbench> run
                   ${_evb_micro} ${vopts} --set protocol=one-to-one --set shift=scan
                   --set data_path=write)
  add_test(NAME micro_gather_cmd_meta_split_write_${vid}
           COMMAND ${_evb_check} --min-events 1 -- $<TARGET_FILE:evbench> run ${_evb_micro}
                   ${vopts} --set protocol=gather-cmd-meta --set layout=split --set data_path=write
                   --set fragment.meta_size=4KiB --set fragment.meta_segments=1)
  # One shared slot on the write path: every credit names slot 0.
  add_test(NAME micro_one_to_one_shared_slot_write_${vid}
           COMMAND ${_evb_check} --min-events 1 "--expect-json=results.variant=${vname} write"
                   --expect-json results.integrity.checks.receive_slots=1
                   --expect-json results.integrity.checks.in_flight=4
                   --expect-json-gt results.integrity.checks.length=0
                   -- $<TARGET_FILE:evbench> run ${_evb_micro} ${vopts} ${_evb_one_way}
                   --set data_path=write --set receive_slots=1)
  list(APPEND _evb_micro_write_tests micro_one_to_one_auto_${vid}
       micro_one_to_one_one_way_write_${vid} micro_one_to_one_shift_scan_write_${vid}
       micro_gather_cmd_meta_split_write_${vid}
       micro_one_to_one_shared_slot_write_${vid})
endforeach()
# At parallel 1 over tcp;ofi_rxm a 512 KiB send moves by a read rendezvous
# (above rxm's 128 KiB bound): one receive slot, every header checked;
# writes there take two (docs/MICROBENCH.md "Receive slots").
if(TARGET evbench_driver_libfabric)
  set(_evb_lf_window_one ${_evb_micro} ${_evb_window_one} --set driver=libfabric
                         --set driver_options.provider=tcp --set fragment.size=512KiB
                         --set ru_buffer=512KiB)
  add_test(NAME micro_one_to_one_window_one_libfabric_tcp_send
           COMMAND ${_evb_check} --min-events 1 --expect-json results.integrity.checks.receive_slots=1
                   "--expect-json=results.integrity.checks.receive_slots_by=read rendezvous"
                   --expect-json results.integrity.checks.header_unchecked=0
                   --expect-stdout "receive slots 1 (receive_slots unset: one at parallel 1 for sends by read rendezvous)"
                   -- $<TARGET_FILE:evbench> run ${_evb_lf_window_one} --set data_path=send)
  add_test(NAME micro_one_to_one_window_one_libfabric_tcp_write
           COMMAND ${_evb_check} --min-events 1
                   --expect-stdout "receive slots 2 (receive_slots unset: parallel + 1)"
                   -- $<TARGET_FILE:evbench> run ${_evb_lf_window_one} --set data_path=write)
  list(APPEND _evb_micro_write_tests micro_one_to_one_window_one_libfabric_tcp_send
       micro_one_to_one_window_one_libfabric_tcp_write)
endif()
# Credits returned several slots to one (docs/MICROBENCH.md "One credit for several slots") over
# the tcp transports, both data paths: at parallel 32 one credit per 8 freed
# slots (48 slots), and at parallel 2 with 8 slots one per 3; every header
# checked, nothing corrupt, the run ends (the sender saw every credit the
# receiver announced). Windows 1 and 2 unset (one credit per slot) are the
# tests above.
set(_evb_credit_variants)
if(TARGET evbench_driver_ucx)
  list(APPEND _evb_credit_variants "ucx_tcp|--set driver=ucx --set driver_options.tls=tcp|32|0|8")
endif()
if(TARGET evbench_driver_libfabric)
  list(APPEND _evb_credit_variants
       "libfabric_tcp|--set driver=libfabric --set driver_options.provider=tcp|2|8|3")
endif()
foreach(variant ${_evb_credit_variants})
  string(REPLACE "|" ";" parts "${variant}")
  list(GET parts 0 vid)
  list(GET parts 1 vopts)
  list(GET parts 2 window)
  list(GET parts 3 slots)
  list(GET parts 4 batch)
  separate_arguments(vopts)
  set(checks)
  if(NOT slots STREQUAL "0")  # results.integrity.checks only when the key is set
    set(checks --expect-json results.integrity.checks.header_unchecked=0)
  endif()
  foreach(path send write)
    add_test(NAME micro_one_to_one_credit_batch_${path}_${vid}
             COMMAND ${_evb_check} --min-events 1 ${checks}
                     --expect-stdout "a credit per ${batch} freed slots"
                     -- $<TARGET_FILE:evbench> run ${_evb_micro} ${vopts} --set protocol=one-to-one
                     --set nodes=2 --set senders=1 --set parallel=${window} --set receive_slots=${slots}
                     --set data_path=${path})
    list(APPEND _evb_micro_write_tests micro_one_to_one_credit_batch_${path}_${vid})
  endforeach()
endforeach()
# tcp has no rdma_write: refused at validation, naming the key and the driver.
add_test(NAME micro_one_to_one_write_tcp_rejected
         COMMAND ${_evb_check} --no-json --expect-exit 2
                 --expect-stderr "data_path write needs one-sided writes, and driver tcp has no rdma_write"
                 -- $<TARGET_FILE:evbench> run ${_evb_micro} --set protocol=one-to-one
                 --set driver=tcp --set data_path=write)
add_test(NAME micro_alltoall_write_rejected
         COMMAND ${_evb_check} --no-json --expect-exit 2
                 --expect-stderr "data_path write does not apply to protocol alltoall"
                 -- $<TARGET_FILE:evbench> run ${_evb_micro} --set protocol=alltoall
                 --set data_path=write)
list(APPEND _evb_micro_write_tests micro_one_to_one_write_tcp_rejected micro_alltoall_write_rejected)
set_tests_properties(${_evb_micro_write_tests} PROPERTIES TIMEOUT 60 LABELS "integration;micro")
# Many receive slots over libfabric's shm, whose receive pool (1024 entries)
# holds the posted receives and the unexpected messages together: the
# receiver's command receives follow the credit messages in flight, not the
# slots, so 300 slots at parallel 32 leave room (before: 1204 command
# receives, shm dropped the final for want of an entry, the run stalled until
# peer_timeout).
if(TARGET evbench_driver_libfabric)
  add_test(NAME micro_one_to_one_many_slots_libfabric_shm
           COMMAND ${_evb_check} --min-events 1 --expect-json results.integrity.checks.header_unchecked=0
                   -- $<TARGET_FILE:evbench> run ${_evb_micro}
                   --set driver=libfabric --set driver_options.provider=shm --set protocol=one-to-one
                   --set nodes=2 --set senders=1 --set parallel=32 --set receive_slots=300
                   --set fragment.size=64KiB --set peer_timeout=10s)
  set_tests_properties(micro_one_to_one_many_slots_libfabric_shm
                       PROPERTIES TIMEOUT 60 LABELS "integration;micro")
endif()

# Over the MPI driver under mpirun: a shift scan, and the MPI_Alltoall loop.
if(TARGET evbench_driver_mpi AND TARGET evbench_bootstrap_mpi)
  set(_evb_micro_mpirun ${EVBENCH_MPIRUN})
  set(_evb_micro_mpi ${_evb_micro_mpirun} --oversubscribe --mca oob_tcp_if_include lo
                     --mca btl_tcp_if_include lo --mca pml ob1 --mca btl self,vader -np 3)
  add_test(NAME micro_one_to_one_shift_scan_mpi
           COMMAND ${_evb_check} --min-events 1 --shifts 3 -- ${_evb_micro_mpi}
                   $<TARGET_FILE:evbench> run ${_evb_micro} --set bootstrap=mpi
                   --set driver=mpi --set protocol=one-to-one --set shift=scan)
  add_test(NAME micro_alltoall_mpi
           COMMAND ${_evb_check} --min-events 1 -- ${_evb_micro_mpi}
                   $<TARGET_FILE:evbench> run ${_evb_micro} --set bootstrap=mpi
                   --set driver=mpi --set protocol=alltoall)
  # At parallel 1 the receiver's slots follow the BTL Open MPI chose: one
  # over vader (shared memory), two over tcp (receive_slots unset).
  set(_evb_micro_mpi2 ${_evb_micro_mpirun} --oversubscribe --mca oob_tcp_if_include lo
                      --mca btl_tcp_if_include lo --mca pml ob1 -np 2)
  add_test(NAME micro_one_to_one_window_one_mpi_vader
           COMMAND ${_evb_check} --min-events 1 --expect-json results.integrity.checks.receive_slots=1
                   "--expect-json=results.integrity.checks.receive_slots_by=shared memory"
                   --expect-json results.variant=mpi/vader
                   -- ${_evb_micro_mpi2} --mca btl self,vader $<TARGET_FILE:evbench> run
                   ${_evb_micro} ${_evb_window_one} --set bootstrap=mpi --set driver=mpi)
  add_test(NAME micro_one_to_one_window_one_mpi_tcp
           COMMAND ${_evb_check} --min-events 1 --expect-json results.variant=mpi/tcp
                   --expect-stdout "receive slots 2 (receive_slots unset: parallel + 1)"
                   -- ${_evb_micro_mpi2} --mca btl self,tcp $<TARGET_FILE:evbench> run
                   ${_evb_micro} ${_evb_window_one} --set bootstrap=mpi --set driver=mpi)
  set_tests_properties(micro_one_to_one_shift_scan_mpi micro_alltoall_mpi
                       micro_one_to_one_window_one_mpi_vader micro_one_to_one_window_one_mpi_tcp
                       PROPERTIES
                       TIMEOUT 60 LABELS "integration;micro;mpi"
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()

# driver_options.tcp_poll_pause (docs/drivers/ucx.md, "ucx/tcp at ~0.8 of the
# tool"): at window 32 over tcp with error_handling none the receiver paces,
# and the results and the table's header name the pause in effect; over sm,
# or under error_handling peer, it is not applied and nothing is named.
if(TARGET evbench_driver_ucx)
  set(_evb_micro_w32 ${_evb_micro} --set protocol=one-to-one --set nodes=2 --set senders=1
                     --set parallel=32 --set driver=ucx --set data_path=send)
  add_test(NAME micro_ucx_tcp_poll_pause_named
           COMMAND ${_evb_check} --min-events 1
                   "--expect-json=results.driver_settings=tcp_poll_pause 5000 ns"
                   --expect-stdout "# driver applied: tcp_poll_pause 5000 ns"
                   -- $<TARGET_FILE:evbench> run ${_evb_micro_w32} --set driver_options.tls=tcp
                   --set driver_options.error_handling=none)
  add_test(NAME micro_ucx_sm_no_poll_pause
           COMMAND ${_evb_check} --min-events 1 --reject-stdout "driver applied"
                   -- $<TARGET_FILE:evbench> run ${_evb_micro_w32} --set driver_options.tls=sm
                   --set driver_options.error_handling=none --set driver_options.tcp_poll_pause=20000)
  add_test(NAME micro_ucx_tcp_peer_no_poll_pause
           COMMAND ${_evb_check} --min-events 1 --reject-stdout "driver applied"
                   -- $<TARGET_FILE:evbench> run ${_evb_micro_w32} --set driver_options.tls=tcp)
  set_tests_properties(micro_ucx_tcp_poll_pause_named micro_ucx_sm_no_poll_pause
                       micro_ucx_tcp_peer_no_poll_pause
                       PROPERTIES TIMEOUT 60 LABELS "integration;micro")
endif()
