# `evbench topo` end to end on the shipped platforms (docs/TOPOLOGY.md):
# a 512-node ideal fat tree (no conflicts), the mis-cabled 64-node tree
# (conflicts, lowered by the proposal), a 512-node irregular tree, and
# errors naming file:line. check_topo.py checks the JSON report.
set(_evb_topo_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_topo.py)
set(_evb_platforms ${PROJECT_SOURCE_DIR}/configs/platforms)
add_test(NAME topo_fat_tree_512
         COMMAND ${_evb_topo_check} --ideal -- $<TARGET_FILE:evbench> topo
                 ${_evb_platforms}/fat-tree-512.yaml --quiet
                 --json ${CMAKE_CURRENT_BINARY_DIR}/topo_fat_tree_512.json)
add_test(NAME topo_irregular_512
         COMMAND ${_evb_topo_check} -- $<TARGET_FILE:evbench> topo
                 ${_evb_platforms}/irregular-512.yaml --quiet
                 --json ${CMAKE_CURRENT_BINARY_DIR}/topo_irregular_512.json)
add_test(NAME topo_miscabled_64
         COMMAND ${_evb_topo_check} --conflicts -- $<TARGET_FILE:evbench> topo
                 ${_evb_platforms}/miscabled-64.yaml --quiet
                 --json ${CMAKE_CURRENT_BINARY_DIR}/topo_miscabled_64.json)
add_test(NAME topo_bad_order_file
         COMMAND ${_evb_topo_check} --expect-exit 2
                 --expect-stderr "order.txt:2: host 'nohost' is not in the platform emulated-2x4"
                 -- $<TARGET_FILE:evbench> topo ${_evb_platforms}/emulated-2x4.yaml
                 --order ${CMAKE_CURRENT_SOURCE_DIR}/data/topo/order.txt)
add_test(NAME topo_bad_platform
         COMMAND ${_evb_topo_check} --expect-exit 2
                 --expect-stderr "bad-platform.yaml:5:3: fat_tree.spine: unknown key (did you mean 'spines'?)"
                 -- $<TARGET_FILE:evbench> topo ${CMAKE_CURRENT_SOURCE_DIR}/data/topo/bad-platform.yaml)
set_tests_properties(topo_fat_tree_512 topo_irregular_512 topo_miscabled_64 topo_bad_order_file
                     topo_bad_platform PROPERTIES TIMEOUT 240 LABELS "integration;topo")

# scheduling: topology in a real run (8 nodes over TCP on the emulated
# cluster's platform: the ring the search picks), and its validation errors.
set(_evb_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
add_test(NAME eb_pull_topology_scheduling
         COMMAND ${_evb_check} -- $<TARGET_FILE:evbench> run --set duration=1s
                 --set warmup=200ms --set verify.sample=1 --set peer_timeout=20s --quiet
                 --set nodes=8 --set parallel=2 --set scheduling=topology
                 --set topology.platform=${_evb_platforms}/emulated-2x4.yaml)
add_test(NAME eb_push_topology_scheduling
         COMMAND ${_evb_check} -- $<TARGET_FILE:evbench> run --set duration=1s
                 --set warmup=200ms --set verify.sample=1 --set peer_timeout=20s --quiet
                 --set nodes=8 --set protocol=push --set scheduling=topology
                 --set topology.platform=${_evb_platforms}/emulated-2x4.yaml)
add_test(NAME eb_topology_needs_platform
         COMMAND ${_evb_check} --no-json --expect-exit 2
                 --expect-stderr "scheduling: topology needs topology.platform"
                 -- $<TARGET_FILE:evbench> run --set scheduling=topology --quiet)
add_test(NAME eb_topology_platform_too_small
         COMMAND ${_evb_check} --no-json --expect-exit 2
                 --expect-stderr "has 8 hosts, nodes is 9"
                 -- $<TARGET_FILE:evbench> run --set scheduling=topology --quiet --set nodes=9
                 --set topology.platform=${_evb_platforms}/emulated-2x4.yaml)
set_tests_properties(eb_pull_topology_scheduling eb_push_topology_scheduling
                     eb_topology_needs_platform
                     eb_topology_platform_too_small PROPERTIES TIMEOUT 60 LABELS "integration;topo")

# docs/TOPOLOGY.md's key table is the loader's (evbench topo --reference).
add_test(NAME topology_doc_current
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_topology_doc.py
                 $<TARGET_FILE:evbench> ${PROJECT_SOURCE_DIR}/docs/TOPOLOGY.md)
set_tests_properties(topology_doc_current PROPERTIES TIMEOUT 60 LABELS "integration;topo")

# The proposed order written by --write-order, read back by --order, scans
# to the same figures (selection of 46 of the mis-cabled tree's 64 hosts).
add_test(NAME topo_write_order_roundtrip
         COMMAND ${_evb_topo_check} --roundtrip -- $<TARGET_FILE:evbench> topo
                 ${_evb_platforms}/miscabled-64.yaml --nodes 46 --quiet
                 --write-order ${CMAKE_CURRENT_BINARY_DIR}/topo_miscabled_46.order
                 --json ${CMAKE_CURRENT_BINARY_DIR}/topo_miscabled_46.json)
set_tests_properties(topo_write_order_roundtrip PROPERTIES TIMEOUT 120 LABELS "integration;topo")
