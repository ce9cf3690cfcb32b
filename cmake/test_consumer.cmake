# Builds and runs tests/build/consumer against this tree, the way an outside project would.
#   MODE=find_package : install BINARY_DIR into a fresh prefix, then find_package(agentkit) from it
#   MODE=subdirectory : add_subdirectory(SOURCE_DIR) from the consumer
#   MODE=pkg_config   : install into a fresh prefix, then compile and link the consumer by hand
#                       with the flags of `pkg-config --cflags --libs agentkit` from that prefix
cmake_minimum_required(VERSION 3.25)
foreach(var MODE SOURCE_DIR BINARY_DIR WORK CXX)
  if(NOT ${var})
    message(FATAL_ERROR "pass -D${var}=...")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
endfunction()

# No build system on the consumer's side: one compiler command, as a Makefile user would write.
function(consume_with_pkg_config)
  run(${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${WORK}/prefix")
  file(GLOB_RECURSE pc_files "${WORK}/prefix/*/agentkit.pc")
  if(NOT pc_files)
    message(FATAL_ERROR "the install put no agentkit.pc under ${WORK}/prefix")
  endif()
  list(GET pc_files 0 pc_file)
  get_filename_component(pc_dir "${pc_file}" DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
  set(ENV{PKG_CONFIG_LIBDIR} "${pc_dir}")  # only this prefix: never a system copy
  execute_process(COMMAND pkg-config --cflags --libs agentkit
    RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs agentkit failed (${rc}): ${err}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run("${CXX}" -std=c++20 "${SOURCE_DIR}/tests/build/consumer/main.cpp" ${flags}
      -o "${WORK}/consumer")
  run("${WORK}/consumer")
  message(STATUS "consumer via pkg_config: built and ran")
endfunction()

if(MODE STREQUAL "pkg_config")
  consume_with_pkg_config()
  file(REMOVE_RECURSE "${WORK}")
  return()
endif()

# Debug without debug information: the subdirectory mode compiles the whole library again, and
# what it proves is that the build works from a consumer's tree, not how well it can be debugged.
set(consumer_args -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=")
if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${WORK}/prefix")
  list(APPEND consumer_args -DAGENTKIT_CONSUME=find_package -DCMAKE_PREFIX_PATH=${WORK}/prefix)
elseif(MODE STREQUAL "subdirectory")
  # As a unity build with one batch per module, the way a consumer's CMAKE_UNITY_BUILD reaches
  # it: every two sources of a module share a translation unit, so a file-scope name used twice
  # in a module fails here, whatever batches a later build cuts. It is also the cheapest way to
  # compile the library again (about a quarter of the per-file build's CPU time).
  list(APPEND consumer_args -DAGENTKIT_CONSUME=subdirectory -DAGENTKIT_SOURCE=${SOURCE_DIR}
       -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0)
else()
  message(FATAL_ERROR "MODE must be find_package, subdirectory or pkg_config")
endif()

run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/build/consumer" -B "${WORK}/build" ${consumer_args})
run(${CMAKE_COMMAND} --build "${WORK}/build" -j 2)
run("${WORK}/build/consumer")
message(STATUS "consumer via ${MODE}: built and ran")
file(REMOVE_RECURSE "${WORK}")
