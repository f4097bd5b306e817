# Multi-event fragments (fragment.events = p, docs/USER_GUIDE.md "Events,
# MEPs and batches"): a run of MEPs of 1000 events reports events = MEPs x
# 1000 (counts and rates) with every fragment's table and event numbers
# checked and zero integrity errors (mep_run.py); every protocol, both data
# paths' local fragment handling (in place and copied), a lognormal size
# distribution with metadata. A desync by 3 events inside MEPs of 8 is
# caught per event and named for every protocol. `events:` counts events
# and must be a multiple of p.
set(_evb_mep /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/mep_run.py)
set(_evb_mep_base --quiet --set fragment.size=200 --set fragment.events=1000
    --set verify.sample=1 --set peer_timeout=20s)
set(_evb_mep_tests)
foreach(protocol pull push pull-noevm)
  string(REPLACE "-" "_" id ${protocol})
  add_test(NAME eb_mep_1000_${id}
           COMMAND ${_evb_mep} --events 1000 -- $<TARGET_FILE:evbench> run ${_evb_mep_base}
                   --set protocol=${protocol} --set duration=1s --set warmup=200ms)
  list(APPEND _evb_mep_tests eb_mep_1000_${id})
endforeach()
add_test(NAME eb_mep_event_count_copy
         COMMAND ${_evb_mep} --events 1000 -- $<TARGET_FILE:evbench> run ${_evb_mep_base}
                 --set events=40000 --set warmup=0s --set local_fragment=copy --set nodes=3)
add_test(NAME eb_mep_lognormal_metadata
         COMMAND ${_evb_mep} --events 250 -- $<TARGET_FILE:evbench> run --quiet
                 --set fragment.events=250 --set fragment.size=1KiB
                 --set fragment.distribution=lognormal --set fragment.spread=0.3
                 --set fragment.meta_segments=2 --set fragment.meta_size=1KiB
                 --set fragment.data_segments=2 --set verify.sample=1 --set duration=1s
                 --set warmup=200ms --set peer_timeout=20s --set ru_rate_factors=[1,1,2,0.5])
list(APPEND _evb_mep_tests eb_mep_event_count_copy eb_mep_lognormal_metadata)
set_tests_properties(${_evb_mep_tests} PROPERTIES TIMEOUT 90 LABELS "integration;mep")
# The fault suite's tests below also run with batch.events 4 (NAME_batch4,
# variants/batched.cmake; they pack already), but for pull-noevm's, which
# has no EVM to batch for and refuses the key: it runs once.
set(_evb_mep_fault_tests)
foreach(protocol pull push)
  evb_add_test_batched(_evb_mep_fault_tests NAME fault_desync_mep_${protocol}
           SETS ${EVB_BATCH_ONLY_SETS} SUFFIX ${EVB_BATCH_ONLY_SUFFIX}
           COMMAND ${_evb_mep} --events 8 --desync 3 -- $<TARGET_FILE:evbench> run --quiet
                   --set fragment.events=8 --set fragment.size=4KiB --set duration=3s
                   --set warmup=200ms --set peer_timeout=20s --set nodes=3
                   --set protocol=${protocol} --set "faults=[{at: 500ms, desync: ru1, by: 3}]")
endforeach()
add_test(NAME fault_desync_mep_pull_noevm
         COMMAND ${_evb_mep} --events 8 --desync 3 -- $<TARGET_FILE:evbench> run --quiet
                 --set fragment.events=8 --set fragment.size=4KiB --set duration=3s
                 --set warmup=200ms --set peer_timeout=20s --set nodes=3
                 --set protocol=pull-noevm --set "faults=[{at: 500ms, desync: ru1, by: 3}]")
list(APPEND _evb_mep_fault_tests fault_desync_mep_pull_noevm)
# events: must be a multiple of fragment.events (whole MEPs are built).
add_test(NAME cli_mep_events_multiple
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py --no-json --expect-exit 2
                 --expect-stderr "is not a multiple of fragment.events"
                 -- $<TARGET_FILE:evbench> validate --set fragment.events=1000 --set fragment.size=200
                 --set events=1500)
