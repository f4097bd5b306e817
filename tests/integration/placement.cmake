# Placement (`bind`, docs/USER_GUIDE.md "Placement"): where the ranks ran, as
# each found it (results.placement.ranks, check_placement.py). The local
# bootstrap binds one rank per CPU under bind core (2 ranks: 2 nodes, the
# EVM with rank 0), binds none when ranks outnumber the CPUs (this host's
# CPUs + 1 ranks), and leaves every allowed CPU to every rank under bind
# none. Under mpirun evbench binds nothing: Open MPI's
# flags decide, and evbench reports it, saying so when bind core was not done.
set(_evb_place /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_placement.py)
set(_evb_short --set duration=1s --set warmup=200ms --set peer_timeout=20s --quiet)
add_test(NAME placement_local_core
         COMMAND ${_evb_place} bound --summary "bound by evbench, one CPU per rank"
                 -- $<TARGET_FILE:evbench> run ${_evb_short} --set bind=core --set nodes=2
                 --set evm=with-rank0)
cmake_host_system_information(RESULT _evb_cpus QUERY NUMBER_OF_LOGICAL_CORES)
math(EXPR _evb_more "${_evb_cpus} + 1")
add_test(NAME placement_local_core_more_ranks_than_cpus
         COMMAND ${_evb_place} unbound --summary "bind: core not done: ${_evb_more} ranks on"
                 -- $<TARGET_FILE:evbench> run ${_evb_short} --set bind=core
                 --set nodes=${_evb_more} --set evm=with-rank0)
add_test(NAME placement_local_none
         COMMAND ${_evb_place} unbound --summary "unbound (each rank may run on"
                 -- $<TARGET_FILE:evbench> run ${_evb_short} --set bind=none)
set_tests_properties(placement_local_core placement_local_core_more_ranks_than_cpus
                     placement_local_none PROPERTIES TIMEOUT 60
                     LABELS integration)

if(TARGET evbench_bootstrap_mpi)
  set(_evb_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
  set(_evb_mpi ${EVBENCH_MPIRUN} --oversubscribe --mca oob_tcp_if_include lo
               --mca btl_tcp_if_include lo -np 3)
  # The flags evbench suggests for bind core (core/placement.hpp).
  add_test(NAME placement_mpirun_core
           COMMAND ${_evb_place} bound --summary "bound by the launcher, one CPU per rank"
                   -- ${_evb_mpi} --map-by core --bind-to core:overload-allowed
                   $<TARGET_FILE:evbench> run ${_evb_short} --set nodes=2 --set bootstrap=mpi)
  # bind core asked, mpirun told otherwise: reported, not overridden.
  add_test(NAME placement_mpirun_none
           COMMAND ${_evb_place} unbound
                   --summary "bind: core, but the launcher did not bind every rank"
                   -- ${_evb_mpi} --bind-to none
                   $<TARGET_FILE:evbench> run ${_evb_short} --set nodes=2 --set bootstrap=mpi)
  set_tests_properties(placement_mpirun_core placement_mpirun_none PROPERTIES TIMEOUT 90
                       ENVIRONMENT "${_evb_env}" LABELS "integration;mpi")
endif()
