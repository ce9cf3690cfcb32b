# Counts the public headers HEADER (agentkit/agent.hpp, the front door) pulls in, and fails when the count passes MAX or when one of them belongs to a module a first
# program does not need (providers, http, wire, catalog, mcp, tools), so the front door cannot
# silently grow heavy again.
#   cmake -DROOT=<source dir> -DCXX=<compiler> -DWORK=<scratch dir> -DMAX=<bound>
#         -DHEADER=<path under include/> -P cmake/check_front_door.cmake
cmake_minimum_required(VERSION 3.25)
foreach(var ROOT CXX WORK MAX HEADER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "pass -D${var}=...")
  endif()
endforeach()

file(MAKE_DIRECTORY "${WORK}")
string(MAKE_C_IDENTIFIER "${HEADER}" stem)
set(tu "${WORK}/${stem}.cpp")
file(WRITE "${tu}" "#include \"${HEADER}\"\n")
execute_process(
  COMMAND "${CXX}" -std=c++20 -M -I "${ROOT}/include" "${tu}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE deps ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "front door: preprocessing failed:\n${err}")
endif()

string(REGEX MATCHALL "include/agentkit/[A-Za-z0-9_/]+\\.hpp" found "${deps}")
list(TRANSFORM found REPLACE "^include/" "")
list(REMOVE_DUPLICATES found)
list(REMOVE_ITEM found "${HEADER}")
list(SORT found)
list(LENGTH found count)

set(heavy "")
foreach(header IN LISTS found)
  if(header MATCHES "^agentkit/(providers|http|wire|catalog|mcp|tools)/")
    list(APPEND heavy "${header}")
  endif()
endforeach()
string(REPLACE ";" "\n  " listing "${found}")
message(STATUS "front door: ${HEADER} pulls in ${count} other public headers:\n  ${listing}")
if(heavy)
  string(REPLACE ";" "\n  " names "${heavy}")
  message(FATAL_ERROR "front door: ${HEADER} includes machinery a first program does not "
                      "need (include it where it is used instead):\n  ${names}")
endif()
if(count GREATER MAX)
  message(FATAL_ERROR "front door: ${count} public headers, more than the bound of ${MAX}; "
                      "keep the front door light or raise the bound in tests/build on purpose")
endif()
