// kprof compare --fail-on-regression: the rule (threshold AND significant rank test), its three outputs, and the
// command line's exit code on a real H200 event artifact against a copy of it made slower.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analyze/compare.hpp"
#include "analyze/regression.hpp"
#include "analyze/thresholds.hpp"
#include "render/comparison_markdown.hpp"
#include "render/regression_report.hpp"
#include "session/artifact.hpp"
#include "support/shell.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

using namespace kprof;
namespace fs = std::filesystem;

namespace {

ComparisonRow duration_row(double prev, double cur, std::optional<double> p, const std::string& verdict) {
  ComparisonRow r;
  r.metric = "Duration (us)";
  r.previous = prev;
  r.current = cur;
  r.change_pct = (cur - prev) / prev * 100;
  r.lower_is_better = true;
  r.p_value = p;
  r.verdict = verdict;
  return r;
}

Comparison comparison_with(std::vector<StageComparison> stages) {
  Comparison c;
  c.baseline_label = "k v1";
  c.current_label = "k v2";
  c.summary = {duration_row(100, 101, 0.5, "same")};
  c.stages = std::move(stages);
  return c;
}

const std::string kExamples = std::string(KPROF_SOURCE_DIR) + "/examples/h200/profiles/";

// The artifact's run with every launch `factor` times as long, written as <dir>/profile.json.
fs::path slowed_copy(const std::string& artifact, double factor, const std::string& name) {
  ProfileRun run = session::load_artifact(kExamples + artifact);
  for (auto& s : run.stages)
    for (auto& g : s.kernels) {
      for (auto& ns : g.samples_ns) ns *= factor;
      for (auto& l : g.launches)
        if (l.duration_ns) *l.duration_ns *= factor;
      if (!g.samples_ns.empty()) g.duration_ns = SampleStats::of(g.samples_ns);
      else g.duration_ns.median *= factor;
    }
  fs::path dir = test::scratch_dir("compare_gate") / name;
  fs::remove_all(dir);
  write_file_atomic(dir / "profile.json", json(run).dump());
  write_file_atomic(dir / "report.md", "# slowed copy for the regression gate test\n");  // a complete artifact
  return dir;
}

test::ShellResult kprof_cli(const std::string& args) {
  return test::run_shell(std::string(KPROF_BINARY) + " " + args, test::scratch_dir("compare_gate"));
}

}  // namespace

TEST(RegressionCheck, SlowerBeyondThresholdAndSignificantFails) {
  auto c = comparison_with({{"gemm", {duration_row(100, 110, 0.001, "worse")}}});
  auto check = analyze::check_regressions(c, 5, analyze::Thresholds::load());
  ASSERT_EQ(check.rows.size(), 2u);
  EXPECT_EQ(check.rows[0].stage, "(whole run)");
  EXPECT_EQ(regression_status_name(check.rows[0].status), "ok");
  EXPECT_EQ(regression_status_name(check.rows[1].status), "regression");
  EXPECT_TRUE(check.failed());
}

TEST(RegressionCheck, EachConditionAloneDoesNotFail) {
  auto t = analyze::Thresholds::load();
  // Significant but under the threshold.
  EXPECT_FALSE(analyze::check_regressions(comparison_with({{"a", {duration_row(100, 104, 0.001, "worse")}}}), 5, t)
                   .failed());
  // Over the threshold but not significant.
  auto noise = analyze::check_regressions(comparison_with({{"a", {duration_row(100, 120, 0.3, "same")}}}), 5, t);
  EXPECT_FALSE(noise.failed());
  EXPECT_EQ(regression_status_name(noise.rows[1].status), "noise");
  // Over the threshold, no rank test (too few launches): reported as untested, not failed.
  auto untested =
      analyze::check_regressions(comparison_with({{"a", {duration_row(100, 120, std::nullopt, "worse")}}}), 5, t);
  EXPECT_FALSE(untested.failed());
  EXPECT_EQ(regression_status_name(untested.rows[1].status), "untested");
  // Faster, significantly.
  EXPECT_EQ(regression_status_name(
                analyze::check_regressions(comparison_with({{"a", {duration_row(100, 80, 0.001, "better")}}}), 5, t)
                    .rows[1]
                    .status),
            "ok");
}

TEST(RegressionCheck, ThresholdParsing) {
  EXPECT_DOUBLE_EQ(analyze::parse_threshold_pct("5%"), 5);
  EXPECT_DOUBLE_EQ(analyze::parse_threshold_pct("2.5 %"), 2.5);
  EXPECT_DOUBLE_EQ(analyze::parse_threshold_pct("0"), 0);
  for (const char* bad : {"", "%", "five", "-1%", "5%%", "nan"}) {
    try {
      analyze::parse_threshold_pct(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), kExitUsage);
    }
  }
}