add_test(NAME cli_mep_microbench_refused
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py --no-json --expect-exit 2 --expect-stderr "fragment.events must be 1"
                 -- $<TARGET_FILE:evbench> validate --set protocol=one-to-one
                 --set fragment.events=4)
set_tests_properties(cli_mep_events_multiple cli_mep_microbench_refused
                     PROPERTIES TIMEOUT 30 LABELS "integration;mep")

# The fault and monitor suites' cases with MEPs of 64 events
# (fault_run.py, check_result.py as there): a BU killed (its MEPs
# reassigned and built once), an RU lost under on_ru_loss mask, seeded bit
# flips in header, table, metadata and payload all detected, a desync inside
# MEPs masked instead of stopping the run, and a replayed control list whose
# phases add up to the headline's events.
set(_evb_mep_small --set fragment.events=64 --set fragment.size=1KiB)
evb_add_test_batched(_evb_mep_fault_tests NAME fault_mep_kill_bu_pull
         SETS ${EVB_BATCH_ONLY_SETS} SUFFIX ${EVB_BATCH_ONLY_SUFFIX}
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/fault_run.py $<TARGET_FILE:evbench>
                 --expect-failure "BU 1" --expect-kind peer_lost --expect-reassigned
                 -- --set nodes=2 --set parallel=2 --set layout=split --set duration=3s
                 --set warmup=200ms --set ru_buffer=4MiB --set peer_timeout=20s
                 --set on_failure=exclude --set protocol=pull ${_evb_mep_small}
                 --set "faults=[{at: 1s, stall: bu1, for: 200ms}, {at: 1s, kill: bu1}]")
evb_add_test_batched(_evb_mep_fault_tests NAME fault_mep_mask_ru_push
         SETS ${EVB_BATCH_ONLY_SETS} SUFFIX ${EVB_BATCH_ONLY_SUFFIX}
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/fault_run.py $<TARGET_FILE:evbench>
                 --expect-masked "RU 2" --expect-failure "RU 2" --expect-failure "BU 2"
                 --expect-reassigned
                 -- --set nodes=4 --set on_failure=exclude --set duration=3s --set warmup=200ms
                 --set peer_timeout=20s --set "faults=[{at: 1s, kill: bu2}]"
                 --set on_ru_loss=mask --set protocol=push ${_evb_mep_small})
evb_add_test_batched(_evb_mep_fault_tests NAME fault_mep_corrupt_push
         SETS ${EVB_BATCH_ONLY_SETS} SUFFIX ${EVB_BATCH_ONLY_SUFFIX}
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py
                 --expect-json results.status=ok --expect-json results.faults.0.undetected=0
                 --expect-json-gt results.faults.0.header.injected=0
                 --expect-json-gt results.faults.0.metadata.injected=0
                 --expect-json-gt results.faults.0.payload.injected=0
                 --expect-json results.integrity.lost=0
                 -- $<TARGET_FILE:evbench> run --quiet --set protocol=push --set events=9600
                 --set fragment.events=16 --set fragment.size=1KiB --set warmup=0s
                 --set scheduling=random --set fragment.meta_segments=2
                 --set fragment.meta_size=1KiB --set fault.corrupt=0.05 --set peer_timeout=20s)
evb_add_test_batched(_evb_mep_fault_tests NAME fault_desync_mep_mask_push
         SETS ${EVB_BATCH_ONLY_SETS} SUFFIX ${EVB_BATCH_ONLY_SUFFIX}
         COMMAND ${_evb_mep} --events 8 --desync 3 -- $<TARGET_FILE:evbench> run --quiet
                 --set fragment.events=8 --set fragment.size=4KiB --set duration=3s
                 --set warmup=200ms --set peer_timeout=20s --set nodes=3 --set protocol=push
                 --set on_ru_loss=mask --set "faults=[{at: 500ms, desync: ru1, by: 3}]")
