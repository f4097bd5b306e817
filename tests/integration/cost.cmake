# results.cost (docs/METRICS.md "Cost"): the command counts are exact for a
# run of a set number of events over tcp at 4 nodes with a dedicated EVM.
# The EVM receives one credit per event and one per slot at the start
# (events + nodes x credits) and sends one assignment per event and a stop
# to every RU and BU (events + 2 x nodes), each its own message at
# batch.events 1; at batch.events 7 the commands are the same and the EVM's
# CPU time is measured. No timing is asserted.
set(_evb_cost_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
set(_evb_cost_run run --quiet --set protocol=pull --set nodes=4 --set events=500 --set warmup=0s
    --set peer_timeout=20s)
add_test(NAME eb_cost_counts_batch1
         COMMAND ${_evb_cost_check} --expect-json results.cost.events=500
                 --expect-json results.cost.evm.commands_received=508
                 --expect-json results.cost.evm.messages_received=508
                 --expect-json results.cost.evm.commands_sent=508
                 --expect-json results.cost.evm.messages_sent=508
                 --expect-json results.cost.ru.commands_sent=0
                 --expect-json-gt results.cost.evm.cpu_stretches=0
                 -- $<TARGET_FILE:evbench> ${_evb_cost_run} --set credits=2)
add_test(NAME eb_cost_counts_batch7
         COMMAND ${_evb_cost_check} --expect-json results.cost.events=500
                 --expect-json results.cost.evm.commands_received=540
                 --expect-json results.cost.evm.commands_sent=508
                 --expect-json-gt results.cost.evm.messages_sent=0
                 --expect-json-gt results.cost.evm.cpu_ns=0
                 --expect-stdout "# cost per event built (sent + received): EVM 2.10 commands"
                 -- $<TARGET_FILE:evbench> ${_evb_cost_run} --set credits=10
                 --set batch.events=7)
set_tests_properties(eb_cost_counts_batch1 eb_cost_counts_batch7 PROPERTIES TIMEOUT 60
                     LABELS integration)
# protocol evm-rate (the EVM saturation benchmark, docs/METRICS.md "EVM
# saturation"): 4 BUs, batch.events 16, briefly. Every assigned event is
# credited back and counted built once with zero integrity errors
# (check_result.py), the RUs receive only their stop (one each) and send
# nothing, and the EVM's figures are
# there. Structure only: no rate is asserted.
add_test(NAME eb_evm_rate_batch16
         COMMAND ${_evb_cost_check} --expect-json config.protocol=evm-rate
                 --expect-json config.batch.events=16
                 --expect-json-gt results.events_built=0
                 --expect-json results.cost.ru.commands_received=4
                 --expect-json results.cost.ru.commands_sent=0
                 --expect-json-gt results.cost.evm.cpu_ns=0
                 --expect-json-gt results.cost.evm.loop_cpu_ns_per_event=0
                 --expect-stdout "# cost per event built (sent + received): EVM 2.0"
                 -- $<TARGET_FILE:evbench> run --quiet --set protocol=evm-rate --set nodes=4
                 --set duration=1s --set warmup=200ms --set fragment.size=256
                 --set ru_buffer=1MiB --set batch.events=16 --set peer_timeout=20s)
set_tests_properties(eb_evm_rate_batch16 PROPERTIES TIMEOUT 60 LABELS integration)