TEST(RegressionReport, JunitHasAFailurePerRegressionAndEscapes) {
  auto c = comparison_with({{"gemm<float, \"a&b\">", {duration_row(100, 110, 0.001, "worse")}},
                            {"copy", {duration_row(100, 130, std::nullopt, "worse")}}});
  auto xml = render::render_regression_junit(analyze::check_regressions(c, 5, analyze::Thresholds::load()));
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\" skipped=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"gemm&lt;float, &quot;a&amp;b&quot;&gt;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure type=\"regression\""), std::string::npos);
  EXPECT_EQ(xml.find("a&b"), std::string::npos) << "unescaped ampersand";
}

TEST(RegressionReport, GithubAnnotationsEscapeWorkflowCommands) {
  auto c = comparison_with({{"a:b,c%", {duration_row(100, 110, 0.001, "worse")}},
                            {"copy", {duration_row(100, 130, std::nullopt, "worse")}}});
  auto gh = render::render_github_annotations(analyze::check_regressions(c, 5, analyze::Thresholds::load()));
  EXPECT_EQ(gh.rfind("::error title=kprof regression%3A a%3Ab%2Cc%25::a:b,c%25: 100.000 → 110.000 us (+10.0%25)", 0),
            0u)
      << gh;
  EXPECT_NE(gh.find("\n::warning title=kprof slowdown (untested)%3A copy::"), std::string::npos) << gh;
}

// Issue 24: what `kprof compare --fail-on-regression --github-annotations` prints on stdout (the Markdown, then the
// annotations), where GitHub Actions reads every line: a stage name with a line break started a bare "::error" (or
// a "#" heading) of its own in the Markdown.
TEST(RegressionReport, ANameWithALineBreakStartsNoLineOfItsOwn) {
  const std::string evil = "k\n::error file=x,line=1::pwned\r\n# heading <b>x</b>";
  auto c = comparison_with({{evil, {duration_row(100, 110, 0.001, "worse")}},
                            {"copy", {duration_row(100, 130, std::nullopt, "worse")}}});
  auto check = analyze::check_regressions(c, 5, analyze::Thresholds::load());
  const std::string stdout_text = render::render_comparison(c) + render::render_regression_markdown(check) +
                                  render::render_github_annotations(check);
  std::size_t commands = 0;
  for (std::size_t at = 0; at < stdout_text.size();) {
    std::size_t end = stdout_text.find('\n', at);
    if (end == std::string::npos) end = stdout_text.size();
    const std::string line = stdout_text.substr(at, end - at);
    at = end + 1;
    EXPECT_EQ(line.find('\r'), std::string::npos) << line;
    EXPECT_NE(line.rfind("# heading", 0), 0u) << line;
    if (line.rfind("::", 0) != 0) EXPECT_EQ(line.find("<b>"), std::string::npos) << "HTML in Markdown: " << line;
    if (line.rfind("::", 0) == 0) {
      ++commands;
      EXPECT_TRUE(line.rfind("::error title=kprof regression", 0) == 0 ||
                  line.rfind("::warning title=kprof slowdown", 0) == 0)
          << line;
    }
  }
  EXPECT_EQ(commands, 2u) << stdout_text;
  EXPECT_NE(stdout_text.find("k%0A::error file=x,line=1::pwned%0D%0A# heading"), std::string::npos) << stdout_text;
}

TEST(CompareGate, SignificantlySlowerArtifactExitsTen) {
  auto slow = slowed_copy("event_elementwise_1", 1.2, "slow");
  auto junit = test::scratch_dir("compare_gate") / "junit.xml";
  fs::remove(junit);
  auto r = kprof_cli("compare " + kExamples + "event_elementwise_1 " + slow.string() +
                     " --fail-on-regression=5% --junit " + junit.string() + " --github-annotations");
  EXPECT_EQ(r.code, 10) << r.out << r.err;
  EXPECT_NE(r.out.find("FAILED:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("::error title=kprof regression"), std::string::npos) << r.out;
  ASSERT_TRUE(fs::exists(junit));
  EXPECT_NE(read_file(junit).find("<failure type=\"regression\""), std::string::npos);
}

TEST(CompareGate, SameOrSlightlySlowerArtifactPasses) {
  auto same = kprof_cli("compare " + kExamples + "event_elementwise_1 " + kExamples +
                        "event_elementwise_1 --fail-on-regression=5%");
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("PASSED:"), std::string::npos) << same.out;
  auto slight = slowed_copy("event_elementwise_1", 1.03, "slight");
  auto r = kprof_cli("compare " + kExamples + "event_elementwise_1 " + slight.string() + " --fail-on-regression=5%");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  // The same 3% fails a 1% gate: the shift is significant over hundreds of launches.
  EXPECT_EQ(kprof_cli("compare " + kExamples + "event_elementwise_1 " + slight.string() + " --fail-on-regression=1%")
                .code,
            10);
}

TEST(CompareGate, ReportOptionsNeedTheGateAndAValidThreshold) {
  auto a = kExamples + "event_elementwise_1 ";
  EXPECT_EQ(kprof_cli("compare " + a + a + "--junit x.xml").code, 2);
  EXPECT_EQ(kprof_cli("compare " + a + a + "--fail-on-regression=fast").code, 2);
}
