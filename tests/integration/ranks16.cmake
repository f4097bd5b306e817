# 16 ranks on one host (oversubscribed here: correctness, not speed), EVM
# beside rank 0: ucx/sm over both data paths, psm2 over libpsm2's
# shared-memory device (scripts/with-psm2-shm.sh), and the mpi driver under
# mpirun over Open MPI's shared-memory BTL (vader); libfabric/shm's are in
# libfabric_ranks.cmake. Each run builds every
# assigned event exactly once with zero integrity errors (check_result.py),
# on 16 nodes (config.nodes, and rank 15 reports its memory), with poll_mode
# auto: block wherever ranks outnumber cores, so a rank that is not woken or
# spins shows up here as a timeout. A count of events (10 per BU), not a
# duration: at load 60-119 a 2 s run's window saw no event completed (the
# first wave took 2.5-5 s), which says nothing about correctness. They run with no other test beside
# them (PROCESSORS ${EVB_WHOLE_MACHINE}, tests/integration/CMakeLists.txt).
set(_evb_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
set(_evb_r16 --set nodes=16 --set evm=with-rank0 --set events=160 --set warmup=0s
             --set verify.sample=1 --set peer_timeout=30s --quiet)
set(_evb_r16_json --expect-json config.nodes=16 --expect-json-gt results.peak_rss_bytes.15=0)

if(TARGET evbench_driver_ucx)
  foreach(path write send)
    add_test(NAME eb_ucx_sm_16_ranks_${path}
             COMMAND ${_evb_check} ${_evb_r16_json} --expect-json results.driver=ucx/sm
                     --expect-json results.data_path=${path}
                     -- $<TARGET_FILE:evbench> run ${_evb_r16} --set driver=ucx
                     --set driver_options.tls=sm --set data_path=${path})
    set_tests_properties(eb_ucx_sm_16_ranks_${path} PROPERTIES TIMEOUT 90 LABELS integration
                         PROCESSORS ${EVB_WHOLE_MACHINE})
  endforeach()
endif()

if(TARGET evbench_driver_psm2)
  add_test(NAME eb_psm2_shm_16_ranks
           COMMAND ${_evb_check} ${_evb_r16_json} --expect-json results.data_path=send
                   -- ${PROJECT_SOURCE_DIR}/scripts/with-psm2-shm.sh $<TARGET_FILE:evbench> run
                   ${_evb_r16} --set driver=psm2)
  set_tests_properties(eb_psm2_shm_16_ranks PROPERTIES TIMEOUT 90 LABELS integration
                       PROCESSORS ${EVB_WHOLE_MACHINE})
endif()

if(TARGET evbench_driver_mpi AND TARGET evbench_bootstrap_mpi)
  add_test(NAME mpi_eb_vader_16_ranks
           COMMAND ${_evb_check} ${_evb_r16_json} --expect-json results.variant=mpi/vader
                   -- ${EVBENCH_MPIRUN} --oversubscribe --mca oob_tcp_if_include lo
                   --mca btl_tcp_if_include lo --mca pml ob1 --mca btl self,vader -np 16
                   $<TARGET_FILE:evbench> run ${_evb_r16} --set bootstrap=mpi --set driver=mpi)
  set_tests_properties(mpi_eb_vader_16_ranks PROPERTIES TIMEOUT 120 LABELS "integration;mpi"
                       PROCESSORS ${EVB_WHOLE_MACHINE}
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()
