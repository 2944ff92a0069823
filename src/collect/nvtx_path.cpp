#include "collect/nvtx_path.hpp"

#include <algorithm>

namespace kprof {

std::vector<std::string> parse_nvtx_path(std::string_view filter) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= filter.size()) {
    std::size_t slash = filter.find('/', start);
    if (slash == std::string_view::npos) slash = filter.size();
    if (slash > start) out.emplace_back(filter.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

bool nvtx_path_supported(std::string_view filter) {
  return filter.find('@') == std::string_view::npos && filter.find('[') == std::string_view::npos &&
         filter.find("regex:") == std::string_view::npos && filter.find('*') == std::string_view::npos;
}

bool stack_has_path(const std::vector<std::string>& path, const std::vector<std::string>& stack) {
  for (std::size_t i = 0; i + path.size() <= stack.size(); ++i)
    if (std::equal(path.begin(), path.end(), stack.begin() + static_cast<std::ptrdiff_t>(i))) return true;
  return false;
}

int stage_range_index(const std::vector<bool>& in_default_domain) {
  for (int i = static_cast<int>(in_default_domain.size()) - 1; i >= 0; --i)
    if (in_default_domain[i]) return i;
  return static_cast<int>(in_default_domain.size()) - 1;
}

}  // namespace kprof
