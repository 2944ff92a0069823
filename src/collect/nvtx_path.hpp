// The NVTX push/pop path of `--nvtx-include a/b/` (ncu's syntax for push/pop ranges), read one way by the two
// places that apply it: the CUPTI counter selection inside the program (collect/cupti/launch_selection.cpp) and
// the traced launches kept for the report (session/assemble.cpp).
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

}  // namespace kprof
