// The roofline picture of a run (and, when comparing, of its baseline): roofs from the run's device spec, one point
// per kernel group with a placement (per memory level when hierarchical placements exist); the same kernel in the
// baseline and the current run forms one series, so versions are joined by a line.
#pragma once
#include "model/profile.hpp"
#include "render/roofline_svg.hpp"

namespace kprof::render {

// Empty `points` when no kernel could be placed (no FLOPs, or no device peaks).
RooflineChart roofline_chart_for(const ProfileRun& run, const ProfileRun* baseline = nullptr);

}  // namespace kprof::render
