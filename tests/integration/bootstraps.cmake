# Every event-building protocol under the env and mpi bootstraps, with random
# scheduling and the split layout (2 nodes: RU and BU in separate processes),
# in event-count mode: each run must build exactly 300 events with zero
# integrity errors. (pull, barrel, rubu, deadline mode: eb_env_bootstrap and
# mpi_bootstrap_tcp_driver.)
set(_evb_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
set(_evb_boot_shape --set nodes=2 --set layout=split --set scheduling=random)
if(TARGET evbench_bootstrap_mpi)
  set(_evb_boot_mpirun ${EVBENCH_MPIRUN})  # tests/integration/CMakeLists.txt
endif()

foreach(protocol pull push pull-noevm)
  string(REPLACE "-" "_" id ${protocol})
  # pull and push have a dedicated EVM rank: 2 nodes x 2 processes + 1.
  if(protocol STREQUAL "pull-noevm")
    set(np 4)
  else()
    set(np 5)
  endif()
  # env: the ranks started by hand, as a script or srun would.
  add_test(NAME eb_env_bootstrap_${id}_random_split
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/env_bootstrap.py
                   $<TARGET_FILE:evbench> --nprocs ${np} --events 300 ${_evb_boot_shape}
                   --set protocol=${protocol})
  set_tests_properties(eb_env_bootstrap_${id}_random_split PROPERTIES TIMEOUT 90
                       LABELS integration)
  # mpi: mpirun starts the ranks; the tcp driver carries the data.
  if(_evb_boot_mpirun)
    add_test(NAME mpi_bootstrap_tcp_driver_${id}_random_split
             COMMAND ${_evb_check} --expect-json results.events_built=300
                     -- ${_evb_boot_mpirun} --oversubscribe --mca oob_tcp_if_include lo
                     --mca btl_tcp_if_include lo --mca pml ob1 --mca btl self,vader -np ${np}
                     $<TARGET_FILE:evbench> run --quiet ${_evb_boot_shape} --set events=300
                     --set warmup=0s --set verify.sample=1 --set peer_timeout=20s
                     --set bootstrap=mpi --set driver=tcp --set protocol=${protocol})
    set_tests_properties(mpi_bootstrap_tcp_driver_${id}_random_split PROPERTIES TIMEOUT 90
                         LABELS "integration;mpi"
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endif()
endforeach()

# Faults under the env bootstrap (ranks started by hand on loopback, as srun
# would): a BU killed under on_failure exclude is survived (every other rank
# exits 0, its events rebuilt); rank 0, which serves the rendezvous, killed
# from outside ends every other rank promptly with the reason.
foreach(case survive rank0)
  add_test(NAME env_faults_${case}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/env_faults.py
                   $<TARGET_FILE:evbench> ${case})
  set_tests_properties(env_faults_${case} PROPERTIES TIMEOUT 90 LABELS integration)
endforeach()
