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
foreach(protocol pull push pull-noevm)
  string(REPLACE "-" "_" id ${protocol})
  add_test(NAME fault_desync_mep_${id}
           COMMAND ${_evb_mep} --events 8 --desync 3 -- $<TARGET_FILE:evbench> run --quiet
                   --set fragment.events=8 --set fragment.size=4KiB --set duration=3s
                   --set warmup=200ms --set peer_timeout=20s --set nodes=3
                   --set protocol=${protocol} --set "faults=[{at: 500ms, desync: ru1, by: 3}]")
  list(APPEND _evb_mep_tests fault_desync_mep_${id})
endforeach()
set_tests_properties(${_evb_mep_tests} PROPERTIES TIMEOUT 90 LABELS "integration;mep")
set_tests_properties(fault_desync_mep_pull fault_desync_mep_push fault_desync_mep_pull_noevm
                     PROPERTIES LABELS "integration;faults;mep")
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
