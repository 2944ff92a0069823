# `cmake --install`: the command line, the CUPTI injection library, the C API library, the data files, every
# layer's headers and static library, and a CMake package (kprofConfig.cmake) exporting them as kprof::<name>.
# A consumer does find_package(kprof CONFIG) and links kprof::api (C++ API and everything below it) or kprof::c
# (the C API, libkprof_c.so); tests/consumer/ is one, built against an install by scripts/test-consumer.sh.
#
#   bin/kprof, bin/kprof-kernels, bin/kprof-peaks     (the GPU programs when built with CUDA)
#   lib/libkprof_inject.so, lib/libkprof_c.so         (found by kprof at <bin>/../lib)
#   lib/libkprof_<layer>.a                            (util model plan collect analyze render session api)
#   include/kprof/<layer>/*.hpp, include/kprof/capi/kprof_c.h
#   share/kprof/                                      (devices.json, thresholds.toml, ncu metric list)
#   lib/cmake/kprof/kprofConfig.cmake, kprofConfigVersion.cmake, kprofTargets.cmake
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KPROF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kprof)
set(_layers util model plan collect analyze render session api)
set(_lib_targets)
foreach(layer ${_layers})
  list(APPEND _lib_targets kprof_${layer})
  set_target_properties(kprof_${layer} PROPERTIES EXPORT_NAME ${layer})
  install(DIRECTORY src/${layer}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kprof/${layer} FILES_MATCHING PATTERN "*.hpp")
endforeach()
set_target_properties(kprof_c PROPERTIES EXPORT_NAME c)
install(FILES src/capi/kprof_c.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kprof/capi)
target_include_directories(kprof_c INTERFACE $<INSTALL_INTERFACE:include/kprof>
                                              $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>)

install(TARGETS kprof ${_lib_targets} kprof_c EXPORT kprofTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(t kprof_inject kprof-kernels kprof-peaks)
  if(TARGET ${t})
    # OPTIONAL: an install from a partial build (`--target kprof kprof_c`) leaves the GPU programs out.
    install(TARGETS ${t} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} OPTIONAL
                         LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} OPTIONAL)
  endif()
endforeach()
install(FILES data/devices.json data/thresholds.toml data/ncu-annotation-metrics.txt
        DESTINATION ${CMAKE_INSTALL_DATADIR}/kprof)

install(EXPORT kprofTargets NAMESPACE kprof:: DESTINATION ${KPROF_CMAKE_DIR})
configure_package_config_file(cmake/kprofConfig.cmake.in ${PROJECT_BINARY_DIR}/kprofConfig.cmake
                              INSTALL_DESTINATION ${KPROF_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kprofConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kprofConfig.cmake ${PROJECT_BINARY_DIR}/kprofConfigVersion.cmake
        DESTINATION ${KPROF_CMAKE_DIR})

# `cpack` in the build directory: kprof-<version>-Linux.tar.gz with the install tree above.
set(CPACK_GENERATOR TGZ)
set(CPACK_PACKAGE_NAME kprof)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "kprof: a workbench for profiling GPU kernels")
set(CPACK_PACKAGE_FILE_NAME kprof-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME})
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
include(CPack)
