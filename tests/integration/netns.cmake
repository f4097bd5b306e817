# The emulated cluster (scripts/netns-cluster.sh, docs/EMULATED_CLUSTER.md):
# 8 network-namespace hosts on two leaf bridges with a 4:1 uplink, a real
# one-to-one shift scan over the env bootstrap and the TCP driver, the
# uplink's signature asserted as a bandwidth ratio, and everything torn down
# and checked gone. Skipped with the reason where namespaces cannot be made
# (not root). RUN_SERIAL: it measures bandwidth ratios, so it runs alone.
add_test(NAME netns_cluster_shift_scan
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/netns_cluster.py
                 $<TARGET_FILE:evbench> ${PROJECT_SOURCE_DIR}/scripts)
set_tests_properties(netns_cluster_shift_scan PROPERTIES TIMEOUT 150 SKIP_RETURN_CODE 77
                     RUN_SERIAL TRUE LABELS "integration;netns")

# scripts/netns-compare.py on the scans committed under docs/emulated-cluster/
# (no namespaces needed): the measured 4:1 scan agrees with `evbench sim` of
# the same platform (two different documents, as EMULATED_CLUSTER.md claims),
# and the 4:1 scan (dip at shift 4) disagrees with the flat 1:1 one.
set(_evb_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
set(_evb_netns_scans ${PROJECT_SOURCE_DIR}/docs/emulated-cluster/8hosts-250mbit)
add_test(NAME netns_compare_agrees
         COMMAND ${_evb_check} --no-json --expect-exit 0 --expect-stdout "the patterns agree"
                 -- /usr/bin/python3 ${PROJECT_SOURCE_DIR}/scripts/netns-compare.py
                 ${_evb_netns_scans}/uplink-250mbit/shift-scan.json
                 ${_evb_netns_scans}/sim-shift-scan.json)
add_test(NAME netns_compare_disagrees
         COMMAND ${_evb_check} --no-json --expect-exit 1 --expect-stdout "the patterns DISAGREE"
                 -- /usr/bin/python3 ${PROJECT_SOURCE_DIR}/scripts/netns-compare.py
                 ${_evb_netns_scans}/uplink-250mbit/shift-scan.json
                 ${_evb_netns_scans}/uplink-1gbit/shift-scan.json)
set_tests_properties(netns_compare_agrees netns_compare_disagrees PROPERTIES TIMEOUT 30
                     LABELS "integration;netns")

# Measured beside predicted: the one-to-one shift scan on the emulated
# cluster at the rates of configs/platforms/emulated-2x4.yaml, with that file
# as topology.platform; every network shift carries measured and predicted
# per-node rates, and the slowest predicted shifts name the links `evbench
# topo` names. No timing threshold; the cluster is torn down on every path.
add_test(NAME netns_shift_scan_platform
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/netns_platform_scan.py
                 $<TARGET_FILE:evbench> ${PROJECT_SOURCE_DIR})
set_tests_properties(netns_shift_scan_platform PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77
                     RUN_SERIAL TRUE LABELS "integration;netns")
