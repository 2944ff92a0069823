#include <gtest/gtest.h>

#include "shipped_thresholds.hpp"

#include "analyze/compare.hpp"
#include "analyze_probe_metrics.hpp"

using namespace kprof;
using namespace kprof::analyze;

namespace {

// One stage with the fma_loop (ID 6) metrics and `n` launches around `median_ns` (+-0.4% spread).
ProfileRun run_with(double median_ns, int n, std::string device = "NVIDIA H200") {
  ProfileRun r;
  r.kernel = "kernels";
  r.device.name = std::move(device);
  Stage s;
  s.name = "stage_fma";
  KernelGroup g;
  g.kernel = g.label = "fma_loop";
  g.metrics = probe::fma_loop_full();
  std::vector<double> d;
  for (int i = 0; i < n; ++i) {
    KernelLaunch l;
    l.id = i;
    l.duration_ns = median_ns * (1.0 + 0.001 * (i - n / 2));
    d.push_back(*l.duration_ns);
    g.launches.push_back(l);
  }
  g.duration_ns = SampleStats::of(d);
  g.metrics.duration_ns = g.duration_ns.median;
  s.kernels.push_back(g);
  r.stages.push_back(s);
  return r;
}

const ComparisonRow& row(const std::vector<ComparisonRow>& rows, const std::string& metric) {
  for (const auto& r : rows)
    if (r.metric == metric) return r;
  throw std::runtime_error("no row " + metric);
}
}  // namespace

TEST(Compare, IdenticalRunsAreTheSame) {
  auto a = run_with(1026528.0, 10);
  auto c = compare_runs(a, a, shipped());
  ASSERT_EQ(c.summary.size(), 5u);
  for (const auto& r : c.summary) EXPECT_EQ(r.verdict, "same") << r.metric;
  ASSERT_EQ(c.stages.size(), 1u);
  EXPECT_EQ(c.stages[0].stage, "stage_fma / fma_loop");
  const auto& d = row(c.stages[0].rows, "Duration (us)");
  EXPECT_EQ(d.verdict, "same");
  ASSERT_TRUE(d.p_value);
  EXPECT_DOUBLE_EQ(*d.p_value, 1.0);
  EXPECT_TRUE(c.notes.empty());
}

TEST(Compare, TwentyPercentSlowerWithTenSamplesIsWorse) {
  auto base = run_with(1026528.0, 10);
  auto slow = run_with(1026528.0 * 1.2, 10);
  auto c = compare_runs(base, slow, shipped());
  const auto& d = row(c.stages[0].rows, "Duration (us)");
  EXPECT_EQ(d.verdict, "worse");
  ASSERT_TRUE(d.p_value);
  EXPECT_LT(*d.p_value, 0.05);
  EXPECT_NEAR(*d.change_pct, 20.0, 0.01);
  EXPECT_TRUE(d.lower_is_better);
  // Same FLOPs in more time: achieved TFLOP/s drops by 1/1.2 → "worse" by the 2% threshold.
  const auto& tf = row(c.summary, "Achieved TFLOP/s");
  EXPECT_EQ(tf.verdict, "worse");
  EXPECT_NEAR(*tf.change_pct, (1 / 1.2 - 1) * 100, 0.01);
  EXPECT_EQ(row(compare_runs(slow, base, shipped()).summary, "Duration (us)").verdict, "better");
}

TEST(Compare, FewSamplesUseTheRelativeThreshold) {
  auto t = shipped();
  auto base = run_with(1000000.0, 3);
  EXPECT_EQ(row(compare_runs(base, run_with(1010000.0, 3), t).summary, "Duration (us)").verdict, "same");  // +1%
  auto r = row(compare_runs(base, run_with(1050000.0, 3), t).summary, "Duration (us)");  // +5%
  EXPECT_EQ(r.verdict, "worse");
  EXPECT_FALSE(r.p_value);
}

TEST(Compare, NotesDifferentDevicesParamsAndMissingKernels) {
  auto a = run_with(1e6, 5);
  auto b = run_with(1e6, 5, "NVIDIA H100 80GB HBM3");
  b.params.set("n", "1024");
  b.stages[0].kernels[0].label = "fma_loop [66x1x1]";
  auto c = compare_runs(a, b, shipped());
  ASSERT_EQ(c.stages.size(), 2u);
  EXPECT_EQ(row(c.stages[0].rows, "Duration (us)").verdict, "");
  std::string all;
  for (const auto& n : c.notes) all += n + "\n";
  EXPECT_NE(all.find("different devices"), std::string::npos) << all;
  EXPECT_NE(all.find("different params: default vs n1024"), std::string::npos) << all;
  EXPECT_NE(all.find("only in baseline: stage_fma / fma_loop"), std::string::npos) << all;
  EXPECT_NE(all.find("only in current: stage_fma / fma_loop [66x1x1]"), std::string::npos) << all;
}
