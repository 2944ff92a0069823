#include <gtest/gtest.h>

#include "shipped_thresholds.hpp"

#include "analyze/classify.hpp"
#include "analyze_probe_metrics.hpp"

using namespace kprof;
using namespace kprof::analyze;

namespace {
int sentences(const std::string& s) {
  int n = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '.' && (i + 1 == s.size() || s[i + 1] == ' ')) ++n;
  return n;
}
}  // namespace

TEST(Classify, CopyIsMemoryBoundOnDram) {
  auto b = classify(probe::copy_f4(), shipped(), std::nullopt);
  EXPECT_EQ(b.kind, BottleneckKind::memory);
  EXPECT_EQ(b.unit, "DRAM");
  EXPECT_EQ(b.rule, "dram_high_tc_low");
  EXPECT_EQ(b.key_issue, "DRAM bandwidth saturated");  // 82.4% >= 80% saturated
  EXPECT_NE(b.root_cause.find("82.4%"), std::string::npos) << b.root_cause;
  EXPECT_LE(sentences(b.root_cause), 2) << b.root_cause;
  // No declaration: the low L2 hit rate is flagged, worded as conditional on reuse.
  EXPECT_TRUE(b.locality_issue);
  EXPECT_NE(b.root_cause.find("if data is reused"), std::string::npos);
}

TEST(Classify, StreamingCopyAtDeclaredMinimumIsNotBlamedForLocality) {
  DeclaredWork d;
  d.min_bytes = 2.0 * 1073741824.0;  // read 1 GiB + write 1 GiB; DRAM moved 2.1265e9 B = 0.99x
  auto b = classify(probe::copy_f4(), shipped(), std::nullopt, d);
  EXPECT_EQ(b.kind, BottleneckKind::memory);
  EXPECT_FALSE(b.locality_issue);
  EXPECT_NE(b.root_cause.find("streaming"), std::string::npos) << b.root_cause;
  d.min_bytes = 1.0e9;  // 2.13x the minimum: reuse is possible after all
  EXPECT_TRUE(classify(probe::copy_f4(), shipped(), std::nullopt, d).locality_issue);
}

TEST(Classify, Fp32FmaLoopIsComputeBoundOnTheSmPipe) {
  auto b = classify(probe::fma_loop_full(), shipped(), std::nullopt);
  EXPECT_EQ(b.kind, BottleneckKind::compute);  // SM 67.8%, memory 0.03%, TC 2%, DRAM ~0
  EXPECT_EQ(b.unit, "FP32 pipe (SM)");
  EXPECT_EQ(b.rule, "sol_sm_busy");
  EXPECT_FALSE(b.locality_issue);  // L2 hit 97.5%
  EXPECT_LE(sentences(b.root_cause), 2) << b.root_cause;
}

TEST(Classify, UnderFilledGridIsLatencyBoundGridTooSmall) {
  auto b = classify(probe::fma_loop_small(), shipped(), std::nullopt);
  EXPECT_EQ(b.kind, BottleneckKind::latency);  // SM 34.1%, memory 0.01%
  EXPECT_EQ(b.unit, "grid too small");
  EXPECT_NE(b.root_cause.find("0.06 waves"), std::string::npos) << b.root_cause;
}

TEST(Classify, WmmaGemmIsBoundByOnChipMemoryNotDram) {
  auto b = classify(probe::wmma_gemm(), shipped(), std::nullopt);
  EXPECT_EQ(b.kind, BottleneckKind::memory);  // memory 96.7% vs DRAM 2.5%: L1/shared traffic
  EXPECT_EQ(b.unit, "L1/L2 (on-chip memory)");
}

TEST(Classify, TensorPipeHighIsComputeBound) {
  CanonicalMetrics m;
  m.tensor_pipe_pct = 85;
  m.dram_throughput_pct = 20;
  m.sm_throughput_pct = 70;
  auto b = classify(m, shipped(), std::nullopt);
  EXPECT_EQ(b.kind, BottleneckKind::compute);
  EXPECT_EQ(b.unit, "tensor pipe");
  EXPECT_EQ(b.rule, "tc_high_dram_low");
}

TEST(Classify, CloseSmAndMemoryIsBalancedUnlessRooflineDecides) {
  CanonicalMetrics m;
  m.sm_throughput_pct = 72;
  m.memory_throughput_pct = 66;
  m.dram_throughput_pct = 50;
  EXPECT_EQ(classify(m, shipped(), std::nullopt).kind, BottleneckKind::balanced);
  RooflinePlacement p;
  p.bound_by = "memory";
  EXPECT_EQ(classify(m, shipped(), p).kind, BottleneckKind::memory);
}

TEST(Classify, NoThroughputDataIsUnknown) {
  EXPECT_EQ(classify(CanonicalMetrics{}, shipped(), std::nullopt).kind, BottleneckKind::unknown);
}

// Timing only (event mode) with declared work: the roofline placement decides. Near the roof it names the bound;
// far below it, it says how far off and sends the user to the counters (event runs of the H200 examples: the
// Python softmax at 91.6% of the DRAM roof, mla v3 at 12.2% of the bf16 roof).
TEST(Classify, TimingOnlyWithDeclaredWorkUsesTheRooflinePlacement) {
  RooflinePlacement near;
  near.precision = "fp32";
  near.bound_by = "memory";
  near.memory_level = "dram";
  near.arithmetic_intensity = 0.625;
  near.achieved_tflops = 2.4;
  near.pct_of_roof = 91.6;
  auto b = classify(CanonicalMetrics{}, shipped(), near);
  EXPECT_EQ(b.rule, "declared_roofline");
  EXPECT_EQ(b.kind, BottleneckKind::memory);
  EXPECT_EQ(b.key_issue, "at 91.6% of the DRAM bandwidth roof (declared work)");
  EXPECT_NE(b.root_cause.find("No hardware counters"), std::string::npos) << b.root_cause;

  RooflinePlacement far = near;
  far.precision = "bf16";
  far.bound_by = "compute";
  far.arithmetic_intensity = 2579;
  far.achieved_tflops = 97.2;
  far.pct_of_roof = 12.2;
  b = classify(CanonicalMetrics{}, shipped(), far);
  EXPECT_EQ(b.kind, BottleneckKind::unknown) << "12% of a roof names no bound";
  EXPECT_EQ(b.key_issue, "12.2% of the bf16 compute roof (declared work)");
  EXPECT_NE(b.root_cause.find("annotation mode"), std::string::npos) << b.root_cause;

  // With counters the counters decide; the placement alone never overrides them.
  EXPECT_EQ(classify(probe::copy_f4(), shipped(), far).rule, "dram_high_tc_low");
}
