# Event building over every data path a driver has: protocol x scheduling x
# data path (send, write) over libfabric's tcp and shm providers and UCX's tcp
# and shared-memory transports, each run
# asserting every assigned event was built exactly once with zero integrity
# errors and that the results name the data path that ran. tcp has no
# rdma_write: data_path write is refused at validation with exit 2.
set(_evb_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
set(_evb_gate /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/probe_gate.py $<TARGET_FILE:evbench>)
set(_evb_short --set duration=1s --set warmup=200ms --set verify.sample=1 --set peer_timeout=20s --quiet)

if(TARGET evbench_driver_libfabric)
  foreach(provider tcp shm)
    foreach(protocol pull push pull-noevm)
      foreach(scheduling barrel random)
        foreach(path send write)
          set(name eb_libfabric_${provider}_${protocol}_${scheduling}_${path})
          add_test(NAME ${name}
                   COMMAND ${_evb_check} --expect-json results.data_path=${path}
                           -- $<TARGET_FILE:evbench> run ${_evb_short}
                           --set driver=libfabric --set driver_options.provider=${provider}
                           --set protocol=${protocol} --set scheduling=${scheduling}
                           --set data_path=${path})
          set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS integration)
        endforeach()
      endforeach()
    endforeach()
  endforeach()
  # auto picks write where the driver can; split layout (RU and BU apart).
  add_test(NAME eb_libfabric_shm_auto_split
           COMMAND ${_evb_check} --expect-json results.data_path=write
                   -- $<TARGET_FILE:evbench> run ${_evb_short} --set driver=libfabric
                   --set driver_options.provider=shm --set layout=split)
  set_tests_properties(eb_libfabric_shm_auto_split PROPERTIES TIMEOUT 60 LABELS integration)
endif()

if(TARGET evbench_driver_ucx)
  foreach(tls tcp sm)
    foreach(protocol pull push pull-noevm)
      foreach(scheduling barrel random)
        foreach(path send write)
          set(name eb_ucx_${tls}_${protocol}_${scheduling}_${path})
          add_test(NAME ${name}
                   COMMAND ${_evb_check} --expect-json results.data_path=${path}
                           --expect-json results.driver=ucx/${tls}
                           -- $<TARGET_FILE:evbench> run ${_evb_short}
                           --set driver=ucx --set driver_options.tls=${tls}
                           --set protocol=${protocol} --set scheduling=${scheduling}
                           --set data_path=${path})
          set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS integration)
        endforeach()
      endforeach()
    endforeach()
    # A worker killed mid-run: exit 1, the lost rank named, nothing left.
    add_test(NAME eb_ucx_${tls}_rank_killed
             COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/kill_rank.py
                     $<TARGET_FILE:evbench> --rank 1 --nprocs 5 --units "RU 1, BU 1"
                     --set driver=ucx --set driver_options.tls=${tls})
    set_tests_properties(eb_ucx_${tls}_rank_killed PROPERTIES TIMEOUT 60 LABELS integration)
  endforeach()
  # data_path auto takes the variant's faster path (bench/data_path.sh):
  # puts over shared memory, tagged sends where only tcp carries them.
  add_test(NAME eb_ucx_sm_auto_is_write
           COMMAND ${_evb_check} --expect-json results.data_path=write
                   -- $<TARGET_FILE:evbench> run ${_evb_short} --set driver=ucx
                   --set driver_options.tls=sm)
  add_test(NAME eb_ucx_tcp_auto_is_send
           COMMAND ${_evb_check} --expect-json results.data_path=send
                   -- $<TARGET_FILE:evbench> run ${_evb_short} --set driver=ucx
                   --set driver_options.tls=tcp)
  set_tests_properties(eb_ucx_sm_auto_is_write eb_ucx_tcp_auto_is_send
                       PROPERTIES TIMEOUT 60 LABELS integration)
endif()

add_test(NAME eb_tcp_write_refused
         COMMAND ${_evb_check} --no-json --expect-exit 2 --expect-stderr "driver tcp has no rdma_write"
                 -- $<TARGET_FILE:evbench> run ${_evb_short} --set data_path=write)
add_test(NAME eb_tcp_auto_is_send
         COMMAND ${_evb_check} --expect-json results.data_path=send
                 -- $<TARGET_FILE:evbench> run ${_evb_short})
# Fragment layouts at the key limits (64 metadata segments; 64 data segments):
# they run cleanly (also in the sanitizer build, label sanitize).
add_test(NAME eb_segments_meta64
         COMMAND ${_evb_check} -- $<TARGET_FILE:evbench> run ${_evb_short}
                 --set fragment.meta_segments=64 --set fragment.meta_size=64)
add_test(NAME eb_segments_data64
         COMMAND ${_evb_check} -- $<TARGET_FILE:evbench> run ${_evb_short}
                 --set fragment.data_segments=64)
set_tests_properties(eb_tcp_write_refused eb_tcp_auto_is_send eb_segments_meta64
                     eb_segments_data64 PROPERTIES TIMEOUT 60 LABELS "integration;sanitize")

