# The mpi instantiation of the driver conformance suite, for real: one rank
# per process under mpirun (3 ranks: the any-peer and exactly-once items need
# them), over Open MPI's shared-memory and TCP BTLs on loopback. Outside
# mpirun (ctest's per-test runs) the mpi instantiation skips.
get_property(_evb_conf_drivers GLOBAL PROPERTY EVBENCH_DRIVERS)
if(TARGET evbench_conformance_tests AND "${_evb_conf_drivers}" MATCHES "(^|;)mpi:")
  set(_evb_conf_mpiexec ${EVBENCH_MPIRUN})  # tests/integration/CMakeLists.txt
  if(_evb_conf_mpiexec)
    foreach(btl vader tcp)
      add_test(NAME conformance_mpi_np3_${btl}
               COMMAND ${_evb_conf_mpiexec} --oversubscribe
                       --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo --mca pml ob1
                       --mca btl self,${btl} -np 3
                       $<TARGET_FILE:evbench_conformance_tests> --gtest_filter=*/mpi)
      set_tests_properties(conformance_mpi_np3_${btl} PROPERTIES
                           ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1"
                           TIMEOUT 120 LABELS "mpi;integration"
                           # A skip for want of mpirun or ranks means nothing ran.
                           FAIL_REGULAR_EXPRESSION "needs mpirun;the launcher started")
    endforeach()
  endif()
endif()

# The psm2 instantiation for real, over libpsm2's shared-memory device: 3
# ranks under mpirun (MPI only as the bootstrap, over ob1/tcp so Open MPI
# itself never opens PSM2) inside scripts/with-psm2-shm.sh. Outside it the
# psm2 instantiation reports not-run (no hfi1 device, no launcher).
if(TARGET evbench_conformance_tests AND "${_evb_conf_drivers}" MATCHES "(^|;)psm2:"
   AND "${_evb_conf_drivers}" MATCHES "(^|;)mpi:" AND _evb_conf_mpiexec)
  add_test(NAME conformance_psm2_shm
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/with-psm2-shm.sh ${_evb_conf_mpiexec}
                   --oversubscribe --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo
                   --mca pml ob1 --mca btl self,tcp --mca mtl ^psm2 -np 3
                   $<TARGET_FILE:evbench_conformance_tests> --gtest_filter=*/psm2_shm)
  set_tests_properties(conformance_psm2_shm PROPERTIES
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1"
                       TIMEOUT 180 LABELS "mpi;integration"
                       FAIL_REGULAR_EXPRESSION "cannot run here;needs mpirun;the launcher started")
endif()
