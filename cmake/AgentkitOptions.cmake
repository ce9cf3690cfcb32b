# Compiler warnings and sanitizers. Warnings apply to our own targets only (PRIVATE), never to a
# consumer's; sanitizers apply to everything built in this tree so instrumented code links cleanly.

set(AGENTKIT_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wshadow)
if(AGENTKIT_WERROR)
  list(APPEND AGENTKIT_WARNING_FLAGS -Werror)
endif()

function(agentkit_set_warnings target)
  target_compile_options(${target} PRIVATE ${AGENTKIT_WARNING_FLAGS})
  # In a unity build every source is an included file, and g++ then warns about each class with a
  # member of a file-local type, as it would for a class defined in a header (-Wsubobject-linkage).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE
      $<$<BOOL:$<TARGET_PROPERTY:UNITY_BUILD>>:-Wno-subobject-linkage>)
  endif()
endfunction()

if(AGENTKIT_SANITIZE)
  if(NOT AGENTKIT_SANITIZE MATCHES "^(address,undefined|undefined,address|address|undefined|thread)$")
    message(FATAL_ERROR "AGENTKIT_SANITIZE='${AGENTKIT_SANITIZE}': use 'address,undefined' or 'thread'")
  endif()
  add_compile_options(-fsanitize=${AGENTKIT_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${AGENTKIT_SANITIZE})
endif()

if(AGENTKIT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "AGENTKIT_FUZZ needs clang (libFuzzer); configure with CMAKE_CXX_COMPILER=clang++")
  endif()
  # Coverage instrumentation for the library; the fuzz executables add -fsanitize=fuzzer themselves.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# The installed Catch2WithMain is built for the host's libstdc++: a cross or libc++ build links
# Catch2's main compiled here instead (tests/CMakeLists.txt, difftest/CMakeLists.txt).
set(AGENTKIT_CATCH2_OWN_MAIN OFF)
if(CMAKE_CROSSCOMPILING OR CMAKE_CXX_FLAGS MATCHES "-stdlib=libc\\+\\+")
  set(AGENTKIT_CATCH2_OWN_MAIN ON)
endif()
