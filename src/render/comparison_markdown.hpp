// `kprof compare A B`: whole-run and per-stage rows, previous vs current, with signed change and verdict.
#pragma once
#include <string>
#include "model/comparison.hpp"

namespace kprof::render {

std::string render_comparison(const Comparison& cmp);

}  // namespace kprof::render
