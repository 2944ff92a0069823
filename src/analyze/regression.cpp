#include "analyze/regression.hpp"

#include <cctype>
#include <cstdlib>

#include "util/errors.hpp"

namespace kprof::analyze {

namespace {

constexpr char kDurationMetric[] = "Duration (us)";  // compare.cpp's row for the duration

RegressionRow check_row(const std::string& stage, const std::vector<ComparisonRow>& rows, double threshold_pct,
                        double alpha) {
  RegressionRow r;
  r.stage = stage;
  const ComparisonRow* d = nullptr;
  for (const auto& row : rows)
    if (row.metric == kDurationMetric) d = &row;
  if (!d || !d->previous || !d->current) {
    r.status = RegressionStatus::missing;
    if (d) {
      r.previous_us = d->previous;
      r.current_us = d->current;
    }
    return r;
  }
  r.previous_us = d->previous;
  r.current_us = d->current;
  r.change_pct = d->change_pct;
  r.p_value = d->p_value;
  if (!d->change_pct || *d->change_pct <= threshold_pct) r.status = RegressionStatus::ok;
  else if (!d->p_value) r.status = RegressionStatus::untested;
  else if (*d->p_value < alpha && d->verdict == "worse") r.status = RegressionStatus::regression;
  else r.status = RegressionStatus::noise;
  return r;
}

}  // namespace

RegressionCheck check_regressions(const Comparison& cmp, double threshold_pct, const Thresholds& t) {
  RegressionCheck c;
  c.baseline_label = cmp.baseline_label;
  c.current_label = cmp.current_label;
  c.threshold_pct = threshold_pct;
  c.alpha = t.param("compare.alpha");
  c.rows.push_back(check_row("(whole run)", cmp.summary, threshold_pct, c.alpha));
  for (const auto& s : cmp.stages) c.rows.push_back(check_row(s.stage, s.rows, threshold_pct, c.alpha));
  return c;
}

double parse_threshold_pct(const std::string& text) {
  std::string s;
  for (char ch : text)
    if (!std::isspace(static_cast<unsigned char>(ch))) s += ch;
  if (!s.empty() && s.back() == '%') s.pop_back();
  char* end = nullptr;
  double v = s.empty() ? -1 : std::strtod(s.c_str(), &end);
  if (s.empty() || !end || *end != '\0' || !(v >= 0))
    throw Error("--fail-on-regression '" + text + "': give a percentage such as 5% (a stage this much slower, and "
                "significantly so, fails the comparison)",
                kExitUsage);
  return v;
}

}  // namespace kprof::analyze
