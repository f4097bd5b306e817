# Start at cluster scale (docs/BOOTSTRAP.md, "At scale"): 64 and 255 nodes
# (65 and 256 processes) over tcp under the local launcher and under the env
# bootstrap (every rank started by hand, as srun would), 127 nodes (128
# processes) over ucx/tcp and libfabric/tcp; tiny fragments and a small RU
# ring so 256 processes fit this machine (about 19 MiB resident each, results.peak_rss_bytes). Every
# run must build every assigned event exactly once (check_result.py,
# env_bootstrap.py) and report its start-up and teardown. A rank limit of
# open files below the need is refused before start with one line. The
# runs take the whole machine: RUN_SERIAL, label scale.
set(_evb_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
# Events, not a duration: at 256 processes on 2 cores an event takes seconds
# to build (each of 255 fragments a request and an answer), longer than a
# short window.
set(_evb_scale_run --quiet --set fragment.size=1KiB --set ru_buffer=4MiB --set warmup=0s
                   --set verify.sample=1 --set peer_timeout=60s)
set(_evb_scale_json --expect-json-gt results.startup.ready_s=0
                    --expect-json-gt results.teardown.seconds=-1)

foreach(nodes 64 255)
  math(EXPR procs "${nodes} + 1")
  math(EXPR events "${nodes} * 4")
  add_test(NAME scale_local_tcp_${nodes}_nodes
           COMMAND ${_evb_check} --timeout 240 ${_evb_scale_json}
                   --expect-json topology.processes=${procs}
                   --expect-json results.events_built=${events}
                   -- $<TARGET_FILE:evbench> run ${_evb_scale_run} --set nodes=${nodes}
                   --set events=${events})
  add_test(NAME scale_env_tcp_${nodes}_nodes
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/env_bootstrap.py
                   $<TARGET_FILE:evbench> --nprocs ${procs} --deadline 240 --events ${events}
                   --set nodes=${nodes} --set fragment.size=1KiB --set ru_buffer=4MiB
                   --set peer_timeout=60s)
  set_tests_properties(scale_local_tcp_${nodes}_nodes scale_env_tcp_${nodes}_nodes PROPERTIES
                       TIMEOUT 300 RUN_SERIAL TRUE LABELS "integration;scale")
endforeach()

if(TARGET evbench_driver_ucx)
  add_test(NAME scale_local_ucx_tcp_127_nodes
           COMMAND ${_evb_check} --timeout 240 ${_evb_scale_json}
                   --expect-json results.driver=ucx/tcp
                   --expect-json results.events_built=508
                   -- $<TARGET_FILE:evbench> run ${_evb_scale_run} --set nodes=127 --set events=508
                   --set driver=ucx --set driver_options.tls=tcp)
  set_tests_properties(scale_local_ucx_tcp_127_nodes PROPERTIES TIMEOUT 300 RUN_SERIAL TRUE
                       LABELS "integration;scale")
endif()
if(TARGET evbench_driver_libfabric)
  add_test(NAME scale_local_libfabric_tcp_127_nodes
           COMMAND ${_evb_check} --timeout 240 ${_evb_scale_json}
                   --expect-json "results.driver=libfabric/tcp;ofi_rxm"
                   --expect-json results.events_built=508
                   -- $<TARGET_FILE:evbench> run ${_evb_scale_run} --set nodes=127 --set events=508
                   --set driver=libfabric --set driver_options.provider=tcp)
  set_tests_properties(scale_local_libfabric_tcp_127_nodes PROPERTIES TIMEOUT 300
                       RUN_SERIAL TRUE LABELS "integration;scale")
endif()

# ulimit -n 256 (soft and hard) under a 255-node run: refused before any rank
# starts, naming the limit, the need and the fix.
add_test(NAME scale_open_files_refused
         COMMAND ${_evb_check} --no-json --expect-exit 2 --expect-stderr "open files:"
                 --expect-stderr "RLIMIT_NOFILE allows 256 (hard limit 256)"
                 --expect-stderr "255 peers x 1 (driver tcp)" --expect-stderr "ulimit -n 1024"
                 --reject-stderr "rank 1"
                 -- /bin/sh -c "ulimit -n 256 && exec \"$0\" run --set nodes=255 --set fragment.size=1KiB --set ru_buffer=4MiB"
                 $<TARGET_FILE:evbench>)
set_tests_properties(scale_open_files_refused PROPERTIES TIMEOUT 60 LABELS integration)
