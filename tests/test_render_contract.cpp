#include <gtest/gtest.h>

#include <regex>

#include "render/contract_markdown.hpp"
#include "support/golden.hpp"
#include "support/sample_run.hpp"

using namespace kprof;
using namespace kprof::render;
using namespace kprof::testing;

namespace {
std::vector<std::string> headings(const std::string& md) {
  std::vector<std::string> out;
  std::istringstream in(md);
  for (std::string l; std::getline(in, l);)
    if (l.rfind("#", 0) == 0) out.push_back(l);
  return out;
}

std::string line_starting(const std::string& md, const std::string& prefix) {
  std::istringstream in(md);
  for (std::string l; std::getline(in, l);)
    if (l.rfind(prefix, 0) == 0) return l;
  return "";
}
}  // namespace

TEST(RenderContract, GoldenThreeStages) { expect_golden("contract_sample.md", render_contract(sample_run(), nullptr)); }

TEST(RenderContract, GoldenWithBaseline) {
  auto cmp = sample_comparison();
  expect_golden("contract_vs_baseline.md", render_contract(sample_run(), &cmp));
}

TEST(RenderContract, GoldenAnnotationSingleKernel) {
  expect_golden("contract_annotation.md", render_contract(sample_annotation_run(), nullptr));
}

TEST(RenderContract, HasExactlyTheSectionHeadingsInOrder) {
  auto run = sample_run();
  std::vector<std::string> want = {"## Profile: kernels v1", "### Configuration", "### Stages",
                                   "### Bottleneck: latency-bound",
                                   "### Top 3 Opportunities (ranked by estimated impact)"};
  EXPECT_EQ(headings(render_contract(run, nullptr)), want);
  auto cmp = sample_comparison();
  want.push_back("### vs Baseline");
  EXPECT_EQ(headings(render_contract(run, &cmp)), want);
}

TEST(RenderContract, MissingMetricRendersDashNeverZero) {
  auto run = sample_run();
  std::string md = render_contract(run, nullptr);
  // stage_concurrent has no tensor-pipe or DRAM figures; copy has a measured 0.0 TC%.
  EXPECT_EQ(line_starting(md, "| stage_concurrent"),
            "| stage_concurrent · fma_loop [66x1x1] | 1279.7 ×2 | — | — | 12.5 | latency | 66 blocks on 132 SMs |");
  EXPECT_EQ(line_starting(md, "| stage_copy"),
            "| stage_copy · copy_f4 | 536.7 | 0.0 | 82.4 | 97.5 | memory | DRAM at 82% of peak |");
  run.stages[0].kernels[0].metrics.achieved_occupancy_pct.reset();
  EXPECT_EQ(line_starting(render_contract(run, nullptr), "| stage_copy"),
            "| stage_copy · copy_f4 | 536.7 | 0.0 | 82.4 | — | memory | DRAM at 82% of peak |");
}

TEST(RenderContract, UnanalysedKernelShowsDashes) {
  auto run = sample_run();
  run.stages[1].kernels[0].analysis.reset();
  EXPECT_EQ(line_starting(render_contract(run, nullptr), "| stage_fma"),
            "| stage_fma · fma_loop | 1026.5 | 2.0 | 0.0 | 57.5 | — | — |");
}

TEST(RenderContract, EscapesPipesInNames) {
  auto run = sample_run();
  run.stages[0].name = "attn|fwd";
  run.stages[0].kernels[0].label = "reduce<float, op|max>";
  std::string md = render_contract(run, nullptr);
  std::string row = line_starting(md, "| attn");
  EXPECT_EQ(row.rfind("| attn\\|fwd · reduce\\<float, op\\|max> | 536.7 |", 0), 0u) << row;  // no HTML either
  // Every table row keeps 7 columns: 8 unescaped pipes.
  std::size_t pipes = 0;
  for (std::size_t i = 0; i < row.size(); ++i)
    if (row[i] == '|' && (i == 0 || row[i - 1] != '\\')) ++pipes;
  EXPECT_EQ(pipes, 8u);
  // The opportunity suffix names the kernel too: escaped as a name in prose (no HTML, no code span).
  EXPECT_NE(md.find("(reduce\\<float, op\\|max\\>)"), std::string::npos) << md;
}

TEST(RenderContract, EmptyParamsGetANoneRow) {
  auto run = sample_run();
  run.params = ProblemParams{};
  std::string md = render_contract(run, nullptr);
  // The seed's shape: one row of columns.
  EXPECT_NE(md.find("### Configuration\n| params | device | mode |\n|---|---|---|\n"
                    "| (none) | NVIDIA H200 (132 SMs, CC 9.0) | ncu |\n"),
            std::string::npos)
      << md;
}

TEST(RenderContract, ParamsInCanonicalOrderThenDtype) {
  auto run = sample_run();
  run.params = ProblemParams{};
  run.params.set("t", "4096");
  run.params.set("b", "32");
  run.params.dtype = "bf16";
  std::string md = render_contract(run, nullptr);
  EXPECT_NE(md.find("| b | t | dtype | device | mode |\n|---|---|---|---|---|\n| 32 | 4096 | bf16 | NVIDIA H200"),
            std::string::npos)
      << md;
}

