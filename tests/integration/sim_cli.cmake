# `evbench sim` in the ordinary build (no SimGrid needed): without the SMPI
# build it fails with exit 2 saying how to build it; a --set of another
# driver contradicts the simulation (exit 2). The simulations themselves are
# tests/sim (EVBENCH_SIM=ON build dirs).
set(_evb_sim_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py --no-json)
set(_evb_sim_platform ${PROJECT_SOURCE_DIR}/configs/platforms/fat-tree-64.yaml)
add_test(NAME sim_cli_missing_smpi_build
         COMMAND ${_evb_sim_check} --expect-exit 2 --expect-stderr "the SMPI build is missing"
                 "--expect-stderr=-DEVBENCH_SIM=ON" --
                 $<TARGET_FILE:evbench> sim --platform ${_evb_sim_platform} --set nodes=4)
set_tests_properties(sim_cli_missing_smpi_build PROPERTIES TIMEOUT 30 LABELS integration
                     ENVIRONMENT "EVBENCH_SMPI_BUILD=${CMAKE_BINARY_DIR}/no-smpi-build")
add_test(NAME sim_cli_other_driver_is_an_error
         COMMAND ${_evb_sim_check} --expect-exit 2 "--expect-stderr=--set driver=tcp" --
                 $<TARGET_FILE:evbench> sim --platform ${_evb_sim_platform} --set driver=tcp)
set_tests_properties(sim_cli_other_driver_is_an_error PROPERTIES TIMEOUT 30 LABELS integration)
add_test(NAME sim_cli_too_few_hosts
         COMMAND ${_evb_sim_check} --expect-exit 2 --expect-stderr "offers 64 hosts" --
                 $<TARGET_FILE:evbench> sim --platform ${_evb_sim_platform} --set nodes=65)
set_tests_properties(sim_cli_too_few_hosts PROPERTIES TIMEOUT 30 LABELS integration)
# Payloads are shared under sim, so payload checks cannot be asked for, and
# corruption injection (found by them) contradicts them (exit 2, naming the key).
add_test(NAME sim_cli_payload_checks_are_an_error
         COMMAND ${_evb_sim_check} --expect-exit 2 "--expect-stderr=verify.payload: on" --
                 $<TARGET_FILE:evbench> sim --platform ${_evb_sim_platform} --set nodes=4
                 --set verify.payload=on)
set_tests_properties(sim_cli_payload_checks_are_an_error PROPERTIES TIMEOUT 30 LABELS integration)
add_test(NAME sim_cli_corruption_needs_payload_checks
         COMMAND ${_evb_sim_check} --expect-exit 2 --expect-stderr "fault.corrupt: corruption is found by payload checks" --
                 $<TARGET_FILE:evbench> sim --platform ${_evb_sim_platform} --set nodes=4
                 --set fault.corrupt=0.01)
set_tests_properties(sim_cli_corruption_needs_payload_checks PROPERTIES TIMEOUT 30 LABELS integration)
# SimGrid maps every RU ring slot's shared payload apart: a ring too large for
# vm.max_map_count fails before the simulation, naming ru_buffer (1 TiB rings
# of 512 RUs exceed any limit the kernel allows).
add_test(NAME sim_cli_ring_exceeding_memory_maps
         COMMAND ${_evb_sim_check} --expect-exit 2 --expect-stderr "ru_buffer: 512 RU rings"
                 --expect-stderr "vm.max_map_count" --
                 $<TARGET_FILE:evbench> sim ${PROJECT_SOURCE_DIR}/configs/sim/pull-512-fluid.yaml
                 --platform ${PROJECT_SOURCE_DIR}/configs/platforms/fat-tree-512.yaml
                 --set ru_buffer=1TiB)
set_tests_properties(sim_cli_ring_exceeding_memory_maps PROPERTIES TIMEOUT 30 LABELS integration
                     ENVIRONMENT "EVBENCH_SMPI_BUILD=${CMAKE_BINARY_DIR}/no-smpi-build")
# A node sending to itself has no route on a simulated platform (SMPI moves it
# for free): one-to-one shift 0 alone is an error naming `shift`; a scan
# leaves shift 0 out (tests/sim shift-scan).
add_test(NAME sim_cli_shift_zero_is_an_error
         COMMAND ${_evb_sim_check} --expect-exit 2 --expect-stderr "shift: 0 sends every node's data to itself"
                 --expect-stderr "use a shift of 1..3 or scan" --
                 $<TARGET_FILE:evbench> sim --platform ${_evb_sim_platform} --set nodes=4
                 --set protocol=one-to-one --set shift=0)
set_tests_properties(sim_cli_shift_zero_is_an_error PROPERTIES TIMEOUT 30 LABELS integration
                     ENVIRONMENT "EVBENCH_SMPI_BUILD=${CMAKE_BINARY_DIR}/no-smpi-build")
