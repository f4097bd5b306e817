# A source that loses event synchronisation (`faults: [{at, desync: ruN,
# by: K}]`, docs/USER_GUIDE.md "Failures and fault injection"): from 0.5 s
# RU 1 serves, for event e, a well-formed fragment of e + 3. Each run must end
# with an integrity error (exit 3) naming RU 1 and both events, keep the
# fragment next to the --json results with the labelled event in its header,
# and count it in results.integrity.out_of_sync (desync_run.py). Every
# protocol over tcp on the local launcher with 2 and 3 nodes (PUSH must name
# the right RU of two: the EVM decides from its assignment), one repeat
# (by -2) in layout split, then every protocol over each driver of the
# driver matrix (not run, exit 77, with the probe's reason where it cannot).
set(_evb_desync /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/desync_run.py)
set(_evb_desync_fault "faults=[{at: 500ms, desync: ru1, by: 3}]")
set(_evb_desync_base --quiet --set duration=3s --set warmup=200ms --set fragment.size=64KiB
    --set peer_timeout=20s --set "${_evb_desync_fault}")
set(_evb_desync_tests)
# Every test also runs batched (variants/batched.cmake): NAME_batch4_mep8,
# the desync caught per event inside a MEP of 8 with batches of 4 in flight;
# pull-noevm's NAME_mep8 packs only (it has no EVM to batch for).
macro(evb_desync_variant protocol)
  if("${protocol}" STREQUAL "pull-noevm")
    set(_evb_desync_variant SETS ${EVB_PACKED_SETS} SUFFIX ${EVB_PACKED_SUFFIX})
  else()
    set(_evb_desync_variant)
  endif()
endmacro()

foreach(protocol pull push pull-noevm)
  evb_desync_variant(${protocol})
  foreach(nodes 2 3)
    set(name fault_desync_tcp_${protocol}_${nodes}nodes)
    evb_add_test_batched(_evb_desync_tests NAME ${name} ${_evb_desync_variant}
             COMMAND ${_evb_desync} --ru 1 --by 3 -- $<TARGET_FILE:evbench> run
                     ${_evb_desync_base} --set nodes=${nodes} --set protocol=${protocol})
  endforeach()
endforeach()
evb_add_test_batched(_evb_desync_tests NAME fault_desync_tcp_pull_split_repeat
         COMMAND ${_evb_desync} --ru 1 --by -2 -- $<TARGET_FILE:evbench> run ${_evb_desync_base}
                 --set nodes=3 --set layout=split
                 --set "faults=[{at: 500ms, desync: ru1, by: -2}]")
# Under on_ru_loss mask the EVM masks the RU out of sync instead of stopping:
# the run goes on without it (still exit 3: its out-of-sync events were not
# built).
foreach(protocol pull push)
  set(name fault_desync_mask_tcp_${protocol})
  evb_add_test_batched(_evb_desync_tests NAME ${name}
           COMMAND ${_evb_desync} --ru 1 --by 3 --masked -- $<TARGET_FILE:evbench> run
                   ${_evb_desync_base} --set nodes=3 --set protocol=${protocol}
                   --set on_ru_loss=mask)
endforeach()
set_tests_properties(${_evb_desync_tests} PROPERTIES TIMEOUT 90 LABELS "integration;faults")

# The driver matrix (driver_matrix.cmake): libfabric tcp and shm, UCX tcp and
# sm, each protocol, data path send on the first and write on the second.
set(_evb_desync_drivers)
if(TARGET evbench_driver_libfabric)
  list(APPEND _evb_desync_drivers "libfabric/tcp:provider:send" "libfabric/shm:provider:write")
endif()
if(TARGET evbench_driver_ucx)
  list(APPEND _evb_desync_drivers "ucx/tcp:tls:write" "ucx/sm:tls:send")
