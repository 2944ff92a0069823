// kprof compare: two artifacts side by side, every change judged against noise; with --fail-on-regression, a CI
// gate (exit 10) with JUnit and GitHub Actions outputs (docs/ci.md).
#include <iostream>

#include "analyze/compare.hpp"
#include "analyze/regression.hpp"
#include "cli/commands/commands.hpp"
#include "render/comparison_markdown.hpp"
#include "render/regression_report.hpp"
#include "session/analysis_context.hpp"
#include "session/artifact.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::cli {

int cmd_compare(const CompareOptions& o) {
  const bool gate = !o.fail_on_regression.empty();
  if (!gate && (!o.junit.empty() || o.github_annotations))
    throw Error("--junit and --github-annotations report the regression check: add --fail-on-regression=<pct>",
                kExitUsage);
  const double threshold = gate ? analyze::parse_threshold_pct(o.fail_on_regression) : 0.0;
  auto ctx = session::AnalysisContext::load(o.common.data);
  ProfileRun base = session::load_artifact(o.baseline);
  ProfileRun cur = session::load_artifact(o.current);
  Comparison cmp = analyze::compare_runs(base, cur, ctx.thresholds);
  if (!gate) {
    if (o.common.print.json) std::cout << json(cmp).dump(2) << "\n";
    else std::cout << render::render_comparison(cmp);
    return kExitOk;
  }
  RegressionCheck check = analyze::check_regressions(cmp, threshold, ctx.thresholds);
  if (!o.junit.empty()) write_file_atomic(o.junit, render::render_regression_junit(check));
  if (o.common.print.json) {
    std::cout << json{{"comparison", json(cmp)}, {"regression_check", json(check)}, {"failed", check.failed()}}.dump(2)
              << "\n";
  } else if (!o.common.print.quiet) {
    std::cout << render::render_comparison(cmp) << render::render_regression_markdown(check);
  }
  if (o.github_annotations) std::cout << render::render_github_annotations(check);
  return check.failed() ? kExitRegression : kExitOk;
}

}  // namespace kprof::cli
