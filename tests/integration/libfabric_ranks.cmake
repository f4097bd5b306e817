# libfabric at 16 ranks, and the providers it refuses (docs/drivers/libfabric.md).
#
# shm at 16 ranks, data_path write and send, all ranks on this host (2 cores:
# oversubscribed, so this checks correctness, not speed): every assigned event
# built once, zero integrity errors. 160 events (10 per BU), not a duration:
# ranks16.cmake says why. Before the exact-tag matching over shm
# (lf_driver.hpp, exact_tags_) connect() timed out from 10 ranks on: "no hello
# exchanged with rank(s) ...".
#
# sockets and udp;ofi_rxd are usable providers of this libfabric, yet runs over
# them fail: `evbench validate` refuses them with the reason (exit 2).
if(TARGET evbench_driver_libfabric)
  set(_lf_check /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_result.py)
  set(_lf_pre /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_preflight.py)
  foreach(path write send)
    set(name eb_libfabric_shm_16ranks_${path})
    add_test(NAME ${name}
             COMMAND ${_lf_check} --timeout 150 --expect-json results.data_path=${path}
                     -- $<TARGET_FILE:evbench> run --quiet --set driver=libfabric
                     --set driver_options.provider=shm --set data_path=${path} --set nodes=16
                     --set evm=with-rank0 --set events=160 --set warmup=0s
                     --set verify.sample=1 --set peer_timeout=60s
                     --set driver_options.keepalive_timeout=30s)
    set_tests_properties(${name} PROPERTIES TIMEOUT 180 LABELS integration
                         PROCESSORS ${EVB_WHOLE_MACHINE})
  endforeach()
  add_test(NAME lf_provider_sockets_refused
           COMMAND ${_lf_pre} --lines 1
                   --expect-stderr "driver_options.provider: 'sockets' is refused: event building over it fails here"
                   -- $<TARGET_FILE:evbench> validate --set driver=libfabric
                   --set driver_options.provider=sockets)
  add_test(NAME lf_provider_udp_refused
           COMMAND ${_lf_pre} --lines 1
                   --expect-stderr "driver_options.provider: 'udp' is refused: udp;ofi_rxd stops delivering after rx_size"
                   -- $<TARGET_FILE:evbench> validate --set driver=libfabric
                   --set driver_options.provider=udp)
  set_tests_properties(lf_provider_sockets_refused lf_provider_udp_refused PROPERTIES TIMEOUT 30
                       LABELS integration)
endif()
