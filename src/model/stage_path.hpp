// Which named stage a kernel launch belongs to, from its NVTX ranges: what stage grouping (collect), the analysis of
// a traced program's ranges (analyze) and the diagnosis scorer read alike.
#pragma once
#include <string>
#include <vector>

#include "model/profile.hpp"

namespace kprof {

// A launch's range path: its NVTX stack, outermost first, up to and including its innermost default-domain range
// (KernelLaunch::nvtx_range), so without the library domains' ranges inside it; {nvtx_range} when the stack does
// not hold it, empty outside any range. Stage names, stage membership and the scorer read ranges through it.
std::vector<std::string> range_path(const KernelLaunch& launch);

// Whether a launch's own NVTX ranges place it in the stage of this name ("fwd/attn" matches a launch whose stack ends
// in fwd, attn; "step/layer*" one ending in step, layer7). A launch PyTorch's autograd thread made, whose own stack
// is empty, matches no named stage.
bool launch_in_stage(const KernelLaunch& launch, const std::string& stage);

}  // namespace kprof
