// Annotation mode measures counters once per distinct kernel (ncu) and times every launch with the tracer.
// This joins the two: stages come from the tracer's launches, counters from the matching ncu launch.
#pragma once
#include <vector>

#include "model/profile.hpp"

namespace kprof {

// For every kernel group, finds the ncu launch with the same function and launch shape (else the same function)
// and derives the group's canonical metrics from it, with the profiled launch's own duration (rates never mix
// one launch's counters with another's time).
// The profiled ncu launch is appended to the group's launches and becomes its representative (its sections and
// rules feed the analysis); duration statistics stay those of the traced launches.
// Groups without a match keep duration-only metrics and are listed in the returned warnings (code counters, each
// naming its group).
std::vector<Warning> attach_counters(std::vector<Stage>& stages, const std::vector<KernelLaunch>& ncu_launches);

}  // namespace kprof
