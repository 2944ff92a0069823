#include "session/min_share.hpp"

#include <map>

namespace kprof::session {

bool min_share_applies(const RunSpec& spec) {
  return spec.counters_min_share_pct > 0 && spec.filters.kernel_regex.empty() && !spec.filters.all_launches;
}

ShareSplit split_by_min_share(const std::vector<Stage>& stages, double min_share_pct) {
  std::map<std::string, double> time;  // function → GPU time over all its groups
  double total = 0;
  for (const auto& st : stages)
    for (const auto& g : st.kernels) {
      double t = g.gpu_time_ns();
      time[g.kernel] += t;
      total += t;
    }
  ShareSplit split;
  if (total <= 0) return split;
  for (const auto& [fn, t] : time) (t / total * 100.0 < min_share_pct ? split.left_out : split.kept).push_back(fn);
  return split;
}

}  // namespace kprof::session
