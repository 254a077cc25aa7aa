# tandem_verilate(<name> TOP <module> SOURCES <sv files...> [ARGS <verilator args...>])
#
# Verilates at build time (not configure time: our SystemVerilog sources
# include files tandem-tblgen generates during the build) into a static
# library target <name>, which links the model and Verilator's runtime and
# exports the include path for V<top>.h.
#
# Verilator's own CMake helper (verilate()) runs Verilator while CMake
# configures, which fails on a fresh build where the generated package does
# not exist yet; hence this wrapper around `verilator --cc --build`.
find_program(VERILATOR_EXECUTABLE verilator REQUIRED)
set(TANDEM_VERILATOR_ROOT /usr/share/verilator)
find_package(Threads REQUIRED)

# Verilator's runtime, compiled once for every model. (`verilator --build`
# without --exe builds only the model archive.)
if(NOT TARGET tandem_verilator_runtime)
  find_package(ZLIB REQUIRED)
  set(_tandem_fstapi_sources
    ${TANDEM_VERILATOR_ROOT}/include/gtkwave/fstapi.c
    ${TANDEM_VERILATOR_ROOT}/include/gtkwave/fastlz.c
    ${TANDEM_VERILATOR_ROOT}/include/gtkwave/lz4.c)
  # Third-party C: its own configuration header, none of our warnings.
  set_source_files_properties(${_tandem_fstapi_sources} PROPERTIES
    COMPILE_DEFINITIONS "FST_CONFIG_INCLUDE=\"fst_config.h\""
    COMPILE_OPTIONS "-w")
  add_library(tandem_verilator_runtime STATIC
    ${TANDEM_VERILATOR_ROOT}/include/verilated.cpp
    ${TANDEM_VERILATOR_ROOT}/include/verilated_threads.cpp
    # Models Verilated with --trace (the core's, for --vcd) need the VCD
    # writer; it is inert for models without tracing.
    ${TANDEM_VERILATOR_ROOT}/include/verilated_vcd_c.cpp
    # GTKWave's FST writer and reader, which Verilator ships: `--fst`
    # rewrites the core's VCD as FST through it (sim/rtl/harness/VcdToFst.h).
    ${_tandem_fstapi_sources})
  target_include_directories(tandem_verilator_runtime SYSTEM PUBLIC
    ${TANDEM_VERILATOR_ROOT}/include ${TANDEM_VERILATOR_ROOT}/include/vltstd
    ${TANDEM_VERILATOR_ROOT}/include/gtkwave)
  target_link_libraries(tandem_verilator_runtime PUBLIC Threads::Threads ZLIB::ZLIB)
endif()

function(tandem_verilate name)
  cmake_parse_arguments(ARG "" "TOP" "SOURCES;ARGS;DEPENDS" ${ARGN})
  set(mdir ${CMAKE_CURRENT_BINARY_DIR}/${name}.verilated)
  set(prefix V${ARG_TOP})
  set(model_lib ${mdir}/${prefix}__ALL.a)
  add_custom_command(
    OUTPUT ${model_lib}
    COMMAND ${VERILATOR_EXECUTABLE} --cc --build -j 2 --Mdir ${mdir}
            --top-module ${ARG_TOP} --prefix ${prefix} -O3
            -CFLAGS -fPIC ${ARG_ARGS} ${ARG_SOURCES}
    DEPENDS ${ARG_SOURCES} ${ARG_DEPENDS}
    COMMENT "Verilating ${ARG_TOP}"
    VERBATIM)
  add_custom_target(${name}_verilate DEPENDS ${model_lib})
  add_library(${name} INTERFACE)
  add_dependencies(${name} ${name}_verilate)
  target_include_directories(${name} SYSTEM INTERFACE ${mdir})
  target_link_libraries(${name} INTERFACE ${model_lib} tandem_verilator_runtime)
endfunction()
