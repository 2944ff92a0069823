#include "collect/cupti/launch_selection.hpp"

#include <algorithm>

#include "collect/kernel_name.hpp"
#include "collect/nvtx_path.hpp"
#include "collect/trace/demangle.hpp"

namespace kprof::cupti {

std::string LaunchSelection::configure(const CounterOptions& o) {
  opt_ = o;
  nvtx_path_ = parse_nvtx_path(o.nvtx_range);
  if (!o.kernel_regex.empty()) {
    try {
      filter_ = std::make_unique<std::regex>(o.kernel_regex, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      select_nothing_ = true;
      return "KPROF_COUNTERS_KERNEL is not a valid regular expression (nothing profiled): " + std::string(e.what());
    }
  }
  return "";
}

bool LaunchSelection::select(const std::string& mangled, std::uint64_t invocation,
                             const std::vector<std::string>& nvtx, std::uint64_t profiled, std::string* limit_error) {
  if (select_nothing_) return false;
  if (!opt_.all_launches && invocation != 1) return false;
  // Like `ncu -k regex:`: the pattern is searched in the function's base name.
  if (filter_ && !std::regex_search(function_base_name(demangle(mangled)), *filter_)) return false;
  if (!nvtx_path_.empty() && !stack_has_path(nvtx_path_, nvtx)) return false;
  if (selected_++ < opt_.skip) return false;
  if (opt_.count > 0 && profiled >= opt_.count) return false;
  if (profiled >= opt_.max_kernels) {
    if (limit_error)
      *limit_error = "more selected launches than KPROF_COUNTERS_MAX (" + std::to_string(opt_.max_kernels) +
                     "); later ones not profiled";
    return false;
  }
  return true;
}

}  // namespace kprof::cupti
