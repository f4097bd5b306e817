# Install rules (GNUInstallDirs; docs/INSTALL.md). Included last by the
# top-level CMakeLists.txt, when every target exists.
#
# Layout under the prefix (the defaults; each directory follows its
# CMAKE_INSTALL_<DIR> variable):
#   bin/evbench, bin/evbench-scan
#   lib/evbench/libevbench-<driver>.so      driver modules (cmake/EvbenchPlugins.cmake)
#   libexec/evbench/{bin/evbench-smpi,lib/libevbench-simplatform.so}
#                                           the SMPI build (installed from its own
#                                           EVBENCH_SIM=ON build dir)
#   share/evbench/configs/ (platforms/ ...), share/evbench/examples/  scan files
#   share/evbench/python/evbench_scan/      evbench-scan's package
#   share/doc/evbench/                      README.md and docs/
#   share/man/man1/evbench.1, share/bash-completion/completions/{evbench,evbench-scan}
#
# The tree is relocatable: every program finds the others by relative paths
# from its own location, computed here from the install directories, and no
# RPATH is set (the installed programs link only system libraries).
include(GNUInstallDirs)

# find_smpi_build() (src/apps/evbench/sim_command.cpp): bin -> libexec/evbench.
file(RELATIVE_PATH _evb_smpi_reldir ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_LIBEXECDIR}/evbench)
set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/apps/evbench/sim_command.cpp
             TARGET_DIRECTORY evbench_app APPEND PROPERTY
             COMPILE_DEFINITIONS EVBENCH_SMPI_RELDIR="${_evb_smpi_reldir}")

if(EVBENCH_SIM)
  # The SMPI build: evbench-smpi and the platform plug-in smpirun loads, in
  # the bin/ + lib/ shape find_smpi_build() expects of a build dir.
  install(TARGETS evbench RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/evbench/bin)
  install(TARGETS evbench_simplatform LIBRARY DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/evbench/lib)
  return()
endif()

install(TARGETS evbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# evbench-scan: the launcher learns where its package is, relative to itself
# (the source tree's launcher finds it beside itself), and the package its
# version (evbench_scan/version.py: the project() version above, one source).
set(_evb_pydir ${CMAKE_INSTALL_DATADIR}/evbench/python)
file(RELATIVE_PATH _evb_py_reldir ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_PREFIX}/${_evb_pydir})
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/scan/evbench-scan)
file(READ ${PROJECT_SOURCE_DIR}/scan/evbench-scan _evb_launcher)
string(REPLACE "PACKAGE_DIR = \".\"" "PACKAGE_DIR = \"${_evb_py_reldir}\"" _evb_installed
               "${_evb_launcher}")
if(_evb_installed STREQUAL _evb_launcher)
  message(FATAL_ERROR "scan/evbench-scan has no line 'PACKAGE_DIR = \".\"' for the install to set")
endif()
file(WRITE ${CMAKE_BINARY_DIR}/generated/install/evbench-scan "${_evb_installed}")
file(WRITE ${CMAKE_BINARY_DIR}/generated/install/_version.py
     "# Written by the install (cmake/EvbenchInstall.cmake) from project(VERSION).\n"
     "VERSION = \"${PROJECT_VERSION}\"\n")
install(PROGRAMS ${CMAKE_BINARY_DIR}/generated/install/evbench-scan
        DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scan/evbench_scan DESTINATION ${_evb_pydir}
        FILES_MATCHING PATTERN "*.py" PATTERN "*.j2" PATTERN "__pycache__" EXCLUDE)
install(FILES ${CMAKE_BINARY_DIR}/generated/install/_version.py
        DESTINATION ${_evb_pydir}/evbench_scan)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/evbench/configs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scan/examples/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/evbench/examples)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# evbench(1) and the bash completions, generated at build time.
add_subdirectory(${PROJECT_SOURCE_DIR}/src/apps/docgen ${CMAKE_BINARY_DIR}/src/apps/docgen)
