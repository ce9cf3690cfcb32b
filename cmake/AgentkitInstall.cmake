# install() + export() so that find_package(agentkit) yields agentkit::agentkit and agentkit::<module>.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS ${AGENTKIT_MODULES} agentkit
  EXPORT agentkitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/agentkit" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES "${AGENTKIT_GENERATED_INCLUDE}/agentkit/base/version.hpp"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/agentkit/base)

set(AGENTKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/agentkit)
install(EXPORT agentkitTargets NAMESPACE agentkit:: DESTINATION ${AGENTKIT_CMAKE_DIR})
export(EXPORT agentkitTargets NAMESPACE agentkit:: FILE "${PROJECT_BINARY_DIR}/agentkitTargets.cmake")

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/agentkitConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/agentkitConfig.cmake" INSTALL_DESTINATION ${AGENTKIT_CMAKE_DIR})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/agentkitConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/agentkitConfig.cmake" "${PROJECT_BINARY_DIR}/agentkitConfigVersion.cmake"
  DESTINATION ${AGENTKIT_CMAKE_DIR})

# agentkit.pc beside the CMake package, for builds that use pkg-config. The libraries are static, so
# Libs lists every module, dependents before what they depend on (the reverse of AGENTKIT_MODULES,
# which is in dependency order), then the system libraries they need.
set(AGENTKIT_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH AGENTKIT_PC_PREFIX_FROM_PCDIR "/prefix/${AGENTKIT_PC_DIR}" "/prefix")
set(pc_modules ${AGENTKIT_MODULES})
list(REVERSE pc_modules)
set(AGENTKIT_PC_LIBS "-lagentkit")
foreach(module IN LISTS pc_modules)
  string(APPEND AGENTKIT_PC_LIBS " -l${module}")
endforeach()
if(AGENTKIT_WITH_OPENSSL)
  string(APPEND AGENTKIT_PC_LIBS " -lssl -lcrypto")
endif()
string(APPEND AGENTKIT_PC_LIBS " -pthread")
configure_file("${PROJECT_SOURCE_DIR}/cmake/agentkit.pc.in" "${PROJECT_BINARY_DIR}/agentkit.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/agentkit.pc" DESTINATION ${AGENTKIT_PC_DIR})
