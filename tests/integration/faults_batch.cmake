# The fault and desync suites (faults.cmake, desync.cmake, which this file
# follows) with command batches in flight: batch.events 4 (credits, unset,
# rise to 8). A representative subset, not every test twice (each takes
# seconds on a loaded machine): a BU killed under PULL and PUSH (its whole
# batches reassigned, every event built once), an RU killed (its events
# incomplete), an RU masked (on_ru_loss mask), a BU excluded for silence
# (what it sends late discarded), and an RU out of sync under PULL and PUSH
# (PUSH: the EVM's answer) and under mask.
set(_evb_batch --set batch.events=4)
set(_evb_fault_batch_tests)
foreach(protocol pull push)
  set(name fault_kill_bu_${protocol}_batch4)
  add_test(NAME ${name}
           COMMAND ${_evb_fault} --expect-failure "BU 1" --expect-kind peer_lost
                   --expect-reassigned --expect-stderr "BU 1 (rank 3) lost at"
                   -- ${_evb_fault_base} ${_evb_batch} --set protocol=${protocol}
                   --set "faults=[{at: 1s, stall: bu1, for: 200ms}, {at: 1s, kill: bu1}]")
  set(name_mask fault_mask_ru_rubu_${protocol}_batch4)
  add_test(NAME ${name_mask}
           COMMAND ${_evb_fault} --expect-masked "RU 2" --expect-failure "RU 2"
                   --expect-failure "BU 2" --expect-reassigned
                   -- ${_evb_rubu_kill} ${_evb_batch} --set on_ru_loss=mask
                   --set protocol=${protocol})
  set(name_desync fault_desync_tcp_${protocol}_3nodes_batch4)
  add_test(NAME ${name_desync}
           COMMAND ${_evb_desync} --ru 1 --by 3 -- $<TARGET_FILE:evbench> run
                   ${_evb_desync_base} ${_evb_batch} --set nodes=3 --set protocol=${protocol})
  list(APPEND _evb_fault_batch_tests ${name} ${name_mask} ${name_desync})
endforeach()
add_test(NAME fault_kill_ru_pull_batch4
         COMMAND ${_evb_fault} --expect-failure "RU 1" --expect-incomplete
                 -- ${_evb_fault_base} ${_evb_batch} --set protocol=pull
                 --set "faults=[{at: 1s, stall: ru1, for: 300ms}, {at: 1s, kill: ru1}]")
add_test(NAME fault_stall_long_excluded_pull_batch4
         COMMAND ${_evb_fault} --expect-failure "BU 1" --expect-kind excluded_silent
                 --expect-late-discarded
                 -- ${_evb_fault_base} ${_evb_batch} --set protocol=pull
                 --set failure_detection=700ms
                 --set "faults=[{at: 1s, stall: bu1, for: 1500ms}]")
add_test(NAME fault_desync_mask_tcp_pull_batch4
         COMMAND ${_evb_desync} --ru 1 --by 3 --masked -- $<TARGET_FILE:evbench> run
                 ${_evb_desync_base} ${_evb_batch} --set nodes=3 --set protocol=pull
                 --set on_ru_loss=mask)
list(APPEND _evb_fault_batch_tests fault_kill_ru_pull_batch4 fault_stall_long_excluded_pull_batch4
     fault_desync_mask_tcp_pull_batch4)
set_tests_properties(${_evb_fault_batch_tests} PROPERTIES TIMEOUT 90 LABELS "integration;faults")