# psm2 over libpsm2's shared-memory device, through scripts/with-psm2-shm.sh
# (an hfi1 device presented in a private mount namespace, a private
# /dev/shm): protocol x scheduling at 512 KiB fragments, and 4 MiB fragments
# (rendezvous-size, the sizes that hung before the driver progressed the
# endpoint in every poll) for each protocol. psm2 has no rdma_write: send only.
if(TARGET evbench_driver_psm2)
  set(_evb_psm2 ${PROJECT_SOURCE_DIR}/scripts/with-psm2-shm.sh)
  foreach(protocol pull push pull-noevm)
    foreach(scheduling barrel random)
      set(name eb_psm2_shm_${protocol}_${scheduling})
      add_test(NAME ${name}
               COMMAND ${_evb_psm2} ${_evb_check} --expect-json results.data_path=send
                       --expect-json results.driver=psm2
                       -- $<TARGET_FILE:evbench> run ${_evb_short} --set driver=psm2
                       --set protocol=${protocol} --set scheduling=${scheduling})
      set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS integration)
    endforeach()
    set(name eb_psm2_shm_${protocol}_4MiB)
    add_test(NAME ${name}
             COMMAND ${_evb_psm2} ${_evb_check} --expect-json results.data_path=send
                     -- $<TARGET_FILE:evbench> run ${_evb_short} --set driver=psm2
                     --set protocol=${protocol} --set fragment.size=4MiB)
    set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS integration)
  endforeach()
  # A worker killed mid-run: exit 1, the lost rank named, nothing left (the
  # shm device does not notice; the launcher and peer_timeout do).
  add_test(NAME eb_psm2_shm_rank_killed
           COMMAND ${_evb_psm2} /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/kill_rank.py
                   $<TARGET_FILE:evbench> --rank 1 --nprocs 5 --units "RU 1, BU 1"
                   --set driver=psm2)
  set_tests_properties(eb_psm2_shm_rank_killed PROPERTIES TIMEOUT 60 LABELS integration)
  # Without the harness there is no hfi1 device: the run refuses early. Not
  # run (exit 77) where the probe says psm2 can run (a real hfi1 device).
  add_test(NAME eb_psm2_absent_refused
           COMMAND ${_evb_gate} psm2 --expect-cannot --
                   ${_evb_check} --no-json --expect-exit 2
                   --expect-stderr "driver 'psm2' cannot run here"
                   -- $<TARGET_FILE:evbench> run ${_evb_short} --set driver=psm2)
  set_tests_properties(eb_psm2_absent_refused PROPERTIES TIMEOUT 60 LABELS integration
                       SKIP_RETURN_CODE 77)
endif()

# verbs: no RDMA device here, so the run must refuse before any rank starts,
# with the reason `evbench drivers` gives. Where the probe says verbs can run
# this test reports itself not run (exit 77); the decision is the probe's
# structured answer (probe_gate.py on `evbench drivers --json`).
if(TARGET evbench_driver_verbs)
  add_test(NAME eb_verbs_absent_refused
           COMMAND ${_evb_gate} verbs --expect-cannot --
                   ${_evb_check} --no-json --expect-exit 2
                   --expect-stderr "driver 'verbs' cannot run here: built; no RDMA device found"
                   -- $<TARGET_FILE:evbench> run ${_evb_short} --set driver=verbs)
  set_tests_properties(eb_verbs_absent_refused PROPERTIES TIMEOUT 60 LABELS integration
                       SKIP_RETURN_CODE 77)
endif()

# verbs event building for real, protocol x data path, where the probe says
# verbs can run (`evbench drivers --json`: can_run true); elsewhere each run
# reports itself not run with the probe's reason (exit 77 = SKIPPED). If the
# probe says it can run, the run runs: failing to create the driver fails.
if(TARGET evbench_driver_verbs)
  foreach(protocol pull push pull-noevm)
    foreach(path send write)
      set(name eb_verbs_${protocol}_${path})
      add_test(NAME ${name}
               COMMAND ${_evb_gate} verbs --
                       ${_evb_check} --expect-json results.data_path=${path}
                       --expect-json results.driver=verbs
                       -- $<TARGET_FILE:evbench> run ${_evb_short} --set driver=verbs
                       --set protocol=${protocol} --set data_path=${path})
      set_tests_properties(${name} PROPERTIES TIMEOUT 120 LABELS "integration;verbs"
                           SKIP_RETURN_CODE 77)
    endforeach()
  endforeach()
endif()

# One short event-building run (1 s) per driver and transport that runs here
# also in the sanitizer build (scripts/test.sh: ctest -L 'unit|sanitize' in
# build-asan): libfabric tcp;ofi_rxm and shm, UCX tcp and sm, psm2 over its
# shared-memory device; tcp is eb_tcp_auto_is_send above. mpi is not in the
# sanitizer build (Open MPI's own allocations are not ours to judge).
set(_evb_sanitize_runs)
if(TARGET evbench_driver_libfabric)
  list(APPEND _evb_sanitize_runs eb_libfabric_tcp_pull_barrel_send
       eb_libfabric_shm_push_random_write)
endif()
if(TARGET evbench_driver_ucx)
  list(APPEND _evb_sanitize_runs eb_ucx_tcp_pull_barrel_send eb_ucx_sm_push_random_write)
endif()
if(TARGET evbench_driver_psm2)
  list(APPEND _evb_sanitize_runs eb_psm2_shm_pull_barrel)
endif()
if(_evb_sanitize_runs)
  set_tests_properties(${_evb_sanitize_runs} PROPERTIES LABELS "integration;sanitize")
endif()
