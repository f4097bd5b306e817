# Runs without a live rate line are not silent (docs/USER_GUIDE.md,
# "Running"): a micro-benchmark scan announces each step on stderr, with
# about how long is left, and says nothing under --quiet.
set(_evb_progress /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
set(_evb_progress_scan run --set protocol=one-to-one --set shift=scan --set duration=300ms
    --set warmup=100ms --set peer_timeout=20s)
add_test(NAME progress_microbench_scan_steps
         COMMAND ${_evb_progress} --expect-stderr "step 1 of 4 (shift 0), about 1 s left"
                 --expect-stderr "step 4 of 4 (shift 3)"
                 -- $<TARGET_FILE:evbench> ${_evb_progress_scan})
add_test(NAME progress_microbench_scan_quiet
         COMMAND ${_evb_progress} --reject-stderr "step 1 of 4"
                 -- $<TARGET_FILE:evbench> ${_evb_progress_scan} --quiet)
set_tests_properties(progress_microbench_scan_steps progress_microbench_scan_quiet
                     PROPERTIES TIMEOUT 60 LABELS integration)
