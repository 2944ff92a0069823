// The NVTX push/pop path of `--nvtx-include a/b/` (ncu's syntax for push/pop ranges), read one way by the two
// places that apply it: the CUPTI counter selection inside the program (collect/cupti/launch_selection.cpp) and
// the traced launches kept for the report (session/assemble.cpp). And the one rule for which range of a launch's
// stack names its stage, applied by every source (trace, CUPTI counters, Nsight Compute's NVTX columns).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

// "a/b/" → {"a", "b"} (outermost first; empty parts dropped).
std::vector<std::string> parse_nvtx_path(std::string_view filter);
// Whether kprof reads this form: not a domain ("D@..."), a start/end range ("[..."), "regex:" or a wildcard.
bool nvtx_path_supported(std::string_view filter);
// Range b pushed directly inside a, anywhere on the stack: `path` as an adjacent run of `stack` (outermost first).
bool stack_has_path(const std::vector<std::string>& path, const std::vector<std::string>& stack);

// The range a launch's stage is named after, as an index into its stack (outermost first; -1 when empty): the
// innermost range of the default NVTX domain (nvtxRangePush, torch.cuda.nvtx.range, kprof's plans), so that a
// library's own range inside it (CUB's "cub::DeviceScan::InclusiveScan", domain "CCCL", seen under torch.cumsum on
// the H200) does not take the user's stage away; the innermost range when none is in the default domain.
// `in_default_domain[i]` says it for stack entry i.
int stage_range_index(const std::vector<bool>& in_default_domain);

}  // namespace kprof
