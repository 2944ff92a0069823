# Tests that the layer order is enforced, both ways it is (cmake/KprofLayers.cmake):
#   LayerIncludes.SourcesFollowTheOrder          cmake/check_layers.cmake passes on src/
#   LayerIncludes.CheckCatchesAnUpwardInclude    ... and fails on a fixture tree where render/ includes analyze/
#   LayerCompile.AllowedIncludeCompiles          a render file including model/ compiles with render's flags
#   LayerCompile.UpwardIncludeDoesNotCompile     one including analyze/ does not ("No such file")
set(_table ${PROJECT_BINARY_DIR}/layer-table.txt)
set(_rows "")
foreach(layer ${KPROF_LAYERS})
  string(REPLACE ";" " " _allowed "${KPROF_LAYER_${layer}}")
  string(APPEND _rows "${layer}: ${_allowed}\n")
endforeach()
file(WRITE ${_table} "${_rows}")
set(_check ${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake)
add_test(NAME LayerIncludes.SourcesFollowTheOrder
         COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR}/src -DTABLE=${_table} -P ${_check})
add_test(NAME LayerIncludes.CheckCatchesAnUpwardInclude
         COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_CURRENT_LIST_DIR}/fixture/src -DTABLE=${_table} -P ${_check})
set_tests_properties(LayerIncludes.CheckCatchesAnUpwardInclude PROPERTIES
  PASS_REGULAR_EXPRESSION "render/upward.hpp: render includes analyze/ .*1 include\\(s\\) against the layer order")

# The compile check uses render's include roots, exactly as kprof_render is compiled.
kprof_layer_roots(render _render_roots)
set(_flags -std=c++20 -fsyntax-only)
foreach(root ${_render_roots})
  list(APPEND _flags -I${root})
endforeach()
get_target_property(_json_dirs nlohmann_json::nlohmann_json INTERFACE_INCLUDE_DIRECTORIES)
foreach(dir ${_json_dirs})
  if(NOT dir STREQUAL "/usr/include")  # the compiler's own; -isystem there breaks #include_next
    list(APPEND _flags -isystem ${dir})
  endif()
endforeach()
add_test(NAME LayerCompile.AllowedIncludeCompiles
         COMMAND ${CMAKE_CXX_COMPILER} ${_flags} ${CMAKE_CURRENT_LIST_DIR}/render_includes_model.cpp)
add_test(NAME LayerCompile.UpwardIncludeDoesNotCompile
         COMMAND ${CMAKE_CXX_COMPILER} ${_flags} ${CMAKE_CURRENT_LIST_DIR}/render_includes_analyze.cpp)
set_tests_properties(LayerCompile.UpwardIncludeDoesNotCompile PROPERTIES
  # GCC: "analyze/timeline.hpp: No such file or directory"; clang (the sanitizer build): "'analyze/timeline.hpp' file not found"
  PASS_REGULAR_EXPRESSION "analyze/timeline.hpp: No such file or directory;'analyze/timeline.hpp' file not found")
# nlohmann/json.hpp only through model/json_support.hpp, which range-checks every integer read (a file that
# included it directly would get nlohmann's unchecked conversion, and two definitions of the same serializer).
add_test(NAME LayerIncludes.NlohmannOnlyThroughJsonSupport
         COMMAND sh -c "cd '${PROJECT_SOURCE_DIR}' && ! grep -rlE --include='*.[ch]pp' --include='*.h' --include='*.cc' --include='*.cu' --include='*.cuh' '#[[:space:]]*include[[:space:]]*[<\\\"]nlohmann/' src tests fuzz examples bench kernels python | grep -v '^src/model/json_support.hpp$'")
