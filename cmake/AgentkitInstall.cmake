# install() + export() so that find_package(agentkit) yields agentkit::agentkit and agentkit::<module>.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS ${AGENTKIT_MODULES} agentkit
  EXPORT agentkitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/agentkit" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(AGENTKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/agentkit)
install(EXPORT agentkitTargets NAMESPACE agentkit:: DESTINATION ${AGENTKIT_CMAKE_DIR})
export(EXPORT agentkitTargets NAMESPACE agentkit:: FILE "${PROJECT_BINARY_DIR}/agentkitTargets.cmake")

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/agentkitConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/agentkitConfig.cmake" INSTALL_DESTINATION ${AGENTKIT_CMAKE_DIR})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/agentkitConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/agentkitConfig.cmake" "${PROJECT_BINARY_DIR}/agentkitConfigVersion.cmake"
  DESTINATION ${AGENTKIT_CMAKE_DIR})
