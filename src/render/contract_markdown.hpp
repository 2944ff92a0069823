// The output contract: the compact Markdown block agents read first (configuration, stages, bottleneck,
// top 3 opportunities, and "vs Baseline" when a comparison is given).
#pragma once
#include <string>
#include "model/comparison.hpp"
#include "model/profile.hpp"

namespace kprof::render {

std::string render_contract(const ProfileRun& run, const Comparison* vs_baseline);

}  // namespace kprof::render