endif()
foreach(entry IN LISTS _evb_desync_drivers)
  string(REPLACE ":" ";" parts "${entry}")
  list(GET parts 0 target)
  list(GET parts 1 option)
  list(GET parts 2 path)
  string(REPLACE "/" ";" dv "${target}")
  list(GET dv 0 driver)
  list(GET dv 1 variant)
  foreach(protocol pull push pull-noevm)
    evb_desync_variant(${protocol})
    set(name fault_desync_${driver}_${variant}_${protocol}_${path})
    set(_evb_names)
    evb_add_test_batched(_evb_names NAME ${name} ${_evb_desync_variant}
             COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/probe_gate.py
                     $<TARGET_FILE:evbench> ${target} --
                     ${_evb_desync} --ru 1 --by 3 -- $<TARGET_FILE:evbench> run ${_evb_desync_base}
                     --set nodes=2 --set protocol=${protocol} --set driver=${driver}
                     --set driver_options.${option}=${variant} --set data_path=${path})
    set_tests_properties(${_evb_names} PROPERTIES TIMEOUT 90 LABELS "integration;faults"
                         SKIP_RETURN_CODE 77)
  endforeach()
endforeach()

# psm2 over libpsm2's shared-memory device, through scripts/with-psm2-shm.sh
# (as driver_matrix.cmake runs it); send only. verbs where the probe says it
# can run (no RDMA device here: not run, exit 77, with the probe's reason).
if(TARGET evbench_driver_psm2)
  foreach(protocol pull push pull-noevm)
    evb_desync_variant(${protocol})
    set(name fault_desync_psm2_shm_${protocol})
    set(_evb_names)
    evb_add_test_batched(_evb_names NAME ${name} ${_evb_desync_variant}
             COMMAND ${PROJECT_SOURCE_DIR}/scripts/with-psm2-shm.sh ${_evb_desync} --ru 1 --by 3 --
                     $<TARGET_FILE:evbench> run ${_evb_desync_base} --set nodes=2
                     --set protocol=${protocol} --set driver=psm2)
    set_tests_properties(${_evb_names} PROPERTIES TIMEOUT 90 LABELS "integration;faults")
  endforeach()
endif()
if(TARGET evbench_driver_verbs)
  foreach(protocol pull push pull-noevm)
    evb_desync_variant(${protocol})
    set(name fault_desync_verbs_${protocol})
    set(_evb_names)
    evb_add_test_batched(_evb_names NAME ${name} ${_evb_desync_variant}
             COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/probe_gate.py
                     $<TARGET_FILE:evbench> verbs -- ${_evb_desync} --ru 1 --by 3 --
                     $<TARGET_FILE:evbench> run ${_evb_desync_base} --set nodes=2
                     --set protocol=${protocol} --set driver=verbs)
    set_tests_properties(${_evb_names} PROPERTIES TIMEOUT 120 LABELS "integration;faults;verbs"
                         SKIP_RETURN_CODE 77)
  endforeach()
endif()

# mpi under mpirun (root, oversubscribed, loopback), as mpi_event_building.cmake
# runs it: every protocol over the shared-memory BTL, pull over the TCP BTL.
if(TARGET evbench_driver_mpi AND TARGET evbench_bootstrap_mpi)
  set(_evb_desync_mpi ${EVBENCH_MPIRUN} --oversubscribe --mca oob_tcp_if_include lo
      --mca btl_tcp_if_include lo --mca pml ob1)
  foreach(run "vader:pull" "vader:push" "vader:pull-noevm" "tcp:pull")
    string(REPLACE ":" ";" parts "${run}")
    list(GET parts 0 btl)
    list(GET parts 1 protocol)
    if(protocol STREQUAL "pull-noevm")
      set(np 2)
    else()
      set(np 3)  # 2 nodes + the EVM's rank
    endif()
    evb_desync_variant(${protocol})
    set(name fault_desync_mpi_${btl}_${protocol})
    set(_evb_names)
    evb_add_test_batched(_evb_names NAME ${name} ${_evb_desync_variant}
             COMMAND ${_evb_desync} --ru 1 --by 3 -- ${_evb_desync_mpi} --mca btl self,${btl}
                     -np ${np} $<TARGET_FILE:evbench> run ${_evb_desync_base} --set nodes=2
                     --set protocol=${protocol} --set driver=mpi --set bootstrap=mpi)
    set_tests_properties(${_evb_names} PROPERTIES TIMEOUT 90 LABELS "integration;faults;mpi"
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endforeach()
endif()
