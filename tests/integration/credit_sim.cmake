# `evbench sim --model credit` through the CLI (tests/integration/credit_sim.py):
# chunk-size convergence at 16 nodes, a wrong platform network key refused
# before start naming it, another driver refused, the emulated cluster's
# measured shift scan matched within 0.15, --calibrate on a committed
# measured 4-host run (and with the measured 16-host shift scan for the
# switch links) and its bad inputs refused. Seconds each; the
# unit-level checks of the model are tests/unit/simnet and tests/unit/simexec.
foreach(check chunk-convergence bad-network-key driver-is-credit emulated-shift-scan calibrate
              calibrate-per-kind calibrate-bad-input)
  add_test(NAME credit_sim_${check}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/credit_sim.py
                   $<TARGET_FILE:evbench> ${check} ${CMAKE_CURRENT_BINARY_DIR}/credit_sim_${check})
  set_tests_properties(credit_sim_${check} PROPERTIES TIMEOUT 180 LABELS integration)
endforeach()