// A run analysed before run shares existed (the sample) ranks by each kernel's own estimate.
TEST(RenderContract, TopOpportunitiesWithoutRunSharesRankByEstimate) {
  std::string md = render_contract(sample_run(), nullptr);
  EXPECT_NE(md.find("### Top 3 Opportunities (ranked by estimated impact)\n"
                    "Each gain is of that kernel's time (this run has no share of the whole).\n\n"
                    "1. Fill the GPU: launch at least 132 blocks (fma_loop [66x1x1]) — est. 50% gain — trigger: "
                    "waves_per_sm=0.06\n"
                    "2. Raise achieved occupancy (fma_loop) — est. 18% gain — trigger: achieved_occupancy=57.5%\n"
                    "3. Approach measured DRAM bandwidth (copy_f4) — est. 8% gain — trigger: dram_throughput=82.4%\n"),
            std::string::npos)
      << md;
}

TEST(RenderContract, SingleKernelOpportunitiesHaveNoSuffix) {
  std::string md = render_contract(sample_annotation_run(), nullptr);
  EXPECT_NE(md.find("1. Approach measured DRAM bandwidth — est. 4% gain — trigger: achieved_gbps=4133.6\n"),
            std::string::npos)
      << md;
}

TEST(RenderContract, OverallBottleneckFallsBackToDominantKernel) {
  auto run = sample_run();
  run.overall.reset();
  EXPECT_NE(render_contract(run, nullptr).find("### Bottleneck: latency-bound\n"), std::string::npos);
  for (auto& s : run.stages) s.kernels[0].analysis.reset();
  std::string md = render_contract(run, nullptr);
  EXPECT_NE(md.find("### Bottleneck: unknown\nRoot cause: not analysed.\n"), std::string::npos) << md;
  EXPECT_NE(md.find("### Top 3 Opportunities (ranked by estimated impact)\nNone identified.\n"), std::string::npos)
      << md;
}

TEST(RenderContract, RootCauseIsAtMostTwoSentences) {
  std::string md = render_contract(sample_run(), nullptr);
  EXPECT_EQ(md.find("Overlap on two streams"), std::string::npos);
  EXPECT_NE(md.find("Launch more blocks or give each launch more work.\n"), std::string::npos);
}

TEST(RenderContract, LongDurationsStayInMicroseconds) {
  auto run = sample_annotation_run();
  run.stages[0].kernels[0].duration_ns = SampleStats::of({12345678.9});
  EXPECT_NE(render_contract(run, nullptr).find("| copy_f4 | 12345.7 |"), std::string::npos);
}

TEST(RenderContract, BaselineChangeIsSignedWithAWord) {
  auto cmp = sample_comparison();
  std::string md = render_contract(sample_run(), &cmp);
  EXPECT_NE(md.find("| Duration (us) | 4259.1 | 4122.5 | -3.2% better |"), std::string::npos) << md;
  EXPECT_NE(md.find("| Achieved TFLOP/s | 11.4 | 11.8 | +3.3% better |"), std::string::npos) << md;
  EXPECT_NE(md.find("| Achieved GB/s | — | — | — |"), std::string::npos) << md;
}

// With run shares, the top 3 rank by what each saves of the whole run: the seed's line carries the run's figure
// (said once under the heading), the kernel's own share goes beside its name.
TEST(RenderContract, TopOpportunitiesRankByRunGain) {
  auto run = sample_run();
  for (auto& s : run.stages)
    for (auto& g : s.kernels)
      if (g.analysis)
        for (auto& o : g.analysis->opportunities) {
          o.run_share_pct = g.kernel == "copy_f4" ? 80.0 : 10.0;
          o.run_gain_pct = o.est_gain_pct * o.run_share_pct / 100.0;
        }
  std::string md = render_contract(run, nullptr);
  auto at = md.find("### Top 3 Opportunities (ranked by estimated impact)\nEach gain is of the whole run's time.\n\n"
                    "1. Approach measured DRAM bandwidth (copy_f4: 8% of its time) — est. 6% gain — trigger: ");
  EXPECT_NE(at, std::string::npos) << md;
}

// The contract keeps each kernel's own order: the figureless "move fewer bytes" lever of a kernel at the DRAM roof,
// first in its list, stays ahead of that kernel's small items (its run gain of 0 would put it behind them), and a
// larger item of another kernel still goes first.
TEST(RenderContract, TopOpportunitiesKeepEachKernelsOwnOrder) {
  auto run = sample_annotation_run();
  auto& g = run.stages.front().kernels.front();
  ASSERT_TRUE(g.analysis.has_value());
  auto item = [](std::string name, double est, double share, bool estimated) {
    Opportunity o;
    o.name = std::move(name);
    o.est_gain_pct = est;
    o.run_share_pct = share;
    o.run_gain_pct = est * share / 100.0;
    o.estimated = estimated;
    return o;
  };
  g.analysis->opportunities = {item("Move fewer DRAM bytes", 0, 60, false), item("Balance the SMs", 7, 60, true)};
  Opportunity fusion = item("Fuse the two stages", 40, 20, true);
  fusion.scope = "pipeline";
  fusion.kernels = {"a", "b"};
  run.program_opportunities = {fusion};
  std::string md = render_contract(run, nullptr);
  const auto fuse = md.find("1. Fuse the two stages"), lever = md.find("2. Move fewer DRAM bytes"),
             balance = md.find("3. Balance the SMs");
  EXPECT_NE(fuse, std::string::npos) << md;
  EXPECT_NE(lever, std::string::npos) << md;
  EXPECT_NE(balance, std::string::npos) << md;
}
