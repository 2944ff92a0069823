#include <gtest/gtest.h>

#include "shipped_thresholds.hpp"

#include "analyze/compare.hpp"
#include "analyze_probe_metrics.hpp"
#include "session/artifact.hpp"

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
  ASSERT_EQ(c.summary.size(), 6u);
  // Figures with a good direction are "same"; occupancy, bandwidth and TC utilisation carry no verdict of their own.
  for (const auto& r : c.summary) EXPECT_TRUE(r.verdict == "same" || r.verdict == "info") << r.metric << " " << r.verdict;
  EXPECT_EQ(row(c.summary, "Achieved occupancy (%)").verdict, "info");
  ASSERT_EQ(c.stages.size(), 1u);
  EXPECT_EQ(c.stages[0].stage, "stage_fma");  // one kernel per stage on both sides: matched by the stage
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
  // Same FLOPs in more time: achieved TFLOP/s drops by 1/1.2 and follows the duration's verdict.
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

TEST(Compare, NotesDifferentDevicesParamsModesAndMissingKernels) {
  auto a = run_with(1e6, 5);
  auto b = run_with(1e6, 5, "NVIDIA H100 80GB HBM3");
  b.params.set("n", "1024");
  b.mode = Mode::Event;
  // A second kernel in the stage: kernels are then matched by label, and a renamed one is missing on each side.
  auto extra = a.stages[0].kernels[0];
  extra.kernel = extra.label = "other";
  a.stages[0].kernels.push_back(extra);
  b.stages[0].kernels.push_back(extra);
  b.stages[0].kernels[0].label = "fma_loop [66x1x1]";
  auto c = compare_runs(a, b, shipped());
  ASSERT_EQ(c.stages.size(), 3u);
  EXPECT_EQ(row(c.stages[0].rows, "Duration (us)").verdict, "");
  std::string all;
  for (const auto& n : c.notes) all += n + "\n";
  EXPECT_NE(all.find("different devices"), std::string::npos) << all;
  EXPECT_NE(all.find("different params: default vs n1024"), std::string::npos) << all;
  EXPECT_NE(all.find("different modes"), std::string::npos) << all;
  EXPECT_NE(all.find("only in baseline: stage_fma / fma_loop"), std::string::npos) << all;
  EXPECT_NE(all.find("only in current: stage_fma / fma_loop [66x1x1]"), std::string::npos) << all;
}

TEST(Compare, ARenamedKernelInAPlanStageIsMatchedByTheStage) {
  auto a = run_with(1e6, 10);
  auto b = run_with(0.8e6, 10);
  b.stages[0].kernels[0].kernel = b.stages[0].kernels[0].label = "fma_loop_v2";
  auto c = compare_runs(a, b, shipped());
  ASSERT_EQ(c.stages.size(), 1u);
  EXPECT_EQ(row(c.stages[0].rows, "Duration (us)").verdict, "better");
  std::string all;
  for (const auto& n : c.notes) all += n + "\n";
  EXPECT_NE(all.find("kernel changed from fma_loop to fma_loop_v2"), std::string::npos) << all;
}

TEST(Compare, RunRowComparesPerLaunchWhenLaunchCountsDiffer) {
  // Same per-launch time, twice the launches: not "worse", and the run row agrees with the stage row.
  auto a = run_with(1e6, 5);
  auto b = run_with(1e6, 10);
  auto c = compare_runs(a, b, shipped());
  EXPECT_EQ(row(c.summary, "Duration (us)").verdict, "same");
  EXPECT_EQ(row(c.stages[0].rows, "Duration (us)").verdict, "same");
}

TEST(Compare, MoreBandwidthOnASlowerKernelIsNotBetter) {
  auto a = run_with(1e6, 10);
  auto b = run_with(1.2e6, 10);
  b.stages[0].kernels[0].metrics.dram_bytes = 5000.0 * 2;  // twice the bytes in 1.2x the time: more GB/s
  auto c = compare_runs(a, b, shipped());
  EXPECT_EQ(row(c.summary, "Duration (us)").verdict, "worse");
  EXPECT_EQ(row(c.summary, "DRAM bytes").verdict, "worse");
  EXPECT_EQ(row(c.summary, "DRAM GB/s").verdict, "info");
  EXPECT_GT(*row(c.summary, "DRAM GB/s").change_pct, 0);
}

// Issue 25: an event-mode artifact (no FLOP counters) compared with itself showed "different FLOPs: not comparable";
// the work its plan declared for the stage is the FLOP count, as in the devlog.
TEST(Compare, DeclaredWorkOfTheStageGivesTheRateWithoutFlopCounters) {
  auto a = run_with(1026528.0, 10);
  auto& g = a.stages[0].kernels[0];
  g.metrics.flops_fp32.reset();
  g.metrics.flops_fp16.reset();
  g.metrics.flops_fp64.reset();
  g.metrics.flops_tensor.reset();
  ASSERT_FALSE(g.metrics.total_flops());
  a.stages[0].declared.flops = 2e12;
  auto c = compare_runs(a, a, shipped());
  const auto& tf = row(c.summary, "Achieved TFLOP/s");
  EXPECT_EQ(tf.verdict, "same");
  ASSERT_TRUE(tf.previous);
  EXPECT_NEAR(*tf.previous, 2e12 / 1026528.0e-9 / 1e12, 2.0);  // the median launch is within 0.1% of 1026.5 us
}

// Issue 25: two event runs of one program (examples/h200/profiles/event_elementwise_{1,2}, captured on the H200 with
// the current grouping) match stage for stage: nothing is only in one of them.
TEST(Compare, TwoRunsOfOneProgramMatchEveryStage) {
  const std::string ex = std::string(KPROF_SOURCE_DIR) + "/examples/h200/profiles/";
  auto a = kprof::session::load_artifact(ex + "event_elementwise_1");
  auto b = kprof::session::load_artifact(ex + "event_elementwise_2");
  auto c = compare_runs(a, b, shipped());
  EXPECT_GE(c.stages.size(), 10u);
  for (const auto& n : c.notes) EXPECT_EQ(n.find("only in"), std::string::npos) << n;
}
