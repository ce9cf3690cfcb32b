# Builds and runs tests/build/consumer against this tree, the way an outside project would.
#   MODE=find_package : install BINARY_DIR into a fresh prefix, then find_package(agentkit) from it
#   MODE=subdirectory : add_subdirectory(SOURCE_DIR) from the consumer
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

set(consumer_args -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Debug)
if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${WORK}/prefix")
  list(APPEND consumer_args -DAGENTKIT_CONSUME=find_package -DCMAKE_PREFIX_PATH=${WORK}/prefix)
elseif(MODE STREQUAL "subdirectory")
  list(APPEND consumer_args -DAGENTKIT_CONSUME=subdirectory -DAGENTKIT_SOURCE=${SOURCE_DIR})
else()
  message(FATAL_ERROR "MODE must be find_package or subdirectory")
endif()

run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/build/consumer" -B "${WORK}/build" ${consumer_args})
run(${CMAKE_COMMAND} --build "${WORK}/build" -j 2)
run("${WORK}/build/consumer")
message(STATUS "consumer via ${MODE}: built and ran")
file(REMOVE_RECURSE "${WORK}")
