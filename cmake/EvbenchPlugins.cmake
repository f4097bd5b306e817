# Plug-in registration for drivers and bootstraps.
#
# Each plug-in folder calls evbench_add_driver() / evbench_add_bootstrap() once.
# A plug-in comes in two halves (src/drivers/api/plugin_entry.hpp):
#   - its description (SPEC target: *_register.cpp and its option table),
#     which needs no library and is always linked into evbench, so that
#     --version, validate and config load no network library;
#   - its entry (IMPL target: *_entry.cpp and the code that calls the
#     library), which evbench opens as a module, lib/evbench/libevbench-<m>.so,
#     the first time the driver is probed or created (EVBENCH_DRIVER_MODULES,
#     ON by default), and which tests, fuzzers and the SMPI build link in.
# The generated register_builtin_plugins() registers every description and
# binds every entry, so core code never names a driver (what core needs to
# know of one comes from its DriverFactory: options, limits, capabilities
# such as rdma_write or a library all-to-all).
# (Static self-registration objects would be dropped by the linker from static
# libraries, hence a generated list instead.)

set_property(GLOBAL PROPERTY EVBENCH_DRIVERS "")
set_property(GLOBAL PROPERTY EVBENCH_DRIVERS_SKIPPED "")
set_property(GLOBAL PROPERTY EVBENCH_BOOTSTRAPS "")

# evbench_driver_option(NAME) -> cache variable EVBENCH_WITH_<NAME> = AUTO|ON|OFF
function(evbench_driver_option NAME)
  string(TOUPPER ${NAME} up)
  set(EVBENCH_WITH_${up} AUTO CACHE STRING "Build the ${NAME} driver: AUTO, ON or OFF")
  set_property(CACHE EVBENCH_WITH_${up} PROPERTY STRINGS AUTO ON OFF)
endfunction()

# evbench_driver_wanted(NAME FOUND OUT): decides from the tri-state option
# whether to build; fails configure when ON and the library is missing.
function(evbench_driver_wanted NAME FOUND WHY OUT)
  string(TOUPPER ${NAME} up)
  set(mode ${EVBENCH_WITH_${up}})
  if(mode STREQUAL "OFF")
    set_property(GLOBAL APPEND PROPERTY EVBENCH_DRIVERS_SKIPPED "${NAME} (EVBENCH_WITH_${up}=OFF)")
    set(${OUT} FALSE PARENT_SCOPE)
  elseif(${FOUND})
    set(${OUT} TRUE PARENT_SCOPE)
  elseif(mode STREQUAL "ON")
    message(FATAL_ERROR "EVBENCH_WITH_${up}=ON but ${WHY}. Install it or configure with -DEVBENCH_WITH_${up}=AUTO|OFF.")
  else()
    set_property(GLOBAL APPEND PROPERTY EVBENCH_DRIVERS_SKIPPED "${NAME} (${WHY})")
    set(${OUT} FALSE PARENT_SCOPE)
  endif()
endfunction()

# evbench_plugin_spec(SPEC_TARGET LIB_TARGET SOURCES...): the description
# half of a plug-in, compiled with its library's headers (for constants such
# as kMaxSegments) but never linked against the library.
function(evbench_plugin_spec SPEC LIB)
  add_library(${SPEC} STATIC ${ARGN})
  target_link_libraries(${SPEC} PUBLIC evbench_driver_api)
  if(LIB)
    target_include_directories(${SPEC} SYSTEM PRIVATE
                               $<TARGET_PROPERTY:${LIB},INTERFACE_INCLUDE_DIRECTORIES>)
    target_compile_definitions(${SPEC} PRIVATE
                               $<TARGET_PROPERTY:${LIB},INTERFACE_COMPILE_DEFINITIONS>)
  endif()
endfunction()

# evbench_add_driver(NAME IMPL SPEC): SPEC defines
#   void evb_register_driver_<NAME>(evb::PluginRegistry&)
# and IMPL (which links SPEC) defines
#   const evb::DriverEntry* evb_driver_entry_<NAME>().
# The driver's module is named after it.
function(evbench_add_driver NAME IMPL SPEC)
  set_property(GLOBAL APPEND PROPERTY EVBENCH_DRIVERS "${NAME}:${IMPL}:${SPEC}")
endfunction()

