# One failure, one message (docs/USER_GUIDE.md, "When a run fails"): a
# killed rank under on_failure abort, Ctrl-C (SIGINT to the process group)
# and a setup error every rank hits at once each print one line on stderr
# (a killed rank: the launcher's verdict, and at most the first survivor's
# view of it), checked by one_failure.py.
set(_evb_one /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/one_failure.py $<TARGET_FILE:evbench>)
add_test(NAME one_failure_killed_rank COMMAND ${_evb_one} kill --rank 2 --units "RU 2, BU 2")
add_test(NAME one_failure_interrupt COMMAND ${_evb_one} interrupt)
# Every rank listens on the same port: all but one fail with EADDRINUSE.
add_test(NAME one_failure_setup_every_rank COMMAND ${_evb_one} setup --port 47321)
set_tests_properties(one_failure_killed_rank one_failure_interrupt one_failure_setup_every_rank
                     PROPERTIES TIMEOUT 90 LABELS "integration;faults")
