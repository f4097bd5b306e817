# Event building under mpirun (root, oversubscribed, loopback only): every
# protocol x scheduling, and every protocol in layout split, over the MPI
# driver on Open MPI's shared-memory (vader) and TCP BTLs; every protocol in
# event-count mode over vader; every protocol with barrel, random and split
# over the UCX PML; and the mpi bootstrap carrying the tcp driver. Each run
# builds every assigned event exactly once with zero integrity errors
# (check_result.py), and names the transport Open MPI chose in
# results.variant (mpi/vader, mpi/tcp, mpi/ucx).
if(TARGET evbench_driver_mpi AND TARGET evbench_bootstrap_mpi)
  set(_evb_mpirun ${EVBENCH_MPIRUN})  # tests/integration/CMakeLists.txt
  set(_evb_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
  set(_evb_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
  set(_evb_mpi ${_evb_mpirun} --oversubscribe --mca oob_tcp_if_include lo
               --mca btl_tcp_if_include lo --mca pml ob1)
  set(_evb_short --set duration=1s --set warmup=200ms --set verify.sample=1
                 --set peer_timeout=20s --set bootstrap=mpi --quiet)
  foreach(btl vader tcp)
    foreach(protocol pull push pull-noevm)
      # pull and push have a dedicated EVM rank: 4 nodes + 1.
      if(protocol STREQUAL "pull-noevm")
        set(np 4)
      else()
        set(np 5)
      endif()
      foreach(scheduling barrel random)
        set(name mpi_eb_${btl}_${protocol}_${scheduling})
        add_test(NAME ${name}
                 COMMAND ${_evb_check} --expect-json results.variant=mpi/${btl}
                         --expect-stdout ": ${protocol} over mpi/${btl},"
                         --check-network -- ${_evb_mpi} --mca btl self,${btl} -np ${np}
                         $<TARGET_FILE:evbench> run ${_evb_short} --set driver=mpi
                         --set protocol=${protocol} --set scheduling=${scheduling})
        set_tests_properties(${name} PROPERTIES TIMEOUT 90 ENVIRONMENT "${_evb_env}"
                             LABELS "integration;mpi")
      endforeach()
    endforeach()
  endforeach()
  # Open MPI's UCX PML (UCX over shared memory and tcp on lo). Open MPI only
  # selects it on RDMA hardware unless told that any UCX transport will do.
  # Every protocol with barrel scheduling (4 nodes), random scheduling, and
  # the split layout (2 nodes; np is the same).
  set(_evb_ucx ${_evb_mpirun} --oversubscribe --mca oob_tcp_if_include lo
               --mca btl_tcp_if_include lo --mca pml ucx --mca pml_ucx_tls any
               --mca pml_ucx_devices any -x UCX_NET_DEVICES=lo -x UCX_TLS=self,sm,tcp)
  foreach(protocol pull push pull-noevm)
    if(protocol STREQUAL "pull-noevm")
      set(np 4)
    else()
      set(np 5)
    endif()
    foreach(variant "" _random _split)
      if(variant STREQUAL "_random")
        set(shape --set scheduling=random)
      elseif(variant STREQUAL "_split")
        set(shape --set nodes=2 --set layout=split)
      else()
        set(shape)
      endif()
      add_test(NAME mpi_eb_ucx_${protocol}${variant}
               COMMAND ${_evb_check} --expect-json results.variant=mpi/ucx -- ${_evb_ucx}
                       -np ${np} $<TARGET_FILE:evbench> run
                       ${_evb_short} --set driver=mpi --set protocol=${protocol} ${shape})
      set_tests_properties(mpi_eb_ucx_${protocol}${variant} PROPERTIES TIMEOUT 90
                           ENVIRONMENT "${_evb_env}" LABELS "integration;mpi")
    endforeach()
  endforeach()
  # Layout split (RU and BU in separate ranks, 2 nodes) over both BTLs, and
  # event-count mode (exactly 300 events) over vader, for every protocol.
  foreach(protocol pull push pull-noevm)
    if(protocol STREQUAL "pull-noevm")
      set(np 4)
    else()
      set(np 5)
    endif()
    foreach(btl vader tcp)
      set(name mpi_eb_${btl}_${protocol}_split)
      add_test(NAME ${name}
               COMMAND ${_evb_check} -- ${_evb_mpi} --mca btl self,${btl} -np ${np}
                       $<TARGET_FILE:evbench> run ${_evb_short} --set driver=mpi
                       --set protocol=${protocol} --set nodes=2 --set layout=split)
      set_tests_properties(${name} PROPERTIES TIMEOUT 90 ENVIRONMENT "${_evb_env}"
                           LABELS "integration;mpi")
    endforeach()
    add_test(NAME mpi_eb_vader_${protocol}_events
             COMMAND ${_evb_check} --expect-json results.events_built=300
                     -- ${_evb_mpi} --mca btl self,vader -np ${np} $<TARGET_FILE:evbench> run
                     --quiet --set bootstrap=mpi --set driver=mpi --set protocol=${protocol}
                     --set events=300 --set warmup=0s --set verify.sample=1
                     --set peer_timeout=20s)
    set_tests_properties(mpi_eb_vader_${protocol}_events PROPERTIES TIMEOUT 90
                         ENVIRONMENT "${_evb_env}" LABELS "integration;mpi")
  endforeach()
  # The shipped configs/mpi.yaml: -np 4 for every event-building protocol.
  foreach(protocol pull push pull-noevm)
    add_test(NAME mpi_config_np4_${protocol}
             COMMAND ${_evb_check} -- ${_evb_mpi} --mca btl self,vader -np 4
                     $<TARGET_FILE:evbench> run ${PROJECT_SOURCE_DIR}/configs/mpi.yaml --quiet
                     --set duration=1s --set warmup=200ms --set verify.sample=1
                     --set protocol=${protocol})
    set_tests_properties(mpi_config_np4_${protocol} PROPERTIES TIMEOUT 90
                         ENVIRONMENT "${_evb_env}" LABELS "integration;mpi")
  endforeach()
  add_test(NAME mpi_bootstrap_tcp_driver
           COMMAND ${_evb_check} -- ${_evb_mpi} --mca btl self,vader -np 5
                   $<TARGET_FILE:evbench> run ${_evb_short} --set driver=tcp)
  add_test(NAME mpi_driver_local_bootstrap_explains
           COMMAND ${_evb_check} --no-json --expect-exit 2 --expect-stderr "mpirun -np"
                   -- $<TARGET_FILE:evbench> run --set driver=mpi --quiet)
  set_tests_properties(mpi_bootstrap_tcp_driver mpi_driver_local_bootstrap_explains
                       PROPERTIES TIMEOUT 90 ENVIRONMENT "${_evb_env}" LABELS "integration;mpi")
endif()
