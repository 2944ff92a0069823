#include <gtest/gtest.h>

#include "shipped_thresholds.hpp"

#include "analyze/analyze_run.hpp"
#include "analyze_probe_metrics.hpp"
#include "util/fs.hpp"

#include "datasheet_devices.hpp"

using namespace kprof;
using namespace kprof::analyze;

namespace {
DeviceDb db() { return datasheet_db(); }

KernelGroup group(std::string name, CanonicalMetrics m, std::vector<double> durations) {
  KernelGroup g;
  g.kernel = g.label = std::move(name);
  for (std::size_t i = 0; i < durations.size(); ++i) {
    KernelLaunch l;
    l.id = static_cast<int>(i);
    l.duration_ns = durations[i];
    g.launches.push_back(l);
  }
  g.duration_ns = SampleStats::of(durations);
  g.representative = 0;
  g.metrics = std::move(m);
  return g;
}

// The probe's stages: copy (ID 5), fma (ID 6) and the concurrent under-filled fma launches (IDs 10, 11).
ProfileRun probe_run(std::string device) {
  ProfileRun r;
  r.device.name = std::move(device);
  r.device.compute_capability = "9.0";
  r.device.sm_count = 132;
  Stage copy{"stage_copy", {group("copy_f4", probe::copy_f4(), {536672.0})}, {}};
  Stage fma{"stage_fma", {group("fma_loop", probe::fma_loop_full(), {1026528.0})}, {}};
  Stage conc{"stage_concurrent", {group("fma_loop", probe::fma_loop_small(), {1279840.0, 1279488.0})}, {}};
  conc.kernels[0].launches[0].rules.push_back(
      RuleResult{"LaunchStats", "LaunchConfiguration", "OPT", "Only 66 blocks.", "global", 50.0});
  r.stages = {copy, fma, conc};
  return r;
}
}  // namespace

TEST(AnalyzeRun, FillsEveryGroupAndTheOverallBottleneck) {
  auto run = probe_run("NVIDIA H200");
  analyze_run(run, db(), shipped());
  ASSERT_TRUE(run.device_spec);
  EXPECT_EQ(run.device_spec->id, "h200-sxm");
  EXPECT_EQ(run.device.matched_spec, "h200-sxm");
  EXPECT_TRUE(run.warnings.empty());

  const auto& copy = *run.stages[0].kernels[0].analysis;
  EXPECT_EQ(copy.verdicts.size(), 6u);
  EXPECT_EQ(copy.bottleneck.kind, BottleneckKind::memory);
  EXPECT_FALSE(copy.roofline);  // a copy has no FLOPs and none were declared
  ASSERT_FALSE(copy.notes.empty());
  EXPECT_EQ(copy.notes[0], "FLOPs unavailable: roofline skipped");

  const auto& fma = *run.stages[1].kernels[0].analysis;
  EXPECT_EQ(fma.bottleneck.kind, BottleneckKind::compute);
  // The heading's unit follows the leading cause: this kernel issues on most cycles with no pipe saturated.
  EXPECT_EQ(fma.bottleneck.unit, "instruction issue");
  ASSERT_TRUE(fma.roofline);
  // FP32 42.137 TFLOP/s plus the HFMA FLOPs (2 x 166.26 per cycle x 2035739 cycles) 0.660 TFLOP/s.
  EXPECT_NEAR(fma.roofline->achieved_tflops, 42.7967, 1e-3);

  const auto& small = *run.stages[2].kernels[0].analysis;
  EXPECT_EQ(small.bottleneck.unit, "grid too small (idle SMs)");
  ASSERT_FALSE(small.opportunities.empty());
  EXPECT_EQ(small.opportunities[0].name, "Fill the GPU (more blocks)");

  // The concurrent stage dominates: 2 launches x 1.279664 ms median.
  ASSERT_TRUE(run.overall);
  EXPECT_EQ(run.overall->kind, BottleneckKind::latency);
  EXPECT_NE(run.overall->rule.find("fma_loop"), std::string::npos);
}

TEST(AnalyzeRun, StageDeclarationFeedsItsSingleKernel) {
  auto run = probe_run("NVIDIA H200");
  run.stages[0].declared.flops = 268435456.0;
  run.stages[0].declared.min_bytes = 2.0 * 1073741824.0;
  run.stages[0].declared.precision = "fp32";
  analyze_run(run, db(), shipped());
  const auto& copy = *run.stages[0].kernels[0].analysis;
  ASSERT_TRUE(copy.roofline);
  EXPECT_EQ(copy.roofline->bound_by, "memory");
  EXPECT_NEAR(copy.roofline->pct_of_roof, 3962.431 / 4800 * 100, 0.01);
  EXPECT_FALSE(copy.bottleneck.locality_issue);  // streaming at the declared minimum
}

TEST(AnalyzeRun, UnmatchedDeviceWarnsAndSkipsRoofline) {
  auto run = probe_run("NVIDIA H200 NVL");
  analyze_run(run, db(), shipped());
  EXPECT_FALSE(run.device_spec);
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_NE(run.warnings[0].text.find("NVL"), std::string::npos) << run.warnings[0].text;
  EXPECT_EQ(run.warnings[0].code, WarningCode::Device);
  const auto& fma = *run.stages[1].kernels[0].analysis;
  EXPECT_FALSE(fma.roofline);
  EXPECT_EQ(fma.bottleneck.kind, BottleneckKind::compute);
}
