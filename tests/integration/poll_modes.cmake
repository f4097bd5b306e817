# poll_mode forced end to end: each run builds exactly `events` events with
# zero integrity errors (check_result.py) and reports the mode its ranks ran
# (results.poll_mode). `block` on a driver that cannot block (mpi,
# libfabric/shm) runs as `yield`. `auto` is covered by the unit test of
# effective_poll_mode(): what it picks depends on this machine's cores.
set(_evb_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
set(_evb_events --set events=400 --set warmup=0s --set verify.sample=1 --set peer_timeout=20s
                --quiet)

set(_evb_pm_tests)
foreach(mode busy yield block)
  add_test(NAME poll_mode_tcp_${mode}
           COMMAND ${_evb_check} --expect-json results.poll_mode=${mode}
                   --expect-json results.events_built=400
                   -- $<TARGET_FILE:evbench> run ${_evb_events} --set poll_mode=${mode})
  list(APPEND _evb_pm_tests poll_mode_tcp_${mode})
endforeach()
if(TARGET evbench_driver_libfabric)
  # tcp;ofi_rxm has a CQ wait fd (can_block); shm has none.
  foreach(pair tcp:block shm:yield)
    string(REPLACE ":" ";" pair ${pair})
    list(GET pair 0 provider)
    list(GET pair 1 mode)
    add_test(NAME poll_mode_libfabric_${provider}_block
             COMMAND ${_evb_check} --expect-json results.poll_mode=${mode}
                     --expect-json results.events_built=400
                     -- $<TARGET_FILE:evbench> run ${_evb_events} --set driver=libfabric
                     --set driver_options.provider=${provider} --set poll_mode=block)
    list(APPEND _evb_pm_tests poll_mode_libfabric_${provider}_block)
  endforeach()
endif()
set_tests_properties(${_evb_pm_tests} PROPERTIES TIMEOUT 60 LABELS integration)

if(TARGET evbench_driver_mpi AND TARGET evbench_bootstrap_mpi)
  set(_evb_pm_mpirun ${EVBENCH_MPIRUN})
  # The mpi driver cannot block: block runs as yield; busy stays busy.
  foreach(pair block:yield busy:busy)
    string(REPLACE ":" ";" pair ${pair})
    list(GET pair 0 mode)
    list(GET pair 1 ran)
    add_test(NAME poll_mode_mpi_${mode}
             COMMAND ${_evb_check} --expect-json results.poll_mode=${ran}
                     --expect-json results.events_built=400
                     -- ${_evb_pm_mpirun} --oversubscribe --mca oob_tcp_if_include lo
                     --mca btl_tcp_if_include lo --mca pml ob1 --mca btl self,vader -np 5
                     $<TARGET_FILE:evbench> run ${_evb_events} --set bootstrap=mpi
                     --set driver=mpi --set poll_mode=${mode})
    set_tests_properties(poll_mode_mpi_${mode} PROPERTIES TIMEOUT 90 LABELS "integration;mpi"
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endforeach()
endif()