# evbench_add_bootstrap(NAME TARGET [SPEC SPEC_TARGET MODULE M]):
# without SPEC, TARGET defines a complete
#   void evb_register_bootstrap_<NAME>(evb::PluginRegistry&)
# and is always linked in (no library: local, env). With SPEC, SPEC_TARGET
# registers the description and TARGET defines
#   const evb::BootstrapEntry* evb_bootstrap_entry_<NAME>(),
# which goes into module M (shared with a driver when they share state).
function(evbench_add_bootstrap NAME TARGET)
  cmake_parse_arguments(B "" "SPEC;MODULE" "" ${ARGN})
  if(NOT B_MODULE)
    set(B_MODULE ${NAME})
  endif()
  set_property(GLOBAL APPEND PROPERTY EVBENCH_BOOTSTRAPS "${NAME}:${TARGET}:${B_SPEC}:${B_MODULE}")
endfunction()

# Writes the generated sources and defines:
#   evbench_plugins         every plug-in linked in (tests, fuzzers, SMPI)
#   evbench_plugin_modules  descriptions + module loader, and one MODULE
#                           target per module (EVBENCH_DRIVER_MODULES=ON);
#                           otherwise the same as evbench_plugins.
#   evbench_modules         every module (part of `all`, not of the evbench
#                           target: scripts/build.sh builds the default
#                           driver's module, evbench_module_<name>, first).
# Sets EVBENCH_EXE_PLUGINS in the caller: what the evbench executable links.
function(evbench_plugin_libraries)
  get_property(drivers GLOBAL PROPERTY EVBENCH_DRIVERS)
  get_property(boots GLOBAL PROPERTY EVBENCH_BOOTSTRAPS)
  set(decl "")
  set(static_calls "")
  set(module_calls "")
  set(static_targets "")
  set(spec_targets "")
  set(modules "")  # module names
  foreach(entry IN LISTS drivers)
    string(REPLACE ":" ";" parts ${entry})
    list(GET parts 0 n)
    list(GET parts 1 impl)
    list(GET parts 2 spec)
    string(REPLACE "-" "_" id ${n})
    string(APPEND decl "void evb_register_driver_${id}(PluginRegistry&);\n"
                       "const DriverEntry* evb_driver_entry_${id}();\n")
    string(APPEND static_calls "  evb_register_driver_${id}(registry);\n"
                               "  bind_driver(registry, \"${n}\", *evb_driver_entry_${id}());\n")
    string(APPEND module_calls "  evb_register_driver_${id}(registry);\n"
                               "  bind_driver_module(registry, \"${n}\", \"libevbench-${n}.so\", "
                               "\"evbench_driver_entry_${id}\");\n")
    list(APPEND static_targets ${impl})
    list(APPEND spec_targets ${spec})
    list(APPEND modules ${n})
    set_property(GLOBAL APPEND PROPERTY EVBENCH_MODULE_${n}_TARGETS ${impl})
    set_property(GLOBAL APPEND PROPERTY EVBENCH_MODULE_${n}_ENTRIES "Driver:driver:${id}")
  endforeach()
  foreach(entry IN LISTS boots)
    string(REPLACE ":" ";" parts ${entry})
    list(GET parts 0 n)
    list(GET parts 1 t)
    list(GET parts 2 spec)
    list(GET parts 3 m)
    string(REPLACE "-" "_" id ${n})
    string(APPEND decl "void evb_register_bootstrap_${id}(PluginRegistry&);\n")
    list(APPEND static_targets ${t})
    if(spec STREQUAL "")
      string(APPEND static_calls "  evb_register_bootstrap_${id}(registry);\n")
      string(APPEND module_calls "  evb_register_bootstrap_${id}(registry);\n")
      list(APPEND spec_targets ${t})
    else()
      string(APPEND decl "const BootstrapEntry* evb_bootstrap_entry_${id}();\n")
      string(APPEND static_calls "  evb_register_bootstrap_${id}(registry);\n"
                                 "  bind_bootstrap(registry, \"${n}\", *evb_bootstrap_entry_${id}());\n")
      string(APPEND module_calls "  evb_register_bootstrap_${id}(registry);\n"
                                 "  bind_bootstrap_module(registry, \"${n}\", \"libevbench-${m}.so\", "
                                 "\"evbench_bootstrap_entry_${id}\");\n")
      list(APPEND spec_targets ${spec})
      list(APPEND modules ${m})
      set_property(GLOBAL APPEND PROPERTY EVBENCH_MODULE_${m}_TARGETS ${t})
      set_property(GLOBAL APPEND PROPERTY EVBENCH_MODULE_${m}_ENTRIES "Bootstrap:bootstrap:${id}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES modules)
  list(REMOVE_DUPLICATES static_targets)
  list(REMOVE_DUPLICATES spec_targets)

  set(head "// Generated by cmake/EvbenchPlugins.cmake: do not edit.
#include \"drivers/api/plugin_entry.hpp\"
namespace evb {
${decl}
void register_builtin_plugins(PluginRegistry& registry) {
")
  set(static_src "${CMAKE_BINARY_DIR}/generated/builtin_plugins.cpp")
  file(CONFIGURE OUTPUT ${static_src} CONTENT "${head}${static_calls}}\n}  // namespace evb\n")
  add_library(evbench_plugins STATIC ${static_src})
  target_link_libraries(evbench_plugins PUBLIC evbench_driver_api ${static_targets})

  add_custom_target(evbench_modules)
  if(NOT EVBENCH_DRIVER_MODULES)
    set(EVBENCH_EXE_PLUGINS evbench_plugins PARENT_SCOPE)
    return()
  endif()

  set(module_src "${CMAKE_BINARY_DIR}/generated/module_plugins.cpp")
  file(CONFIGURE OUTPUT ${module_src} CONTENT "${head}${module_calls}}\n}  // namespace evb\n")
  # Modules are found relative to the executable: bin/ -> lib/evbench in the
  # build tree, and the same relative path in an installed tree.
  include(GNUInstallDirs)
  file(RELATIVE_PATH reldir ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR}/evbench)
  add_library(evbench_plugin_modules STATIC ${module_src}
              ${PROJECT_SOURCE_DIR}/src/drivers/api/plugin_loader.cpp)
  target_compile_definitions(evbench_plugin_modules PRIVATE EVBENCH_PLUGIN_RELDIR="${reldir}")
  target_link_libraries(evbench_plugin_modules PUBLIC evbench_driver_api ${spec_targets}
                        ${CMAKE_DL_LIBS})

  foreach(m IN LISTS modules)
    get_property(targets GLOBAL PROPERTY EVBENCH_MODULE_${m}_TARGETS)
    get_property(entries GLOBAL PROPERTY EVBENCH_MODULE_${m}_ENTRIES)
    set(decls "")
    set(body "")
    foreach(e IN LISTS entries)
      string(REPLACE ":" ";" parts ${e})
      list(GET parts 0 type)
      list(GET parts 1 kind)
      list(GET parts 2 id)
      string(APPEND decls "const ${type}Entry* evb_${kind}_entry_${id}();\n")
      string(APPEND body "extern \"C\" __attribute__((visibility(\"default\"))) const evb::${type}Entry*\n"
                         "evbench_${kind}_entry_${id}() {\n  return evb::evb_${kind}_entry_${id}();\n}\n")
    endforeach()
    set(src "${CMAKE_BINARY_DIR}/generated/module_${m}.cpp")
    file(CONFIGURE OUTPUT ${src} CONTENT "// Generated by cmake/EvbenchPlugins.cmake: do not edit.
// The exported entries of module libevbench-${m}.so.
#include \"drivers/api/plugin_entry.hpp\"
namespace evb {
${decls}
}  // namespace evb
${body}")
    add_library(evbench_module_${m} MODULE ${src})
    target_link_libraries(evbench_module_${m} PRIVATE ${targets})
    # The module's copies of evbench's static libraries stay private to it:
    # only the entries above are exported.
    target_link_options(evbench_module_${m} PRIVATE -Wl,--exclude-libs,ALL -Wl,--no-undefined)
    set_target_properties(evbench_module_${m} PROPERTIES
      OUTPUT_NAME evbench-${m}
      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/evbench
      INSTALL_RPATH_USE_LINK_PATH TRUE)
    install(TARGETS evbench_module_${m} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/evbench)
    add_dependencies(evbench_modules evbench_module_${m})
  endforeach()
  set(EVBENCH_EXE_PLUGINS evbench_plugin_modules PARENT_SCOPE)
endfunction()

function(evbench_report_plugins)
  get_property(drivers GLOBAL PROPERTY EVBENCH_DRIVERS)
  get_property(skipped GLOBAL PROPERTY EVBENCH_DRIVERS_SKIPPED)
  get_property(boots GLOBAL PROPERTY EVBENCH_BOOTSTRAPS)
  set(names "")
  foreach(entry IN LISTS drivers)
    string(REPLACE ":" ";" parts ${entry})
    list(GET parts 0 n)
    list(APPEND names ${n})
  endforeach()
  set(bnames "")
  foreach(entry IN LISTS boots)
    string(REPLACE ":" ";" parts ${entry})
    list(GET parts 0 n)
    list(APPEND bnames ${n})
  endforeach()
  message(STATUS "evbench drivers built: ${names}")
  if(EVBENCH_DRIVER_MODULES)
    message(STATUS "evbench driver modules: lib/evbench/libevbench-<name>.so, loaded when used")
  endif()
  foreach(s IN LISTS skipped)
    message(STATUS "evbench driver not built: ${s}")
  endforeach()
  message(STATUS "evbench bootstraps built: ${bnames}")
endfunction()
