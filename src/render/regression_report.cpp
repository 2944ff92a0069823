#include "render/regression_report.hpp"
#include "render/markdown_table.hpp"
#include "render/xml_text.hpp"

#include <fmt/format.h>

namespace kprof::render {

namespace {

std::string pct(const std::optional<double>& v) { return v ? fmt::format("{:+.1f}%", *v) : "—"; }
std::string us(const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : "—"; }
std::string pval(const std::optional<double>& v) { return v ? fmt::format("{:.3g}", *v) : "—"; }

std::string describe(const RegressionRow& r, const RegressionCheck& c) {
  std::string s = r.stage + ": " + us(r.previous_us) + " → " + us(r.current_us) + " us (" + pct(r.change_pct) + ")";
  if (r.status == RegressionStatus::regression)
    return s + fmt::format(", slower than the {:g}% threshold and significant (Mann-Whitney U p = {}, alpha {:g})",
                           c.threshold_pct, pval(r.p_value), c.alpha);
  if (r.status == RegressionStatus::untested)
    return s + fmt::format(", slower than the {:g}% threshold, but too few launches on a side for the rank test: "
                           "not counted as a regression",
                           c.threshold_pct);
  if (r.status == RegressionStatus::noise) return s + fmt::format(", not significant (p = {})", pval(r.p_value));
  return s;
}

std::string xml(const std::string& s) { return xml_text(s); }

// GitHub workflow commands: the message escapes %, CR, LF; a property value also ':' and ','.
std::string gh_message(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '%') out += "%25";
    else if (ch == '\r') out += "%0D";
    else if (ch == '\n') out += "%0A";
    else out += ch;
  }
  return out;
}
std::string gh_property(const std::string& s) {
  std::string out;
  for (char ch : gh_message(s)) {
    if (ch == ':') out += "%3A";
    else if (ch == ',') out += "%2C";
    else out += ch;
  }
  return out;
}

}  // namespace

std::string render_regression_markdown(const RegressionCheck& c) {
  std::string out = fmt::format("\n### Regression check (threshold {:g}%, alpha {:g})\n", c.threshold_pct, c.alpha);
  int regressions = 0, untested = 0;
  std::string rows;
  for (const auto& r : c.rows) {
    if (r.status == RegressionStatus::regression) ++regressions;
    if (r.status == RegressionStatus::untested) ++untested;
    if (r.status == RegressionStatus::ok || r.status == RegressionStatus::missing) continue;
    // The stage name is the program's: one line, no markup, "|" escaped. A line break in it printed a bare line on
    // stdout, where GitHub Actions reads workflow commands ("::error ...") beside --github-annotations' own.
    rows += "| " + md_text(r.stage) + " | " + us(r.previous_us) + " | " + us(r.current_us) + " | " + pct(r.change_pct) + " | " +
            pval(r.p_value) + " | " + std::string(regression_status_name(r.status)) + " |\n";
  }
  if (!rows.empty())
    out += "| Stage | Baseline (us) | Current (us) | Change | p | Status |\n|---|---|---|---|---|---|\n" + rows;
  out += regressions ? fmt::format("FAILED: {} stage(s) slower by more than {:g}% with a significant rank test.\n",
                                   regressions, c.threshold_pct)
                     : fmt::format("PASSED: no stage is significantly slower by more than {:g}%.\n", c.threshold_pct);
  if (untested)
    out += fmt::format("{} slowdown(s) over the threshold could not be tested (fewer launches than the rank test "
                       "needs); they do not fail the check.\n",
                       untested);
  return out;
}

std::string render_regression_junit(const RegressionCheck& c) {
  int failures = 0, skipped = 0;
  std::string cases;
  for (const auto& r : c.rows) {
    cases += "    <testcase classname=\"kprof.compare\" name=\"" + xml(r.stage) + "\"";
    if (r.status == RegressionStatus::regression) {
      ++failures;
      cases += ">\n      <failure type=\"regression\" message=\"" + xml(describe(r, c)) + "\"/>\n    </testcase>\n";
    } else if (r.status == RegressionStatus::untested || r.status == RegressionStatus::missing) {
      ++skipped;
      std::string why = r.status == RegressionStatus::missing ? r.stage + ": present in one run only" : describe(r, c);
      cases += ">\n      <skipped message=\"" + xml(why) + "\"/>\n    </testcase>\n";
    } else {
      cases += "/>\n";
    }
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n" +
         fmt::format("  <testsuite name=\"kprof compare: {} vs {}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                     xml(c.baseline_label), xml(c.current_label), c.rows.size(), failures, skipped) +
         cases + "  </testsuite>\n</testsuites>\n";
}

std::string render_github_annotations(const RegressionCheck& c) {
  std::string out;
  for (const auto& r : c.rows) {
    if (r.status == RegressionStatus::regression)
      out += "::error title=" + gh_property("kprof regression: " + r.stage) + "::" + gh_message(describe(r, c)) + "\n";
    else if (r.status == RegressionStatus::untested)
      out += "::warning title=" + gh_property("kprof slowdown (untested): " + r.stage) + "::" +
             gh_message(describe(r, c)) + "\n";
  }
  return out;
}

}  // namespace kprof::render
