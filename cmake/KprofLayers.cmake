# The layers of src/ as separate static libraries, linked in the allowed direction only:
#
#   util ← model ← (collect, plan) ← analyze ← session ← (api ← capi, cli)
#                ↖ render (reads the model only) ↙
#
# KPROF_LAYER_<name> lists the layers <name> may use, itself first. Each library is compiled with the include
# roots of exactly those layers: build/layer-include/<layer>/ holds one link, <layer> → src/<layer>, so
# `#include "analyze/timeline.hpp"` from render/ finds no such file and the build fails. An upward #include in a
# header no .cpp of its layer compiles is caught by cmake/check_layers.cmake, run as a test with the same table
# (tests/layering/ checks that both checks fail when they should).
set(KPROF_LAYERS util model plan collect analyze render session api capi cli)
set(KPROF_LAYER_util    util)
set(KPROF_LAYER_model   model util)
set(KPROF_LAYER_plan    plan model util)
set(KPROF_LAYER_collect collect model util)
set(KPROF_LAYER_analyze analyze collect plan model util)
set(KPROF_LAYER_render  render model util)
set(KPROF_LAYER_session session render analyze collect plan model util)
set(KPROF_LAYER_api     api session render analyze collect plan model util)
set(KPROF_LAYER_capi    capi api session render analyze collect plan model util)
set(KPROF_LAYER_cli     cli session render analyze collect plan model util)

set(KPROF_LAYER_INCLUDE ${PROJECT_BINARY_DIR}/layer-include)
foreach(layer ${KPROF_LAYERS})
  file(MAKE_DIRECTORY ${KPROF_LAYER_INCLUDE}/${layer})
  if(NOT EXISTS ${KPROF_LAYER_INCLUDE}/${layer}/${layer})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${layer} ${KPROF_LAYER_INCLUDE}/${layer}/${layer} SYMBOLIC)
  endif()
endforeach()

# The include roots a layer is compiled with, as a list of directories.
function(kprof_layer_roots layer out)
  set(roots)
  foreach(l ${KPROF_LAYER_${layer}})
    list(APPEND roots ${KPROF_LAYER_INCLUDE}/${l})
  endforeach()
  set(${out} ${roots} PARENT_SCOPE)
endfunction()

# kprof_layer_library(<layer> SOURCES <files...> [DEPENDS <layer libraries...>]): kprof_<layer>, with the include
# roots of its allowed layers only, linked PUBLIC to the layers it uses directly.
function(kprof_layer_library layer)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  foreach(dep ${ARG_DEPENDS})
    string(REGEX REPLACE "^kprof_" "" dep_layer ${dep})
    if(NOT dep_layer IN_LIST KPROF_LAYER_${layer})
      message(FATAL_ERROR "kprof_${layer} may not link ${dep}: ${layer} uses ${KPROF_LAYER_${layer}} only")
    endif()
  endforeach()
  add_library(kprof_${layer} STATIC ${ARG_SOURCES})
  # Position-independent: the layers are also linked into libkprof_c.so, the C API the Python package loads.
  set_target_properties(kprof_${layer} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  kprof_layer_roots(${layer} roots)
  foreach(root ${roots})
    target_include_directories(kprof_${layer} PUBLIC $<BUILD_INTERFACE:${root}>)
  endforeach()
  # Installed, every layer's headers are under include/kprof/<layer>/ (cmake/KprofInstall.cmake).
  target_include_directories(kprof_${layer} PUBLIC $<INSTALL_INTERFACE:include/kprof>)
  # fmt's headers only: its compiled part is built once into kprof_util (src/util/fmt_impl.cpp), neither in every
  # file (fmt::fmt-header-only) nor from libfmt.so, which a GPU box without Debian's libraries lacks.
  target_link_libraries(kprof_${layer} PUBLIC ${ARG_DEPENDS} nlohmann_json::nlohmann_json)
  # (No installed header includes fmt: the installed package needs no fmt.)
  target_include_directories(kprof_${layer} SYSTEM PUBLIC
                             $<BUILD_INTERFACE:$<TARGET_PROPERTY:fmt::fmt,INTERFACE_INCLUDE_DIRECTORIES>>)
endfunction()
