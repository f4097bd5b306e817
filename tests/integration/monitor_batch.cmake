# The `control:` replays of monitor.cmake with command batches in flight
# (batch.events 4; credits, unset, rise to 8): credits lowered to 1, a pause
# and a resume, parallel lowered (PULL); the FUs' time and the RUs' rate
# factors (PUSH). Each change is applied and recorded, every event built
# once, zero integrity errors (check_result.py).
add_test(NAME control_list_replayed_pull_batch4
         COMMAND ${_evb_check} --expect-json results.control.0.key=parallel
                 --expect-json results.control.1.key=pause
                 --expect-json results.control.2.key=resume
                 --expect-json results.control.3.key=credits
                 --expect-json results.control.3.value=1
                 -- $<TARGET_FILE:evbench> run --set duration=2s --set warmup=0s --set nodes=3
                 --set fragment.size=64KiB --set peer_timeout=20s --set batch.events=4
                 --set "control=[{at: 1.4s, credits: 1}, {at: 0.5s, parallel: 1}, {at: 0.8s, pause: true}, {at: 1.1s, resume: true}]")
add_test(NAME control_list_replayed_push_batch4
         COMMAND ${_evb_check} --expect-json results.control.0.key=fu.processing_time
                 --expect-json results.control.1.key=ru_rate_factors
                 -- $<TARGET_FILE:evbench> run --set protocol=push --set duration=2s
                 --set warmup=0s --set nodes=3 --set fragment.size=64KiB --set peer_timeout=20s
                 --set batch.events=4
                 --set "control=[{at: 0.5s, fu.processing_time: 100us}, {at: 1s, ru_rate_factors: [1, 0.5, 0.25]}]")
set_tests_properties(control_list_replayed_pull_batch4 control_list_replayed_push_batch4
                     PROPERTIES TIMEOUT 60 LABELS "integration;monitor")
