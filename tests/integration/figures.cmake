# The figures a comparison rests on (docs/METRICS.md): the variant that ran
# (results.variant), the network-only bandwidth beside the per-node one
# (exactly (N-1)/N of it for fixed fragment sizes: byte counts, not timing),
# the one-to-one shift scan's pair matrix (per_node_values and local_copy per
# shift, the headline over the network shifts only, shift 0 flagged when it
# is all there is), and micro-benchmark output without event-builder words
# and with its real warm-up. Over tcp and over the ucx and libfabric drivers
# where built. No timing thresholds.
set(_evb_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
set(_evb_fig_eb --set nodes=3 --set duration=800ms --set warmup=200ms --set fragment.size=64KiB
                --set peer_timeout=20s --quiet)
set(_evb_fig_micro --set protocol=one-to-one --set shift=scan --set nodes=3 --set parallel=2
                   --set duration=500ms --set warmup=200ms --set peer_timeout=20s --quiet)
set(_evb_fig_eb_stdout --expect-stdout "per-node figures include the node's own fragment"
                       --expect-stdout "network only (own fragment excluded)")
set(_evb_fig_micro_stdout
    --expect-stdout "micro-benchmark one-to-one over"
    --expect-stdout "warm-up 0.20 s excluded from each"
    --expect-stdout "local copy, not in the headline"
    --expect-stdout "network only (own fragment excluded)"
    --expect-json results.warmup_s=0.2
    --reject-stdout "credits" --reject-stdout "scheduling" --reject-stdout "assigned"
    --reject-stdout "lost" --reject-stdout "p50")

set(_evb_fig_tests)
foreach(protocol pull push)
  add_test(NAME fig_network_${protocol}_tcp
           COMMAND ${_evb_check} --check-network ${_evb_fig_eb_stdout}
                   --expect-json results.variant=tcp --expect-json results.warmup_s=0.2
                   --expect-stdout "# evbench" --expect-stdout ": ${protocol} over tcp,"
                   -- $<TARGET_FILE:evbench> run ${_evb_fig_eb} --set protocol=${protocol})
  list(APPEND _evb_fig_tests fig_network_${protocol}_tcp)
endforeach()
add_test(NAME fig_shift_scan_tcp
         COMMAND ${_evb_check} --shifts 3 --check-shift-scan --check-network
                 ${_evb_fig_micro_stdout} --expect-json results.variant=tcp
                 -- $<TARGET_FILE:evbench> run ${_evb_fig_micro})
# One-to-one at shift 0 (every node to itself; one-to-one needs 2 nodes, so
# this is the case a one-node scan would be): the headline is a local copy,
# flagged, and not a byte crossed a network.
add_test(NAME fig_shift_zero_local_copy_tcp
         COMMAND ${_evb_check} --check-network
                 --expect-json results.headline_local_copy=True
                 --expect-json results.shifts.0.local_copy=True
                 --expect-json results.bandwidth_gbps.network.aggregate=0
                 --expect-stdout "headline is a local copy"
                 -- $<TARGET_FILE:evbench> run ${_evb_fig_micro} --set nodes=2 --set parallel=1
                 --set shift=0)
# A micro-benchmark reports the warm-up it was given.
add_test(NAME fig_micro_warmup_tcp
         COMMAND ${_evb_check} --check-network --expect-json results.warmup_s=0.3
                 --expect-stdout "warm-up 0.30 s excluded from each"
                 --reject-stdout "warm-up 0.00 s" --reject-stdout "credits"
                 -- $<TARGET_FILE:evbench> run ${_evb_fig_micro} --set protocol=gather
                 --set shift=0 --set warmup=300ms)
list(APPEND _evb_fig_tests fig_shift_scan_tcp fig_shift_zero_local_copy_tcp fig_micro_warmup_tcp)

if(TARGET evbench_driver_ucx)
  add_test(NAME fig_network_pull_ucx_sm_write
           COMMAND ${_evb_check} --check-network ${_evb_fig_eb_stdout}
                   "--expect-json=results.variant=ucx/sm write" --expect-json results.driver=ucx/sm
                   --expect-stdout ": pull over ucx/sm write,"
                   -- $<TARGET_FILE:evbench> run ${_evb_fig_eb} --set driver=ucx
                   --set driver_options.tls=sm --set data_path=write)
  add_test(NAME fig_shift_scan_ucx_sm
           COMMAND ${_evb_check} --shifts 3 --check-shift-scan --check-network
                   ${_evb_fig_micro_stdout} "--expect-json=results.variant=ucx/sm send"
                   -- $<TARGET_FILE:evbench> run ${_evb_fig_micro} --set driver=ucx
                   --set driver_options.tls=sm --set data_path=send)
  list(APPEND _evb_fig_tests fig_network_pull_ucx_sm_write fig_shift_scan_ucx_sm)
endif()
if(TARGET evbench_driver_libfabric)
  add_test(NAME fig_network_pull_libfabric_shm_send
           COMMAND ${_evb_check} --check-network ${_evb_fig_eb_stdout}
                   "--expect-json=results.variant=libfabric/shm send"
                   -- $<TARGET_FILE:evbench> run ${_evb_fig_eb} --set driver=libfabric
                   --set driver_options.provider=shm --set data_path=send)
  list(APPEND _evb_fig_tests fig_network_pull_libfabric_shm_send)
endif()
set_tests_properties(${_evb_fig_tests} PROPERTIES TIMEOUT 60 LABELS "integration;figures")

# `evbench drivers --json`: the structured listing tools read.
add_test(NAME drivers_json
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_drivers_json.py
                 $<TARGET_FILE:evbench>)
set_tests_properties(drivers_json PROPERTIES TIMEOUT 60 LABELS "integration;figures")
