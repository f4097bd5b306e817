# Command batches (batch.events, docs/CONFIG.md): PULL and PUSH over tcp at 4
# nodes with credits, assignments and requests 16 events to a command build
# every assigned event exactly once with zero integrity errors
# (check_result.py), in a timed run and in one of a set number of events
# that no batch size divides (the last partial batches leave after
# batch.max_wait); unset credits and command_size adapt (the JSON's config).
# 4 KiB fragments: nodes x credits (4 x 32) fragments in flight stay far
# below what the default ru_buffer holds.
# PULL-without-EVM has nothing to batch and refuses the key.
# (This file is included before event_building.cmake: its own settings.)
set(_evb_batch_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
set(_evb_batch_short --set duration=1s --set warmup=200ms --set verify.sample=1
    --set peer_timeout=20s --quiet)
foreach(protocol pull push)
  foreach(layout rubu split)
    set(name eb_batch16_${protocol}_${layout})
    add_test(NAME ${name}
             COMMAND ${_evb_batch_check} --expect-json config.batch.events=16
                     --expect-json config.credits=32
                     --expect-json config.command_size=1088
                     -- $<TARGET_FILE:evbench> run ${_evb_batch_short} --set protocol=${protocol}
                     --set layout=${layout} --set fragment.size=4KiB --set batch.events=16)
    set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS integration)
  endforeach()
  add_test(NAME eb_batch_event_count_${protocol}
           COMMAND ${_evb_batch_check} --expect-json results.events_built=501
                   -- $<TARGET_FILE:evbench> run --quiet --set protocol=${protocol}
                   --set events=501 --set warmup=0s --set verify.sample=1 --set peer_timeout=20s
                   --set batch.events=7 --set credits=10)
  set_tests_properties(eb_batch_event_count_${protocol} PROPERTIES TIMEOUT 60 LABELS integration)
endforeach()
add_test(NAME cli_batch_refused_without_evm
         COMMAND ${_evb_batch_check} --no-json --expect-exit 2
                 --expect-stderr "batch.events (4) is for pull and push"
                 -- $<TARGET_FILE:evbench> validate ${PROJECT_SOURCE_DIR}/configs/default.yaml
                 --set protocol=pull-noevm --set batch.events=4)
add_test(NAME cli_batch_over_credits
         COMMAND ${_evb_batch_check} --no-json --expect-exit 2
                 --expect-stderr "batch.events (8) exceeds credits (4)"
                 -- $<TARGET_FILE:evbench> validate ${PROJECT_SOURCE_DIR}/configs/default.yaml
                 --set credits=4 --set batch.events=8)
add_test(NAME cli_batch_over_command_size
         COMMAND ${_evb_batch_check} --no-json --expect-exit 2
                 --expect-stderr "cannot hold a batch of 8 commands"
                 -- $<TARGET_FILE:evbench> validate ${PROJECT_SOURCE_DIR}/configs/default.yaml
                 --set command_size=256 --set credits=16 --set batch.events=8)
set_tests_properties(cli_batch_refused_without_evm cli_batch_over_credits
                     cli_batch_over_command_size PROPERTIES TIMEOUT 60 LABELS integration)
# The same over the other drivers' command paths, where built: libfabric tcp
# and UCX shared memory (data path write, so commands and fragments travel
# apart), pull and push.
foreach(protocol pull push)
  if(TARGET evbench_driver_libfabric)
    set(name eb_batch16_libfabric_tcp_${protocol})
    add_test(NAME ${name}
             COMMAND ${_evb_batch_check} --expect-json config.batch.events=16
                     -- $<TARGET_FILE:evbench> run ${_evb_batch_short} --set driver=libfabric
                     --set driver_options.provider=tcp --set protocol=${protocol}
                     --set fragment.size=4KiB --set batch.events=16)
    set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS integration)
  endif()
  if(TARGET evbench_driver_ucx)
    set(name eb_batch16_ucx_sm_${protocol})
    add_test(NAME ${name}
             COMMAND ${_evb_batch_check} --expect-json config.batch.events=16
                     --expect-json results.data_path=write
                     -- $<TARGET_FILE:evbench> run ${_evb_batch_short} --set driver=ucx
                     --set driver_options.tls=sm --set data_path=write
                     --set protocol=${protocol} --set fragment.size=4KiB --set batch.events=16)
    set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS integration)
  endif()
endforeach()
# And over the MPI driver under mpirun (vader and tcp BTLs, PULL): its own
# receive matching and message sizes.
if(TARGET evbench_driver_mpi AND TARGET evbench_bootstrap_mpi)
  foreach(btl vader tcp)
    set(name mpi_eb_batch16_${btl}_pull)
    add_test(NAME ${name}
             COMMAND ${_evb_batch_check} --expect-json config.batch.events=16
                     -- ${EVBENCH_MPIRUN} --oversubscribe --mca oob_tcp_if_include lo
                     --mca btl_tcp_if_include lo --mca pml ob1 --mca btl self,${btl} -np 5
                     $<TARGET_FILE:evbench> run ${_evb_batch_short} --set bootstrap=mpi
                     --set driver=mpi --set fragment.size=4KiB --set batch.events=16)
    set_tests_properties(${name} PROPERTIES TIMEOUT 90 LABELS "integration;mpi"
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endforeach()
endif()
# The CMS-like configuration (configs/cms-batch.yaml: PUSH, 8 events per
# credit and assignment, partial batches out after 250 us, 512 KiB per RU
# and event): valid as shipped, and a shortened run builds every assigned
# event once with its batch settings in the results; 2 s, not 1: its first
# 64 events of 2 MB took 0.4 s at load 15 (the LHCb-like
# configs/lhcb-mep.yaml beside it is run in mep.cmake).
add_test(NAME cli_validate_config_cms-batch
         COMMAND ${_evb_batch_check} --no-json
                 -- $<TARGET_FILE:evbench> validate ${PROJECT_SOURCE_DIR}/configs/cms-batch.yaml)
add_test(NAME eb_config_cms_batch
         COMMAND ${_evb_batch_check} --expect-json config.protocol=push
                 --expect-json config.batch.events=8 --expect-json config.batch.max_wait=0.00025
                 --expect-json config.credits=16
                 -- $<TARGET_FILE:evbench> run ${PROJECT_SOURCE_DIR}/configs/cms-batch.yaml
                 ${_evb_batch_short} --set duration=2s)
set_tests_properties(cli_validate_config_cms-batch eb_config_cms_batch PROPERTIES TIMEOUT 90
                     LABELS integration)
