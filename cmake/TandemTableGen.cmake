# tandem_tablegen(<target-name> <td-file> <backend> <output> [INCLUDES dirs...])
#
# Runs our generator (tandem-tblgen) on <td-file> with --gen-<backend> and
# writes <output>. The generator writes a depfile (-d) listing every included
# .td file, so editing any of them reruns exactly the generators that read it;
# --write-if-changed keeps the output's timestamp when its text is unchanged,
# so nothing downstream rebuilds needlessly.
function(tandem_tablegen out_var td_file backend output)
  cmake_parse_arguments(ARG "" "" "INCLUDES" ${ARGN})
  get_filename_component(td_abs "${td_file}" ABSOLUTE)
  get_filename_component(out_dir "${output}" DIRECTORY)
  set(include_flags -I "${PROJECT_SOURCE_DIR}/target/common")
  foreach(dir IN LISTS ARG_INCLUDES)
    list(APPEND include_flags -I "${dir}")
  endforeach()
  add_custom_command(
    OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${out_dir}"
    COMMAND tandem-tblgen --gen-${backend} ${include_flags} "${td_abs}"
            -o "${output}" -d "${output}.d" --write-if-changed
    DEPENDS tandem-tblgen "${td_abs}"
    DEPFILE "${output}.d"
    COMMENT "tandem-tblgen --gen-${backend} ${td_file}"
    VERBATIM)
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()
