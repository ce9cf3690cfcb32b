include(GNUInstallDirs)

# agentkit_add_module(<name> SOURCES ... [DEPS ...])
#   Adds the static library agentkit_<name> with the alias agentkit::<name>. Public headers live in
#   include/agentkit/<name>/; private headers sit beside the sources. DEPS name other modules
#   (without the agentkit_ prefix); the layering test, not this function, polices which are allowed.
set(AGENTKIT_MODULES "" CACHE INTERNAL "")

function(agentkit_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LIBS" ${ARGN})
  set(target agentkit_${name})
  add_library(${target} STATIC ${ARG_SOURCES})
  add_library(agentkit::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(${target}
    PUBLIC
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE
      ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_features(${target} PUBLIC cxx_std_20)
  foreach(dep IN LISTS ARG_DEPS)
    target_link_libraries(${target} PUBLIC agentkit_${dep})
  endforeach()
  if(ARG_LIBS)
    target_link_libraries(${target} PUBLIC ${ARG_LIBS})
  endif()
  agentkit_set_warnings(${target})
  set(AGENTKIT_MODULES ${AGENTKIT_MODULES} ${target} CACHE INTERNAL "")
endfunction()
