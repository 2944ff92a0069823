#include "model/stage_path.hpp"

#include <algorithm>

namespace kprof {

std::vector<std::string> range_path(const KernelLaunch& l) {
  if (l.nvtx_range.empty()) return {};
  auto at = std::find(l.nvtx_stack.rbegin(), l.nvtx_stack.rend(), l.nvtx_range);
  return at == l.nvtx_stack.rend() ? std::vector<std::string>{l.nvtx_range}
                                   : std::vector<std::string>(l.nvtx_stack.begin(), at.base());
}

bool launch_in_stage(const KernelLaunch& l, const std::string& stage) {
  if (l.nvtx_range.empty()) return false;
  if (stage.find('/') == std::string::npos && stage.find('*') == std::string::npos) return l.nvtx_range == stage;
  std::vector<std::string> parts;
  for (std::size_t from = 0;;) {
    const std::size_t slash = stage.find('/', from);
    parts.push_back(stage.substr(from, slash - from));
    if (slash == std::string::npos) break;
    from = slash + 1;
  }
  const std::vector<std::string> path = range_path(l);
  if (parts.size() > path.size()) return false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& want = parts[parts.size() - 1 - i];
    const std::string& have = path[path.size() - 1 - i];
    if (want == have) continue;
    const bool rolled = !want.empty() && want.back() == '*' && have.size() > want.size() - 1 &&
                        have.compare(0, want.size() - 1, want, 0, want.size() - 1) == 0 &&
                        std::all_of(have.begin() + static_cast<std::ptrdiff_t>(want.size() - 1), have.end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
    if (!rolled) return false;
  }
  return true;
}

}  // namespace kprof