set(_evb_mep_control_tests)
evb_add_test_batched(_evb_mep_control_tests NAME control_mep_list_replayed_pull
         SETS ${EVB_BATCH_ONLY_SETS} SUFFIX ${EVB_BATCH_ONLY_SUFFIX}
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py
                 --expect-json results.control.0.key=parallel
                 --expect-json results.control.3.key=credits --expect-stdout "# control at"
                 -- $<TARGET_FILE:evbench> run --set duration=2s --set warmup=0s --set nodes=3
                 --set peer_timeout=20s ${_evb_mep_small}
                 --set "control=[{at: 1.4s, credits: 1}, {at: 0.5s, parallel: 1}, {at: 0.8s, pause: true}, {at: 1.1s, resume: true}]")
set_tests_properties(${_evb_mep_fault_tests} PROPERTIES TIMEOUT 90
                     LABELS "integration;faults;mep")
set_tests_properties(${_evb_mep_control_tests} PROPERTIES TIMEOUT 90
                     LABELS "integration;monitor;mep")

# data_path write: MEPs written into BU windows sized for p events (a driver
# with one-sided writes: libfabric tcp, UCX shared memory).
set(_evb_mep_write)
if(TARGET evbench_driver_libfabric)
  list(APPEND _evb_mep_write "libfabric:provider=tcp")
endif()
if(TARGET evbench_driver_ucx)
  list(APPEND _evb_mep_write "ucx:tls=sm")
endif()
foreach(entry IN LISTS _evb_mep_write)
  string(REPLACE ":" ";" parts "${entry}")
  list(GET parts 0 driver)
  list(GET parts 1 option)
  add_test(NAME eb_mep_write_${driver}
           COMMAND ${_evb_mep} --events 1000 -- $<TARGET_FILE:evbench> run ${_evb_mep_base}
                   --set driver=${driver} --set driver_options.${option} --set data_path=write
                   --set duration=1s --set warmup=200ms)
  set_tests_properties(eb_mep_write_${driver} PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77
                       LABELS "integration;mep")
endforeach()

# The LHCb-like high-rate configuration (200 B per collision and source,
# MEPs of 5000): valid as shipped, and a shortened run with a 256 MiB ring.
add_test(NAME cli_validate_config_lhcb-mep
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py --no-json
                 -- $<TARGET_FILE:evbench> validate ${PROJECT_SOURCE_DIR}/configs/lhcb-mep.yaml)
add_test(NAME eb_config_lhcb_mep
         COMMAND ${_evb_mep} --events 5000 -- $<TARGET_FILE:evbench> run
                 ${PROJECT_SOURCE_DIR}/configs/lhcb-mep.yaml --quiet --set duration=1s
                 --set warmup=200ms --set verify.sample=1 --set peer_timeout=20s
                 --set ru_buffer=256MiB)
set_tests_properties(cli_validate_config_lhcb-mep eb_config_lhcb_mep PROPERTIES TIMEOUT 90
                     LABELS "integration;mep")

# Batches of MEPs: batch.events 16 carries up to 16 MEP credits,
# assignments or requests per message; every event still checked and counted.
# 2 s: with 32 MEPs of 1000 events in flight per BU, the first wave took
# 1.4 s (p50) at load 19 and a 1 s run's window saw no MEP completed.
foreach(protocol pull push)
  add_test(NAME eb_mep_batch_${protocol}
           COMMAND ${_evb_mep} --events 1000 -- $<TARGET_FILE:evbench> run ${_evb_mep_base}
                   --set protocol=${protocol} --set batch.events=16 --set duration=2s
                   --set warmup=200ms)
  set_tests_properties(eb_mep_batch_${protocol} PROPERTIES TIMEOUT 90 LABELS "integration;mep")
endforeach()
