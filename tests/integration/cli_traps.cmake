# The command line's traps (issue 37 item 8): each mistake is refused with
# exit 2 and one line that says what to write instead, before anything runs.
set(_evb_trap /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_preflight.py)
set(_evb_traps)

# `--set credits 4`: the 4 was taken for CONFIG ("4: cannot read the configuration").
add_test(NAME cli_trap_set_without_equals
         COMMAND ${_evb_trap} --lines 1
                 --expect-stderr "evbench: run: --set takes KEY=VALUE: use --set credits=4" --
                 $<TARGET_FILE:evbench> run --set credits 4)
list(APPEND _evb_traps cli_trap_set_without_equals)

# A configuration key given as an option.
add_test(NAME cli_trap_key_as_option
         COMMAND ${_evb_trap} --lines 1
                 --expect-stderr "evbench: validate: unknown option --duration: configuration keys go through --set duration=1s"
                 -- $<TARGET_FILE:evbench> validate --duration=1s)
add_test(NAME cli_trap_key_as_option_spaced
         COMMAND ${_evb_trap} --lines 1
                 --expect-stderr "evbench: run: unknown option --nodes: configuration keys go through --set nodes=4"
                 -- $<TARGET_FILE:evbench> run --nodes 4)
list(APPEND _evb_traps cli_trap_key_as_option cli_trap_key_as_option_spaced)

# Commands and choice values: the nearest, whatever the letter case.
add_test(NAME cli_trap_command_typo
         COMMAND ${_evb_trap} --lines 1
                 --expect-stderr "evbench: unknown command 'valdate' (did you mean 'validate'?)"
                 -- $<TARGET_FILE:evbench> valdate)
add_test(NAME cli_trap_choice_case
         COMMAND ${_evb_trap} --lines 1
                 --expect-stderr "evbench: --set protocol=PULL: protocol: 'PULL' is not one of"
                 --expect-stderr "(did you mean 'pull'?)"
                 -- $<TARGET_FILE:evbench> validate --set protocol=PULL)
add_test(NAME cli_trap_config_as_command
         COMMAND ${_evb_trap} --lines 1
                 --expect-stderr "evbench: 'configs/default.yaml' is a configuration, not a command: evbench run configs/default.yaml (or validate, sim)"
                 -- $<TARGET_FILE:evbench> configs/default.yaml)
list(APPEND _evb_traps cli_trap_command_typo cli_trap_choice_case cli_trap_config_as_command)

# A bare number is seconds: 2000 is 33 min, not 2 s.
add_test(NAME cli_trap_bare_duration
         COMMAND ${_evb_trap} --lines 1
                 --expect-stderr "evbench: --set duration=2000: duration: a bare number is seconds (33 min); write 2000ms or 2000s"
                 -- $<TARGET_FILE:evbench> validate --set duration=2000)
add_test(NAME cli_trap_bare_duration_in_file
         COMMAND ${_evb_trap} --lines 1
                 --expect-stderr "bare_duration.yaml:3:11: duration: a bare number is seconds (33 min); write 2000ms or 2000s"
                 -- $<TARGET_FILE:evbench> validate ${CMAKE_CURRENT_SOURCE_DIR}/data/bare_duration.yaml)
list(APPEND _evb_traps cli_trap_bare_duration cli_trap_bare_duration_in_file)

# The embedded default's warmup is not the user's: the --set is blamed.
add_test(NAME cli_trap_default_warmup
         COMMAND ${_evb_trap} --lines 1
                 --expect-stderr "evbench: --set duration=100ms: duration: warmup (500 ms) must be shorter than duration (100 ms); warmup is set by the embedded default (configs/default.yaml:"
                 --expect-stderr "): set warmup too"
                 -- $<TARGET_FILE:evbench> run --set duration=100ms)
list(APPEND _evb_traps cli_trap_default_warmup)

# One node: a micro-benchmark cannot run (refused, nodes blamed); an event
# builder runs, with a warning saying what it measures.
add_test(NAME cli_trap_one_node_microbench
         COMMAND ${_evb_trap} --lines 1
                 --expect-stderr "evbench: --set nodes=1: nodes: protocol one-to-one measures transfers between nodes: it needs at least 2 nodes, got 1"
                 -- $<TARGET_FILE:evbench> validate --set protocol=one-to-one --set nodes=1)
add_test(NAME cli_trap_one_node_event_builder
         COMMAND ${_evb_trap} --expect-exit 0 --lines 1
                 --expect-stderr "evbench: warning: --set nodes=1: nodes: 1 node builds each event from one fragment"
                 -- $<TARGET_FILE:evbench> validate --set nodes=1)
list(APPEND _evb_traps cli_trap_one_node_microbench cli_trap_one_node_event_builder)

# A misspelt libfabric provider: the nearest name (sockets and udp, refused
# for runs, are not offered as usable: tests/unit/libfabric).
if(TARGET evbench_driver_libfabric)
  add_test(NAME cli_trap_libfabric_provider_typo
           COMMAND ${_evb_trap} --lines 1
                   --expect-stderr "driver_options.provider: 'verb' is not a provider of this libfabric (did you mean 'verbs'?"
                   -- $<TARGET_FILE:evbench> validate --set driver=libfabric
                   --set driver_options.provider=verb)
  list(APPEND _evb_traps cli_trap_libfabric_provider_typo)
endif()

set_tests_properties(${_evb_traps} PROPERTIES TIMEOUT 30 LABELS integration)
