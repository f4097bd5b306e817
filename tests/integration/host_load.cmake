# The host's load recorded with every run (results.host_load, docs/METRICS.md
# "Host load"): a short local run on a quiet-or-not host, and one with a
# shell busy loop beside it, whose CPU time must show as the other
# processes' (above 0; no threshold on how much). About 2 s each.
if(TARGET evbench_driver_tcp)
  set(_evb_host_load /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/host_load_run.py
                     $<TARGET_FILE:evbench> --set duration=1s --set warmup=200ms --set nodes=2
                     --set fragment.size=64KiB --set peer_timeout=20s)
  add_test(NAME host_load_recorded COMMAND ${_evb_host_load})
  add_test(NAME host_load_busy_loop_counted COMMAND ${_evb_host_load} --busy-loop)
  set_tests_properties(host_load_recorded host_load_busy_loop_counted
                       PROPERTIES TIMEOUT 60 LABELS integration)
endif()
