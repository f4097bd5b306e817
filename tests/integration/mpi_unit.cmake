# evbench_mpi_tests under mpirun: 2 and 4 ranks, over Open MPI's shared-memory
# BTL (vader) and its TCP BTL on loopback. pml ob1 makes the BTL choice real
# (the UCX PML would bypass it). Oversubscription is expected on small hosts.
if(TARGET evbench_mpi_tests)
  if(TARGET evbench_bootstrap_mpi)
    target_link_libraries(evbench_mpi_tests PRIVATE evbench_bootstrap_mpi)
  endif()
  set(_evb_mpiexec ${EVBENCH_MPIRUN})  # tests/integration/CMakeLists.txt
  set(_evb_mpi_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                   OMPI_MCA_rmaps_base_oversubscribe=1)
  set(_evb_mpi_lo --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo --mca pml ob1)
  foreach(np 2 4)
    foreach(btl vader tcp)
      add_test(NAME mpi_driver_np${np}_${btl}
               COMMAND ${_evb_mpiexec} --oversubscribe ${_evb_mpi_lo} --mca btl self,${btl}
                       -np ${np} $<TARGET_FILE:evbench_mpi_tests>)
      set_tests_properties(mpi_driver_np${np}_${btl} PROPERTIES
                           ENVIRONMENT "${_evb_mpi_env}" TIMEOUT 120 LABELS "mpi;integration")
    endforeach()
  endforeach()
  # Outside mpirun and without MPI_Init: creating the driver explains mpirun.
  add_test(NAME mpi_driver_no_launcher
           COMMAND $<TARGET_FILE:evbench_mpi_tests> --no-mpi-init
                   --gtest_filter=MpiNoLauncher.*)
  set_tests_properties(mpi_driver_no_launcher PROPERTIES TIMEOUT 60 LABELS "mpi")
endif()
