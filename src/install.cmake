# `cmake --install`: the reference library pecheck::pe with its headers and CMake package, and the pecheck command line.
# Layout under the prefix P:
#   P/lib/libpecheck.so*                    the reference (target pe)
#   P/include/pecheck/pe/**.hpp             its headers: consumers write #include <pe/ops.hpp>, as pecheck's sources do
#   P/include/pecheck/impl.h, impl_helpers.h the gate's C ABI for plugins (target pecheck::impl_abi): #include <pecheck/impl.h>
#   P/lib/cmake/pecheck/                    pecheckConfig.cmake, its version file, pecheckTargets*.cmake, mpfr_gmp.cmake
#   P/bin/pecheck                           the command line, finding the library through $ORIGIN
#   P/share/pecheck/golden/                 the golden values, found by the command line from its own location
include(CMakePackageConfigHelpers)
set(pecheck_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/pecheck)

# libpecheck.so rather than libpe.so: an installed name must say whose it is. The SONAME carries
# major.minor because before 1.0 a minor release may change the ABI.
set_target_properties(pe PROPERTIES OUTPUT_NAME pecheck EXPORT_NAME pe VERSION ${PROJECT_VERSION}
                                    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
install(TARGETS pe EXPORT pecheckTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library)
# Every header of the reference. The public ones are ops.hpp (run_op, op_inputs, angle_tables),
# spec.hpp (parse_spec, spec), mp.hpp (mp_real, mp_precision), tensor.hpp and float_format.hpp;
# they include most of the others (scheme.hpp, schemes/*.hpp, error.hpp...), which are installed
# because of that and are not an interface of their own.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/pe/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecheck/pe COMPONENT library
        FILES_MATCHING PATTERN "*.hpp")
# The C ABI: a plugin needs these two headers and nothing else of pecheck.
install(TARGETS pecheck_impl_abi EXPORT pecheckTargets COMPONENT library)
install(FILES ${PROJECT_SOURCE_DIR}/src/gate/pecheck/impl.h ${PROJECT_SOURCE_DIR}/src/gate/pecheck/impl_helpers.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecheck COMPONENT library)
install(EXPORT pecheckTargets NAMESPACE pecheck:: DESTINATION ${pecheck_cmake_dir} COMPONENT library)
configure_package_config_file(${PROJECT_SOURCE_DIR}/src/pecheckConfig.cmake.in ${PROJECT_BINARY_DIR}/pecheckConfig.cmake
                              INSTALL_DESTINATION ${pecheck_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pecheckConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pecheckConfig.cmake ${PROJECT_BINARY_DIR}/pecheckConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/src/mpfr_gmp.cmake
        DESTINATION ${pecheck_cmake_dir} COMPONENT library)

# The command line; its build RPATH (the build tree) is replaced by one relative to itself.
file(RELATIVE_PATH pecheck_bin_to_lib ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR} ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR})
set_target_properties(pecheck PROPERTIES INSTALL_RPATH "$ORIGIN/${pecheck_bin_to_lib}")
install(TARGETS pecheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
# The golden values the gate judges with, found from the binary's own location (src/cli/golden_location.cpp).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/golden/ DESTINATION ${CMAKE_INSTALL_DATADIR}/pecheck/golden COMPONENT cli)
