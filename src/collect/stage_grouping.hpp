// Launches → stages → kernel groups, the shape every renderer reads.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "model/profile.hpp"
#include "model/stage_path.hpp"

namespace kprof {

// A stage is the innermost NVTX range when any launch has one (launches without a range get a stage named after
// their kernel function), else one stage per kernel function. Nested ranges: three or more siblings under one parent
// numbered consecutively (layer0, layer1, ...; never at the top level) are one stage named with their parent
// ("step/layer*"), and a range name that several paths end in is qualified by as many enclosing ranges as tell them
// apart ("fwd/attn", "bwd/attn"). Names therefore depend on the ranges the capture holds. Stages and, within a stage, kernel groups keep the
// order of first appearance; a group is one (function, grid, block). The label is the function name, with a
// " [66x1x1]" grid suffix only when the same function appears with different shapes in that stage.
// duration_ns summarises the launches; `representative` is the launch with the median duration and `metrics`
// are derived from it (ncu::derive_canonical).
std::vector<Stage> group_into_stages(const std::vector<KernelLaunch>& launches);
// Same, moving the launches into the groups (no copy of their metric maps).
std::vector<Stage> group_into_stages(std::vector<KernelLaunch>&& launches);
// Same, for launches whose metrics are not all loaded yet: `complete(i, launch)` is called, before the group's
// metrics are derived, for each launch a group keeps (the first few and the representative), with i its index in
// `launches`. Durations must already be in KernelLaunch::duration_ns or the loaded metrics.
using CompleteLaunch = std::function<void(std::size_t index, KernelLaunch& launch)>;
std::vector<Stage> group_into_stages(std::vector<KernelLaunch>&& launches, const CompleteLaunch& complete);

// The labels of a stage's groups, from their function names, signatures and launch shapes alone (what
// group_into_stages gives them): a grid suffix where one function runs at several grids, the template arguments
// that tell instantiations apart, "#n" where even those are equal. load_artifact applies it again, so that an
// artifact read back is labelled as a run grouped today is, whatever kprof wrote it.
void label_groups(Stage& stage);

}  // namespace kprof
