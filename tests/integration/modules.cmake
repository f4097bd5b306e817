# Drivers as modules (src/drivers/api/plugin_entry.hpp): a start that needs
# no driver loads no network library; missing or broken modules are named.
if(EVBENCH_DRIVER_MODULES)
  add_test(NAME driver_modules
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_modules.py
                   $<TARGET_FILE:evbench> ${PROJECT_SOURCE_DIR}/configs/lhcb.yaml)
  set_tests_properties(driver_modules PROPERTIES TIMEOUT 120 LABELS "integration")
endif()
