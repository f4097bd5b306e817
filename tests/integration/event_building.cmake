# Event building end to end over the TCP driver with the local bootstrap:
# every protocol x scheduling x layout, each asserting every assigned event
# was built exactly once with zero integrity errors (check_result.py).
set(_evb_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
set(_evb_short --set duration=1s --set warmup=200ms --set verify.sample=1 --set peer_timeout=20s --quiet)

foreach(protocol pull push pull-noevm)
  foreach(scheduling barrel random)
    foreach(layout rubu split)
      set(name eb_${protocol}_${scheduling}_${layout})
      add_test(NAME ${name}
               COMMAND ${_evb_check} -- $<TARGET_FILE:evbench> run ${_evb_short}
                       --set protocol=${protocol} --set scheduling=${scheduling}
                       --set layout=${layout})
      set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS integration)
    endforeach()
  endforeach()
endforeach()

# EVM beside rank 0, FUs with processing time, size distributions, LHCb-like segments.
add_test(NAME eb_evm_with_rank0
         COMMAND ${_evb_check} -- $<TARGET_FILE:evbench> run ${_evb_short} --set evm=with-rank0)
add_test(NAME eb_lhcb_segments_lognormal
         COMMAND ${_evb_check} -- $<TARGET_FILE:evbench> run ${_evb_short}
                 --set fragment.distribution=lognormal --set fragment.spread=0.3
                 --set fragment.data_segments=2 --set fragment.meta_segments=2
                 --set fragment.meta_size=10KiB --set fu_per_bu=2 --set fu.processing_time=1ms
                 --set ru_rate_factors=[1,1,2,0.5])
# page_size: huge gives 2 MiB-aligned rings and windows advised for huge
# pages; the run is the same (every event once, every fragment checked) and
# every rank (each holds a 6 MiB RU ring and BU windows) reports huge pages
# from the kernel (results.anon_huge_bytes > 0) when transparent huge pages
# are [always] or [madvise]; with them [never], exit 77 says why
# (check_huge_pages.py).
add_test(NAME eb_huge_pages
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_huge_pages.py
                 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py 0,1,2,3
                 -- $<TARGET_FILE:evbench> run ${_evb_short} --set page_size=huge
                 --set ru_buffer=6MiB --set evm=with-rank0)
set_tests_properties(eb_huge_pages PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77 LABELS integration)
# events: N builds exactly N events (check_result.py: built == assigned, no
# integrity error), for every protocol; 501 does not divide among 4 BUs.
add_test(NAME eb_event_count
         COMMAND ${_evb_check} --expect-json results.events_built=500
                 --expect-json-gt results.peak_rss_bytes.0=0 --expect-json-gt results.peak_rss_bytes.4=0
                 -- $<TARGET_FILE:evbench> run --quiet
                 --set events=500 --set warmup=0s --set verify.sample=1)
foreach(protocol push pull-noevm)
  string(REPLACE "-" "_" id ${protocol})
  add_test(NAME eb_event_count_${id}
           COMMAND ${_evb_check} --expect-json results.events_built=501
                   -- $<TARGET_FILE:evbench> run --quiet --set protocol=${protocol}
                   --set events=501 --set warmup=0s --set verify.sample=1 --set peer_timeout=20s)
  set_tests_properties(eb_event_count_${id} PROPERTIES TIMEOUT 60 LABELS integration)
endforeach()
# Every event finishes inside a long warm-up: the whole run is measured
# (positive bandwidth, said in the JSON), not an empty window read as 0 Gb/s.
add_test(NAME eb_event_count_within_warmup
         COMMAND ${_evb_check} --expect-json results.events_built=40
                 --expect-json results.warmup_ignored=True
                 --expect-json-gt results.bandwidth_gbps.aggregate=0
                 --expect-json-gt results.events_per_second=0
                 -- $<TARGET_FILE:evbench> run --quiet --set events=40 --set warmup=600s
                 --set verify.sample=1)
# FUs busier than peer_timeout: a healthy run, not "no progress".
add_test(NAME eb_fu_processing_above_peer_timeout
         COMMAND ${_evb_check} --expect-json results.events_built=8
                 -- $<TARGET_FILE:evbench> run --quiet --set events=8 --set warmup=0s
                 --set peer_timeout=0.2s --set fu.processing_time=600ms --set credits=1)
set_tests_properties(eb_event_count_within_warmup eb_fu_processing_above_peer_timeout
                     PROPERTIES TIMEOUT 60 LABELS integration)
# Fault injection: corrupted checksums are found, counted and make the exit status 3.
add_test(NAME eb_corruption_detected
         COMMAND ${_evb_check} --expect-exit 3 --expect-stdout "FAILED: integrity errors"
                 --expect-json results.status=integrity_error
                 --expect-json-gt results.integrity.corrupt=0
                 --expect-json-gt results.integrity.corrupt_events=0
                 -- $<TARGET_FILE:evbench> run ${_evb_short} --set fault.corrupt_every=50)
