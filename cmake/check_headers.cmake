# Compiles every public header on its own (twice in one translation unit, to prove the include
# guard), so no header leans on something its includer happened to include first.
#   cmake -DROOT=<source dir> -DCXX=<compiler> -DWORK=<scratch dir> [-DGENERATED=<include dir>]
#         -P cmake/check_headers.cmake
# GENERATED is the build tree's include folder (agentkit/base/version.hpp); its headers are
# checked too.
cmake_minimum_required(VERSION 3.25)
foreach(var ROOT CXX WORK)
  if(NOT ${var})
    message(FATAL_ERROR "pass -D${var}=...")
  endif()
endforeach()

file(GLOB_RECURSE headers RELATIVE "${ROOT}/include" "${ROOT}/include/agentkit/*.hpp")
set(include_flags -I "${ROOT}/include")
if(GENERATED)
  file(GLOB_RECURSE generated RELATIVE "${GENERATED}" "${GENERATED}/agentkit/*.hpp")
  list(APPEND headers ${generated})
  list(APPEND include_flags -I "${GENERATED}")
endif()
list(SORT headers)
file(MAKE_DIRECTORY "${WORK}")
set(failures "")
foreach(header IN LISTS headers)
  string(MAKE_C_IDENTIFIER "${header}" stem)
  set(tu "${WORK}/${stem}.cpp")
  file(WRITE "${tu}" "#include \"${header}\"\n#include \"${header}\"\nint main() { return 0; }\n")
  execute_process(
    COMMAND "${CXX}" -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Wshadow -Werror
            ${include_flags} "${tu}"
    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    list(APPEND failures "${header}")
    message("--- ${header} does not compile on its own:\n${err}")
  endif()
endforeach()
list(LENGTH headers n)
if(failures)
  string(REPLACE ";" "\n  " text "${failures}")
  message(FATAL_ERROR "self-contained headers: these fail alone:\n  ${text}")
endif()
message(STATUS "self-contained headers: all ${n} compile on their own")
