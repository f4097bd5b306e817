# `cmake --install` into a temporary prefix, used from an unrelated directory
# and again after moving the prefix (check_install.py): evbench --version and
# a short run, evbench-scan --version, the man page, the bash completions, sim
# looking for the SMPI build relative to the installed evbench. Needs the
# whole build (the install takes every target), as ctest after a build has.
add_test(NAME install_relocatable
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_install.py
                 --cmake ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --version ${PROJECT_VERSION})
set_tests_properties(install_relocatable PROPERTIES TIMEOUT 300 LABELS integration)