# local_fragment: the own RU's fragment checked in place (every fragment
# checked: the in-place checks see what a copy's would), or copied. Events
# built exactly once either way; only in_place counts fragments_in_place.
foreach(protocol pull pull-noevm)
  string(REPLACE "-" "_" id ${protocol})
  foreach(mode in_place copy)
    if(mode STREQUAL "in_place")
      set(_evb_in_place --expect-json-gt results.fragments_in_place=0)
    else()
      set(_evb_in_place --expect-json results.fragments_in_place=0)
    endif()
    add_test(NAME eb_local_fragment_${mode}_${id}
             COMMAND ${_evb_check} --expect-json results.status=ok
                     --expect-json results.events_built=400 ${_evb_in_place}
                     --expect-json config.local_fragment=${mode}
                     -- $<TARGET_FILE:evbench> run --quiet --set protocol=${protocol}
                     --set events=400 --set warmup=0s --set verify.sample=1
                     --set local_fragment=${mode} --set fragment.meta_segments=1
                     --set fragment.meta_size=256B)
    set_tests_properties(eb_local_fragment_${mode}_${id} PROPERTIES TIMEOUT 60 LABELS integration)
  endforeach()
endforeach()
# In place, a corrupt fragment of the own RU is caught as well: every RU
# corrupts every 50th checksum, and 1 node means every fragment is local.
add_test(NAME eb_local_fragment_in_place_corruption
         COMMAND ${_evb_check} --expect-exit 3 --expect-json results.status=integrity_error
                 --expect-json results.integrity.corrupt=4
                 --expect-json results.fragments_in_place=200
                 -- $<TARGET_FILE:evbench> run --quiet --set nodes=1 --set events=200
                 --set warmup=0s --set fault.corrupt_every=50 --set verify.sample=1)
set_tests_properties(eb_local_fragment_in_place_corruption PROPERTIES TIMEOUT 60 LABELS integration)
# One node without an EVM is one process: the tcp driver has no peer, and its
# command receives must stay posted rather than fail "peer closed".
add_test(NAME eb_single_node_pull_noevm
         COMMAND ${_evb_check} --expect-json results.events_built=50
                 -- $<TARGET_FILE:evbench> run --quiet --set nodes=1 --set protocol=pull-noevm
                 --set events=50 --set warmup=0s)
set_tests_properties(eb_single_node_pull_noevm PROPERTIES TIMEOUT 60 LABELS integration)
# As a new user would try it: three nodes and a lognormal size spread with
# nothing else set (parallel adapts to nodes, the spread takes its default).
add_test(NAME eb_new_user_nodes3_lognormal
         COMMAND ${_evb_check} --expect-json results.events_built=90
                 --expect-json config.parallel=3 --expect-json config.fragment.spread=0.3
                 -- $<TARGET_FILE:evbench> run --quiet --set nodes=3
                 --set fragment.distribution=lognormal --set events=90 --set warmup=0s)
set_tests_properties(eb_new_user_nodes3_lognormal PROPERTIES TIMEOUT 60 LABELS integration)
# Injected corruption (fault.corrupt): one seeded bit flipped in a header,
# the metadata or the payload of 5 % of the fragments on arrival; every one is
# detected (injected == detected == corrupt), in each of the three places,
# every other event built, exit 0.
foreach(protocol pull push pull-noevm)
  string(REPLACE "-" "_" id ${protocol})
  add_test(NAME eb_fault_corrupt_${id}
           COMMAND ${_evb_check} --expect-json results.status=ok
                   --expect-json results.faults.0.kind=corrupt
                   --expect-json results.faults.0.undetected=0
                   --expect-json-gt results.faults.0.injected=0
                   --expect-json results.faults.0.header.undetected=0
                   --expect-json-gt results.faults.0.header.injected=0
                   --expect-json results.faults.0.metadata.undetected=0
                   --expect-json-gt results.faults.0.metadata.injected=0
                   --expect-json results.faults.0.payload.undetected=0
                   --expect-json-gt results.faults.0.payload.injected=0
                   --expect-json results.integrity.lost=0
                   -- $<TARGET_FILE:evbench> run --quiet --set protocol=${protocol}
                   --set events=600 --set warmup=0s --set scheduling=random
                   --set fragment.meta_segments=2 --set fragment.meta_size=1KiB
                   --set fault.corrupt=0.05 --set peer_timeout=20s)
  set_tests_properties(eb_fault_corrupt_${id} PROPERTIES TIMEOUT 60 LABELS integration)
