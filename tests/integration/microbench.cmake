# Micro-benchmarks (docs/MICROBENCH.md) end to end: every point-to-point
# pattern over the TCP driver with the local bootstrap on 3 nodes, the
# one-to-one shift scan (one JSON entry per shift), the split layout, and the
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
set_tests_properties(${_evb_micro_tests} PROPERTIES TIMEOUT 60 LABELS "integration;micro")

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
  set_tests_properties(micro_one_to_one_shift_scan_mpi micro_alltoall_mpi PROPERTIES
                       TIMEOUT 60 LABELS "integration;micro;mpi"
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()
