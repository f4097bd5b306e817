# Unity batches for the product's sources (EVBENCH_UNITY_BUILD).
#
# Each target defined under src/ compiles its C++ sources 8 to a translation
# unit: a generated build/unity/<target>_<n>.cpp that includes them by their
# path under src/ ("core/config_units.cpp", found through -I src/). CMake's
# own UNITY_BUILD writes absolute paths into its batches, so a clone in
# another directory would miss ccache for every batch; these batches read the
# same in every clone, and ccache's base_dir makes the rest of the command
# relative (scripts/test.sh). Sources with properties of their own
# (SKIP_UNITY_BUILD_INCLUSION, COMPILE_DEFINITIONS, COMPILE_OPTIONS) and
# generated ones stay single.

set(EVBENCH_UNITY_BATCH 8)

# The buildsystem targets of `dir` and of every directory below it.
function(evbench_targets_below dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    evbench_targets_below(${sub} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Whether source `abs` of target `t` may share a batch.
function(evbench_unity_eligible t abs out)
  set(ok FALSE)
  string(FIND "${abs}" "${PROJECT_SOURCE_DIR}/src/" at)
  if(at EQUAL 0 AND abs MATCHES "\\.cpp$")
    set(ok TRUE)
    foreach(p SKIP_UNITY_BUILD_INCLUSION COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FLAGS)
      get_property(v SOURCE ${abs} TARGET_DIRECTORY ${t} PROPERTY ${p})
      if(v)
        set(ok FALSE)
      endif()
    endforeach()
  endif()
  set(${out} ${ok} PARENT_SCOPE)
endfunction()

# Replaces the eligible sources of every target defined under src/ by
# batches (call it after src/ is added, before the tests).
function(evbench_unity_batches)
  evbench_targets_below(${PROJECT_SOURCE_DIR} targets)
  foreach(t IN LISTS targets)
    get_target_property(dir ${t} SOURCE_DIR)
    string(FIND "${dir}/" "${PROJECT_SOURCE_DIR}/src/" at)
    if(NOT at EQUAL 0)
      continue()
    endif()
    get_target_property(type ${t} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(sources ${t} SOURCES)
    set(keep "")
    set(batched "")
    foreach(s IN LISTS sources)
      if(s MATCHES "^\\$<")  # a generator expression: leave it alone
        list(APPEND keep ${s})
        continue()
      endif()
      get_filename_component(abs ${s} ABSOLUTE BASE_DIR ${dir})
      evbench_unity_eligible(${t} ${abs} ok)
      if(ok)
        list(APPEND batched ${abs})
      else()
        list(APPEND keep ${abs})
      endif()
    endforeach()
    list(LENGTH batched n)
    if(n LESS 2)
      continue()
    endif()
    set(units "")
    set(body "")
    set(count 0)
    set(index 0)
    foreach(abs IN LISTS batched)
      file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/src ${abs})
      string(APPEND body "#include \"${rel}\"\n")
      math(EXPR count "${count} + 1")
      if(count EQUAL EVBENCH_UNITY_BATCH)
        set(unit ${CMAKE_BINARY_DIR}/unity/${t}_${index}.cpp)
        file(CONFIGURE OUTPUT ${unit} CONTENT "// Generated (cmake/EvbenchUnity.cmake): do not edit.\n${body}")
        list(APPEND units ${unit})
        set(body "")
        set(count 0)
        math(EXPR index "${index} + 1")
      endif()
    endforeach()
    if(count GREATER 0)
      set(unit ${CMAKE_BINARY_DIR}/unity/${t}_${index}.cpp)
      file(CONFIGURE OUTPUT ${unit} CONTENT "// Generated (cmake/EvbenchUnity.cmake): do not edit.\n${body}")
      list(APPEND units ${unit})
    endif()
    set_property(TARGET ${t} PROPERTY SOURCES ${keep} ${units})
    target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  endforeach()
endfunction()
