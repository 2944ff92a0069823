// ncu mode's per-kernel annotated source: the hottest CUDA lines with the SASS under them, and a SASS CSV.
#pragma once
#include <cstddef>
#include <string>

#include "model/source_view.hpp"

namespace kprof::render {

// Markdown: the `top` CUDA lines by warp-stall samples (share of the kernel's samples), each followed by its
// SASS instructions with their samples and executed-instruction counts, hottest first. SASS-only views list the
// hottest instructions instead.
std::string render_annotated_source(const SourceKernel& kernel, std::size_t top = 15);

// CSV of every SASS instruction with every counter column: file,line,address,sass,<columns...>.
std::string render_sass_csv(const SourceKernel& kernel);

}  // namespace kprof::render
