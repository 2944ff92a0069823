// Which kernels the counter passes (CUPTI counters, ncu's metric list) profile after a tracer pass.
#include <cstring>

#include "collect/stage_grouping.hpp"
#include "collect/trace/trace_launches.hpp"
#include "collect/trace/trace_reader.hpp"
#include "collect/trace/tracer_env.hpp"
#include "session/collectors/collectors.hpp"
#include "session/min_share.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

std::string significant_kernels(const CollectorContext& ctx, std::vector<std::string>* left_out, bool anchored) {
  if (!min_share_applies(ctx.spec)) return "";
  fs::path trace_file = ctx.dir / tracer_env::kFileName;
  if (!fs::exists(trace_file)) return "";
  std::vector<Stage> stages;
  try {
    stages = group_into_stages(kernel_launches(read_trace(trace_file)));
  } catch (const std::exception&) {
    return "";  // assemble() reports the unreadable trace
  }
  const ShareSplit split = split_by_min_share(stages, ctx.spec.counters_min_share_pct);
  if (left_out) *left_out = split.left_out;
  if (left_out && left_out->empty()) return "";  // nothing to leave out: no filter at all
  std::string re;
  for (const auto& fn : split.kept) {
    std::string esc;
    for (char ch : fn) {
      if (std::strchr("\\^$.|?*+()[]{}", ch)) esc += '\\';
      esc += ch;
    }
    re += (re.empty() ? "" : "|") + esc;
  }
  if (re.empty()) return "";
  return anchored ? "^(" + re + ")$" : "(" + re + ")";
}

}  // namespace kprof::session
