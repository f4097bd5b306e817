# Errors found before anything starts (issue 26 item 3): output paths,
# memory, every error of a config file at once. Each is refused with exit 2
# and says what is wrong, naming the option or key, before any rank runs.
set(_evb_pre /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_preflight.py)
set(_evb_pre_dir ${CMAKE_CURRENT_BINARY_DIR}/preflight)
file(MAKE_DIRECTORY ${_evb_pre_dir})

# --json into a directory that does not exist: refused before the run.
add_test(NAME preflight_json_dir_missing
         COMMAND ${_evb_pre} --lines 1 --expect-stderr "--json /nonexistent/dir/r.json"
                 --expect-stderr "directory /nonexistent/dir does not exist" --
                 $<TARGET_FILE:evbench> run --json /nonexistent/dir/r.json)
add_test(NAME preflight_sim_json_dir_missing
         COMMAND ${_evb_pre} --lines 1 --expect-stderr "--json /nonexistent/dir/r.json" --
                 $<TARGET_FILE:evbench> sim --platform
                 ${PROJECT_SOURCE_DIR}/configs/platforms/fat-tree-64.yaml --json /nonexistent/dir/r.json)
add_test(NAME preflight_topo_write_order_dir_missing
         COMMAND ${_evb_pre} --lines 1 --expect-stderr "--write-order /nonexistent/dir/order.txt" --
                 $<TARGET_FILE:evbench> topo ${PROJECT_SOURCE_DIR}/configs/platforms/fat-tree-64.yaml
                 --write-order /nonexistent/dir/order.txt)
# A directory given as the file.
add_test(NAME preflight_json_is_a_directory
         COMMAND ${_evb_pre} --lines 1 --expect-stderr "it is a directory" --
                 $<TARGET_FILE:evbench> run --json ${_evb_pre_dir})

# A ring no host has: one line naming ru_buffer and the figures, in run and validate.
foreach(cmd run validate)
  add_test(NAME preflight_memory_${cmd}
           COMMAND ${_evb_pre} --lines 1 --expect-stderr "ru_buffer: "
                   --expect-stderr "needed on this host (5 ranks, local bootstrap)"
                   --expect-stderr "4 × 1 TiB RU ring" --expect-stderr "available (MemAvailable"
                   --expect-stderr "lower ru_buffer or nodes" --
                   $<TARGET_FILE:evbench> ${cmd} --set ru_buffer=1TiB)
endforeach()

# validate without CONFIG checks the embedded default (as run would run it).
add_test(NAME preflight_validate_without_config
         COMMAND ${_evb_pre} --expect-exit 0 -- $<TARGET_FILE:evbench> validate --set nodes=3)

# Every bad key of a file at once, each with file:line, then exit 2.
add_test(NAME preflight_all_config_errors
         COMMAND ${_evb_pre} --lines 3
                 --expect-stderr "many-errors.yaml:2:1: credit: unknown key (did you mean 'credits'?)"
                 --expect-stderr "many-errors.yaml:3:8: nodes: must be between 1 and 65536, got 100000"
                 --expect-stderr "--set driver=nope: driver: 'nope' is not one of" --
                 $<TARGET_FILE:evbench> validate ${CMAKE_CURRENT_SOURCE_DIR}/data/many-errors.yaml
                 --set driver=nope)

set_tests_properties(preflight_json_dir_missing preflight_sim_json_dir_missing
                     preflight_topo_write_order_dir_missing preflight_json_is_a_directory
                     preflight_memory_run preflight_memory_validate
                     preflight_validate_without_config preflight_all_config_errors
                     PROPERTIES TIMEOUT 30 LABELS integration)

# Driver option names the library does not know, in validate and run alike:
# one line naming the key; valid values still pass validate. (What this host
# cannot serve is refused by run only: the not_here tests below.)
if(TARGET evbench_driver_ucx)
  foreach(cmd run validate)
    add_test(NAME preflight_ucx_tls_bogus_${cmd}
             COMMAND ${_evb_pre} --lines 1
                     --expect-stderr "driver_options.tls: 'bogus' is not a UCX transport" --
                     $<TARGET_FILE:evbench> ${cmd} --set driver=ucx --set driver_options.tls=bogus)
    set_tests_properties(preflight_ucx_tls_bogus_${cmd} PROPERTIES TIMEOUT 30 LABELS integration)
  endforeach()
  add_test(NAME preflight_ucx_tls_valid
           COMMAND ${_evb_pre} --expect-exit 0 -- $<TARGET_FILE:evbench> validate --set driver=ucx
                   --set driver_options.tls=^rc --set driver_options.devices=lo)
  set_tests_properties(preflight_ucx_tls_valid PROPERTIES TIMEOUT 30 LABELS integration)
endif()
if(TARGET evbench_driver_libfabric)
  foreach(cmd run validate)
    add_test(NAME preflight_libfabric_provider_bogus_${cmd}
             COMMAND ${_evb_pre} --lines 1
                     --expect-stderr "driver_options.provider: 'bogus' is not a provider of this libfabric"
                     -- $<TARGET_FILE:evbench> ${cmd} --set driver=libfabric
                     --set driver_options.provider=bogus)
    set_tests_properties(preflight_libfabric_provider_bogus_${cmd} PROPERTIES TIMEOUT 30
                         LABELS integration)
  endforeach()
  add_test(NAME preflight_libfabric_provider_valid
           COMMAND ${_evb_pre} --expect-exit 0 -- $<TARGET_FILE:evbench> validate
                   --set driver=libfabric --set driver_options.provider=tcp)
  set_tests_properties(preflight_libfabric_provider_valid PROPERTIES TIMEOUT 30 LABELS integration)
  # A provider this libfabric has but this host cannot serve (no RDMA device
  # here): validate judges names only (a login node need not have the compute
  # nodes' devices); run refuses it before any rank starts.
  add_test(NAME preflight_libfabric_provider_not_here_validate
           COMMAND ${_evb_pre} --expect-exit 0 -- $<TARGET_FILE:evbench> validate
                   --set driver=libfabric --set driver_options.provider=verbs)
  add_test(NAME preflight_libfabric_provider_not_here_run
           COMMAND ${_evb_pre} --lines 1
                   --expect-stderr "driver_options.provider: 'verbs' is in this libfabric but finds no usable interface here"
                   -- $<TARGET_FILE:evbench> run --set driver=libfabric
                   --set driver_options.provider=verbs)
  set_tests_properties(preflight_libfabric_provider_not_here_validate
                       preflight_libfabric_provider_not_here_run PROPERTIES TIMEOUT 30
                       LABELS integration)
endif()
# driver mpi without a launcher: refused once, before any rank is forked.
if(TARGET evbench_driver_mpi)
  add_test(NAME preflight_mpi_without_launcher
           COMMAND ${_evb_pre} --lines 1 --expect-stderr "driver: mpi needs ranks started by mpirun"
                   --expect-stderr "mpirun -np 5" -- $<TARGET_FILE:evbench> run --set driver=mpi)
  set_tests_properties(preflight_mpi_without_launcher PROPERTIES TIMEOUT 30 LABELS integration)
endif()
