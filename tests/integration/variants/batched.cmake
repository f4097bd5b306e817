# Batched variants of the fault, desync and monitor suites (issue 40 item 5:
# they pass with command batches and multi-event fragments as well as
# without). evb_add_test_batched() registers a test and, from the same
# arguments, its variant: the same COMMAND with the variant's settings
# appended, so a test added to a suite gets its variant without a second
# list to keep. Every runner these suites use (fault_run.py, desync_run.py,
# check_result.py, monitor_launchers.py, probe_gate.py, mpirun, the psm2
# wrapper) takes the evbench settings last, and a later --set wins.
#
# The variant is batch.events 4 (credits, when unset, rise to 8) with MEPs
# of 8 events together, so the suites run twice, not three times. Each
# event's fragment is 8 KiB in it: a MEP of 8 is the 64 KiB fragment most of
# these tests use, so the RU rings (sized by fragments) hold what they held
# and the run moves about the bytes it did.
set(EVB_BATCHED_SETS --set batch.events=4 --set fragment.events=8 --set fragment.size=8KiB)
set(EVB_BATCHED_SUFFIX _batch4_mep8)
# Where only packing applies (pull-noevm has no EVM, so nothing to batch, and
# refuses batch.events > 1).
set(EVB_PACKED_SETS --set fragment.events=8 --set fragment.size=8KiB)
set(EVB_PACKED_SUFFIX _mep8)
# Where only batching applies (the tests of MEPs: they pack already).
set(EVB_BATCH_ONLY_SETS --set batch.events=4)
set(EVB_BATCH_ONLY_SUFFIX _batch4)

# evb_add_test_batched(<list-var> NAME <name> [SETS <settings>...]
#                      [SUFFIX <suffix>] COMMAND <command>...)
# Adds test <name> running <command> and test <name><suffix> running
# <command> <settings> (default: EVB_BATCHED_SETS and EVB_BATCHED_SUFFIX),
# and appends both names to <list-var> for the caller's
# set_tests_properties(). Every variant also gets the label `batched`
# (evb_label_batched_tests, once every suite is registered): `ctest -L
# batched` runs the variants alone, `-LE batched` leaves them out.
function(evb_add_test_batched list_var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "NAME;SUFFIX" "SETS;COMMAND")
  if(NOT arg_NAME OR NOT arg_COMMAND OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "evb_add_test_batched: NAME and COMMAND, nothing else unnamed "
                        "(${arg_NAME}: ${arg_UNPARSED_ARGUMENTS})")
  endif()
  if(NOT DEFINED arg_SETS)
    set(arg_SETS ${EVB_BATCHED_SETS})
  endif()
  if(NOT DEFINED arg_SUFFIX)
    set(arg_SUFFIX ${EVB_BATCHED_SUFFIX})
  endif()
  add_test(NAME ${arg_NAME} COMMAND ${arg_COMMAND})
  add_test(NAME ${arg_NAME}${arg_SUFFIX} COMMAND ${arg_COMMAND} ${arg_SETS})
  set_property(GLOBAL APPEND PROPERTY EVB_BATCHED_TESTS ${arg_NAME}${arg_SUFFIX})
  set(${list_var} ${${list_var}} ${arg_NAME} ${arg_NAME}${arg_SUFFIX} PARENT_SCOPE)
endfunction()

# After every suite's set_tests_properties(): adds the label `batched` to
# each variant's own labels.
function(evb_label_batched_tests)
  get_property(variants GLOBAL PROPERTY EVB_BATCHED_TESTS)
  if(variants)
    set_property(TEST ${variants} APPEND PROPERTY LABELS batched)
  endif()
endfunction()
