// kprof compare: two artifacts side by side, every change judged against noise.
#include <iostream>

#include "analyze/compare.hpp"
#include "cli/commands/commands.hpp"
#include "render/comparison_markdown.hpp"
#include "session/analysis_context.hpp"
#include "session/artifact.hpp"
#include "util/errors.hpp"

namespace kprof::cli {

int cmd_compare(const CompareOptions& o) {
  auto ctx = session::AnalysisContext::load(o.common.data);
  ProfileRun base = session::load_artifact(o.baseline);
  ProfileRun cur = session::load_artifact(o.current);
  Comparison cmp = analyze::compare_runs(base, cur, ctx.thresholds);
  if (o.common.print.json) std::cout << json(cmp).dump(2) << "\n";
  else std::cout << render::render_comparison(cmp);
  return kExitOk;
}

}  // namespace kprof::cli
