# TandemInstall: `cmake --install` rules and the exported CMake package.
#
# Another project finds the installed Tandem with
#   find_package(Tandem CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE Tandem::runtime)
# and Tandem_DEFAULT_CONFIG names the installed configs/default.json.
# The libraries are static, so every library the runtime links (even
# privately) is exported too; the package finds LLVM 19.1 itself, the way
# Tandem's own build does.
#
# Layout under the prefix:
#   bin/tandem
#   lib/libtandem_*.a, lib/cmake/Tandem/
#   include/tandem/*.h                       public API
#   include/tandem/simt/{ISA.h,SimtGenInstrInfo.inc}
#   share/tandem/configs/default.json        (config/ compiles this path in)

include(CMakePackageConfigHelpers)

set(TANDEM_INSTALL_CMAKEDIR lib/cmake/Tandem)

# Consumers see Tandem::runtime, not Tandem::tandem_runtime. tandem_llvm and
# tandem_flags are exported because static libraries carry their link
# dependencies; tandem_flags keeps only link options outside the build tree
# (the sanitizer runtime of a TANDEM_SANITIZE build), never -Werror.
set(_tandem_libraries tandem_config tandem_isa tandem_emit tandem_iss
  tandem_rtl tandem_verilator_runtime tandem_runtime tandem_llvm tandem_flags)
foreach(_target IN LISTS _tandem_libraries)
  string(REPLACE "tandem_" "" _name ${_target})
  set_target_properties(${_target} PROPERTIES EXPORT_NAME ${_name})
endforeach()

# An include directory inside the source or build tree exists only there, and
# install(EXPORT) refuses such paths (a fatal generate error for the whole
# project). A folder that writes a plain path instead of
# $<BUILD_INTERFACE:...> must not break everyone's configure, so wrap it here.
# Only the public headers are installed; installed consumers see include/
# through the $<INSTALL_INTERFACE:...> paths the libraries declare.
function(tandem_make_build_tree_includes_build_only target)
  get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT dirs)
    return()
  endif()
  set(wrapped)
  foreach(dir IN LISTS dirs)
    string(FIND "${dir}" "${PROJECT_SOURCE_DIR}/" in_source)
    string(FIND "${dir}" "${PROJECT_BINARY_DIR}/" in_build)
    if(in_source EQUAL 0 OR in_build EQUAL 0 OR dir STREQUAL PROJECT_SOURCE_DIR
       OR dir STREQUAL PROJECT_BINARY_DIR)
      list(APPEND wrapped "$<BUILD_INTERFACE:${dir}>")
    else()
      list(APPEND wrapped "${dir}")
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${wrapped}")
endfunction()
foreach(_target IN LISTS _tandem_libraries)
  tandem_make_build_tree_includes_build_only(${_target})
endforeach()

install(TARGETS ${_tandem_libraries}
  EXPORT TandemTargets
  ARCHIVE DESTINATION lib
  LIBRARY DESTINATION lib
  RUNTIME DESTINATION bin)

install(TARGETS tandem RUNTIME DESTINATION bin)

# Everything `cmake --install` copies, as one target: tests/install/run.sh
# builds it first, so the install test works in a partly built tree (the
# sanitizer build builds only the unit tests).
add_custom_target(tandem-install-inputs)
add_dependencies(tandem-install-inputs tandem tandem_config tandem_isa
  tandem_emit tandem_iss tandem_runtime simt_generated)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tandem
  DESTINATION include
  FILES_MATCHING PATTERN "*.h")
install(FILES
  ${PROJECT_SOURCE_DIR}/target/simt/ISA.h
  ${PROJECT_SOURCE_DIR}/target/common/SelectionPattern.h
  ${TANDEM_GENERATED_DIR}/simt/SimtGenInstrInfo.inc
  DESTINATION include/tandem/simt)
install(FILES ${TANDEM_DEFAULT_CONFIG} DESTINATION share/tandem/configs)

install(EXPORT TandemTargets
  NAMESPACE Tandem::
  DESTINATION ${TANDEM_INSTALL_CMAKEDIR})

# The package file is written from this template so the whole install logic
# stays in one file. PACKAGE_INIT makes the paths relative to wherever the
# package is found, so the install prefix can move.
set(_tandem_config_template [=[
# TandemConfig.cmake: the installed Tandem package (see cmake/TandemInstall.cmake).
@PACKAGE_INIT@

include(CMakeFindDependencyMacro)
# LLVM's package runs C compile checks (FindLibEdit), which fail in a
# C++-only project; enable C rather than make every user learn that.
get_property(_tandem_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if(NOT "C" IN_LIST _tandem_languages)
  enable_language(C)
endif()
# Debian's LLVM version file matches major.minor only, so "19" alone fails.
find_dependency(LLVM 19.1 CONFIG)
# The Verilated RTL model's runtime uses threads, and its FST writer zlib.
find_dependency(Threads)
find_dependency(ZLIB)

include("${CMAKE_CURRENT_LIST_DIR}/TandemTargets.cmake")

set_and_check(Tandem_DEFAULT_CONFIG "@PACKAGE_TANDEM_INSTALL_DEFAULT_CONFIG@")
check_required_components(Tandem)
]=])
set(_tandem_config_in ${CMAKE_CURRENT_BINARY_DIR}/TandemConfig.cmake.in)
file(WRITE ${_tandem_config_in} "${_tandem_config_template}")

set(TANDEM_INSTALL_DEFAULT_CONFIG share/tandem/configs/default.json)
configure_package_config_file(${_tandem_config_in}
  ${CMAKE_CURRENT_BINARY_DIR}/TandemConfig.cmake
  INSTALL_DESTINATION ${TANDEM_INSTALL_CMAKEDIR}
  PATH_VARS TANDEM_INSTALL_DEFAULT_CONFIG)
# 0.x: a minor release may break the API.
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/TandemConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/TandemConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/TandemConfigVersion.cmake
  DESTINATION ${TANDEM_INSTALL_CMAKEDIR})
