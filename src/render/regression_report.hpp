// The regression check of `kprof compare --fail-on-regression` in three forms: a Markdown section after the
// comparison, JUnit XML for CI test reports (--junit FILE), and GitHub Actions workflow commands
// (--github-annotations: ::error for a regression, ::warning for an untested slowdown).
#pragma once
#include <string>

#include "model/regression_check.hpp"

namespace kprof::render {

std::string render_regression_markdown(const RegressionCheck& check);
// One <testcase> per stage (and the whole run): a <failure> for a regression, <skipped> for an untested slowdown.
std::string render_regression_junit(const RegressionCheck& check);
// One workflow command per regression or untested slowdown; "" when there are none.
std::string render_github_annotations(const RegressionCheck& check);

}  // namespace kprof::render
