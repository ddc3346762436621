#===- OpfuseInstall.cmake - What `cmake --install` ships ------------------===#
#
# libopfuse.so, the tools, the public headers with their generated .inc
# files, and a CMake package (opfuseConfig.cmake) whose imported targets an
# out-of-tree pass links against (examples/custom-pass).
#
#===----------------------------------------------------------------------===#
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(OPFUSE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/opfuse)

# Installed tools find libopfuse.so beside them and libMLIR.so where MLIR is.
set_target_properties(opt-fuse opfuse-opt opfuse-run PROPERTIES
  INSTALL_RPATH "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR};${LLVM_LIBRARY_DIR}")

install(TARGETS OpfuseShared opt-fuse opfuse-opt opfuse-run
  EXPORT opfuseTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/opfuse
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/opfuse
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)
install(EXPORT opfuseTargets
  NAMESPACE opfuse::
  DESTINATION ${OPFUSE_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/opfuseConfig.cmake.in
  ${PROJECT_BINARY_DIR}/opfuseConfig.cmake
  INSTALL_DESTINATION ${OPFUSE_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/opfuseConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/opfuseConfig.cmake
  ${PROJECT_BINARY_DIR}/opfuseConfigVersion.cmake
  DESTINATION ${OPFUSE_INSTALL_CMAKEDIR})