endforeach()
# The same as a `faults:` entry, next to a timed stall whose recovery the
# results report (level before the stall, recovery time or null).
add_test(NAME eb_fault_corrupt_list
         COMMAND ${_evb_check} --expect-json results.status=ok
                 --expect-json results.faults.0.kind=corrupt
                 --expect-json results.faults.0.undetected=0
                 --expect-json-gt results.faults.0.injected=0
                 --expect-json results.faults.1.kind=stall
                 --expect-json-gt results.faults.1.pre_fault_gbps=0
                 --expect-json-gt results.faults.1.recovery_resolution_s=0
                 --expect-json results.integrity.lost=0
                 -- $<TARGET_FILE:evbench> run --quiet --set duration=2s --set warmup=200ms
                 --set fragment.meta_segments=2 --set fragment.meta_size=1KiB
                 --set "faults=[{corrupt: 0.02}, {at: 1s, stall: ru1, for: 100ms}]"
                 --set peer_timeout=20s)
set_tests_properties(eb_fault_corrupt_list PROPERTIES TIMEOUT 60 LABELS integration)
# Bad configuration: file:line:column and a suggestion, exit 2, nothing started.
# A key the protocol does not read draws one warning per job: from the first
# rank, not from every rank a launcher started.
add_test(NAME cli_unused_key_warning_rank0
         COMMAND ${CMAKE_COMMAND} -E env EVBENCH_RANK=0
                 ${_evb_check} --no-json --expect-stderr "shift: not read by protocol pull"
                 -- $<TARGET_FILE:evbench> validate ${PROJECT_SOURCE_DIR}/configs/default.yaml
                 --set shift=2)
add_test(NAME cli_unused_key_warning_later_rank
         COMMAND ${CMAKE_COMMAND} -E env EVBENCH_RANK=3
                 ${_evb_check} --no-json --reject-stderr "not read by protocol"
                 -- $<TARGET_FILE:evbench> validate ${PROJECT_SOURCE_DIR}/configs/default.yaml
                 --set shift=2)
set_tests_properties(cli_unused_key_warning_rank0 cli_unused_key_warning_later_rank
                     PROPERTIES TIMEOUT 60 LABELS integration)
add_test(NAME cli_validate_typo
         COMMAND ${_evb_check} --no-json --expect-exit 2
                 --expect-stderr "typo.yaml:3:1: credts: unknown key (did you mean 'credits'?)"
                 -- $<TARGET_FILE:evbench> validate ${CMAKE_CURRENT_SOURCE_DIR}/data/typo.yaml)
foreach(cfg default lhcb mpi)
  add_test(NAME cli_validate_config_${cfg}
           COMMAND ${_evb_check} --no-json -- $<TARGET_FILE:evbench> validate
                   ${PROJECT_SOURCE_DIR}/configs/${cfg}.yaml)
  set_tests_properties(cli_validate_config_${cfg} PROPERTIES TIMEOUT 60 LABELS integration)
endforeach()
# The LHCb-like exchange, shortened, with a 256 MiB ring.
add_test(NAME eb_config_lhcb
         COMMAND ${_evb_check} -- $<TARGET_FILE:evbench> run ${PROJECT_SOURCE_DIR}/configs/lhcb.yaml
                 ${_evb_short} --set ru_buffer=256MiB)
set_tests_properties(eb_config_lhcb PROPERTIES TIMEOUT 60 LABELS integration)
# A rank killed mid-run: the run fails with exit 1, the launcher names that
# rank (and no other), the first survivor to fail names its units, and no
# process survives. An RU+BU rank, the dedicated EVM, a BU-only rank (split).
set(_evb_kill /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/kill_rank.py $<TARGET_FILE:evbench>)
add_test(NAME eb_rank_killed
         COMMAND ${_evb_kill} --rank 2 --nprocs 5 --units "RU 2, BU 2")
add_test(NAME eb_rank_killed_evm_push
         COMMAND ${_evb_kill} --rank 4 --nprocs 5 --units "EVM" --set protocol=push)
add_test(NAME eb_rank_killed_bu_split_noevm
         COMMAND ${_evb_kill} --rank 3 --nprocs 4 --units "BU 1" --set protocol=pull-noevm
                 --set layout=split --set nodes=2)
# docs/CONFIG.md is generated from the key table and must be current.
add_test(NAME docs_config_reference_current
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_config_doc.py
                 $<TARGET_FILE:evbench> ${PROJECT_SOURCE_DIR}/docs/CONFIG.md)
# `evbench config --json` (read by scan/) lists what --explain lists, with the
# defaults and unit factors the loader applies.
add_test(NAME cli_config_json
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_config_json.py
                 $<TARGET_FILE:evbench>)
set_tests_properties(eb_evm_with_rank0 eb_lhcb_segments_lognormal eb_event_count
                     eb_corruption_detected cli_validate_typo
                     eb_rank_killed eb_rank_killed_evm_push eb_rank_killed_bu_split_noevm
                     docs_config_reference_current cli_config_json
                     PROPERTIES TIMEOUT 60 LABELS integration)
# The env bootstrap: ranks started by hand (as a script or srun would).
add_test(NAME eb_env_bootstrap
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/env_bootstrap.py $<TARGET_FILE:evbench>)
set_tests_properties(eb_env_bootstrap PROPERTIES TIMEOUT 90 LABELS integration)
