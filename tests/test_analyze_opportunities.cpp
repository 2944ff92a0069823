#include <gtest/gtest.h>

#include "shipped_thresholds.hpp"

#include "analyze/classify.hpp"
#include "analyze/device_db.hpp"
#include "analyze/opportunities.hpp"
#include "analyze/roofline.hpp"
#include "analyze_probe_metrics.hpp"
#include "util/fs.hpp"

#include "datasheet_devices.hpp"

using namespace kprof;
using namespace kprof::analyze;

namespace {
DeviceSpec h200() {
  return *datasheet_db().find("h200-sxm");
}
RuleResult rule(std::string section, std::string name, std::string type, double speedup, std::string desc = "Text.") {
  return RuleResult{std::move(section), std::move(name), "OPT", std::move(desc), std::move(type), speedup};
}
const Opportunity* by_source(const std::vector<Opportunity>& ops, const std::string& source) {
  for (const auto& o : ops)
    if (o.source == source) return &o;
  return nullptr;
}
}  // namespace

TEST(Opportunities, RuleShortNames) {
  EXPECT_EQ(rule_short_name("AchievedOccupancy"), "Achieved occupancy");
  EXPECT_EQ(rule_short_name("CPIStall"), "CPI stall");
  EXPECT_EQ(rule_short_name("UncoalescedGlobalAccess"), "Uncoalesced global access");
}

// ID 10 fma_loop on 66 blocks; OPT rules typed from full_details.csv (ID 10 rows).
TEST(Opportunities, UnderFilledGridRanksFillTheGpuFirst) {
  auto m = probe::fma_loop_small();
  auto t = shipped();
  auto roof = place(m, DeclaredWork{}, h200());  // 31.53% of the FP32 roof → headroom 68.47%
  auto b = classify(m, t, roof);
  std::vector<RuleResult> rules = {
      rule("MemoryWorkloadAnalysis_Chart", "MemoryL2Compression", "global", 5.514e-05),
      rule("LaunchStats", "LaunchConfiguration", "global", 50),
      rule("Occupancy", "AchievedOccupancy", "local", 87.5),
      rule("WorkloadDistribution", "WorkloadImbalance", "global", 24.94),
      rule("WorkloadDistribution", "WorkloadImbalance", "global", 24.94),
  };
  rules.push_back(RuleResult{"SpeedOfLight", "SOLBottleneck", "OPT", "Grid too small.", "", std::nullopt});
  auto ops = find_opportunities(m, b, roof, rules, t);
  ASSERT_EQ(ops.size(), 2u);
  // 1 - 0.06 waves = 94%, bounded by the roofline headroom 1 - 21.1227/67.
  EXPECT_EQ(ops[0].name, "Fill the GPU (more blocks)");
  EXPECT_EQ(ops[0].source, "kprof");
  EXPECT_NEAR(ops[0].est_gain_pct, 68.4736, 1e-3);
  EXPECT_EQ(ops[0].trigger, "waves_per_sm=0.06");
  EXPECT_NE(ops[0].rationale.find("ncu:LaunchConfiguration"), std::string::npos) << ops[0].rationale;
  EXPECT_EQ(ops[1].source, "ncu:WorkloadImbalance");
  EXPECT_EQ(ops[1].name, "Workload imbalance");
  EXPECT_NEAR(ops[1].est_gain_pct, 24.94, 1e-9);
}

// ID 9 spill_kernel; rules from full_details.csv (ID 9 rows).
TEST(Opportunities, SpillKernelGetsTheLocalMemoryOpportunity) {
  auto m = probe::spill_kernel();
  auto t = shipped();
  auto roof = place(m, DeclaredWork{}, h200());
  ASSERT_TRUE(roof);
  EXPECT_NEAR(roof->pct_of_roof, 72.3236, 1e-3);  // left of the ridge: 3471.5 GB/s of 4800
  auto b = classify(m, t, roof);
  std::vector<RuleResult> rules = {
      rule("ComputeWorkloadAnalysis", "HighPipeUtilization", "local", 96.64),
      rule("MemoryWorkloadAnalysis_Tables", "MemoryCacheAccessPattern", "global", 67.92),
      rule("MemoryWorkloadAnalysis_Tables", "MemoryCacheAccessPattern", "global", 72.46),
      rule("Occupancy", "TheoreticalOccupancy", "global", 25),
  };
  auto ops = find_opportunities(m, b, roof, rules, t);
  ASSERT_FALSE(ops.empty());
  // local / L1 bytes = 41937848 / 42205184 sectors = 99.37%, capped at the 27.68% headroom; ranked first by
  // the uncapped estimate among the equally capped ones.
  EXPECT_EQ(ops[0].trigger_metric, "local_memory_bytes");
  EXPECT_NEAR(ops[0].est_gain_pct, 100 - 72.3236, 1e-3);
  EXPECT_EQ(ops[0].trigger, "local_memory_bytes=1.34e+09 B");
  for (const auto& o : ops) EXPECT_LE(o.est_gain_pct, 100 - 72.3236 + 1e-6) << o.name;
  // Two MemoryCacheAccessPattern results are one opportunity; a local speedup is weighed by 0.5.
  int access = 0;
  for (const auto& o : ops) access += o.source == "ncu:MemoryCacheAccessPattern";
  EXPECT_EQ(access, 1);
  EXPECT_NE(by_source(ops, "ncu:HighPipeUtilization"), nullptr);
}

TEST(Opportunities, WithoutRooflineGainsAreUnboundedButLocalOnesWeighedDown) {
  auto m = probe::copy_f4();
  auto t = shipped();
  auto b = classify(m, t, std::nullopt);
  auto ops = find_opportunities(m, b, std::nullopt, {rule("S", "IssueSlotUtilization", "local", 17.65)}, t);
  const Opportunity* dram = nullptr;
  for (const auto& o : ops)
    if (o.trigger_metric == "dram_throughput_pct") dram = &o;
  ASSERT_NE(dram, nullptr);
  EXPECT_NEAR(dram->est_gain_pct, 100 - 82.352146, 1e-6);
  EXPECT_EQ(dram->trigger, "dram_throughput=82.4%");
  // Locality: misses fall from 48.38% to 20%: 1 - 0.2/0.4838126 = 58.66%, times DRAM busy 82.35% = 48.31%.
  const Opportunity* loc = nullptr;
  for (const auto& o : ops)
    if (o.trigger_metric == "l2_hit_pct") loc = &o;
  ASSERT_NE(loc, nullptr);
  EXPECT_NEAR(loc->est_gain_pct, (1 - 0.2 / 0.4838126) * 82.352146, 1e-3);
  const Opportunity* issue = by_source(ops, "ncu:IssueSlotUtilization");
  ASSERT_NE(issue, nullptr);
  EXPECT_NEAR(issue->est_gain_pct, 17.65 * 0.5, 1e-9);
  EXPECT_GE(ops[0].est_gain_pct, ops.back().est_gain_pct);
}

TEST(Opportunities, HalfPrecisionOnTheFmaPipeSuggestsTensorCores) {
  CanonicalMetrics m;
  m.sm_throughput_pct = 70;
  m.memory_throughput_pct = 10;
  m.tensor_pipe_pct = 0;
  m.flops_fp16 = 3e9;
  m.flops_fp32 = 1e9;
  auto t = shipped();
  auto ops = find_opportunities(m, classify(m, t, std::nullopt), std::nullopt, {}, t);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].name, "Use tensor cores for FP16/BF16 math");
  EXPECT_NEAR(ops[0].est_gain_pct, 75, 1e-9);  // FP16 share of FLOPs
  // The wmma GEMM already runs on the tensor pipe: no such suggestion.
  auto w = probe::wmma_gemm();
  EXPECT_GT(*w.tensor_pipe_pct, 0);
  for (const auto& o : find_opportunities(w, classify(w, t, std::nullopt), std::nullopt, {}, t))
    EXPECT_NE(o.name, "Use tensor cores for FP16/BF16 math");
}

// ID 8 wmma_gemm: bound by L1/L2 (memory 96.7%, DRAM 2.5%) with the tensor pipe 4.7% busy. Achieved
// 2*4096^3 FLOP / 4.64192 ms = 29.608 TFLOP/s against the datasheet BF16 roof 989.5 → headroom 97.01%.
TEST(Opportunities, TensorKernelBoundOnChipGetsTensorFeedAndTilingFirst) {
  auto m = probe::wmma_gemm();
  auto t = shipped();
  auto roof = place(m, DeclaredWork{}, h200());
  ASSERT_TRUE(roof.has_value());
  auto b = classify(m, t, roof);
  ASSERT_EQ(b.kind, BottleneckKind::memory);
  auto ops = find_opportunities(m, b, roof, {}, t);
  ASSERT_GE(ops.size(), 2u);
  double headroom = 100.0 * (1.0 - 137438953472.0 / 4641920e-9 / 1e12 / 989.5);
  EXPECT_NEAR(headroom, 97.008, 1e-3);
  bool tensor = false, onchip = false;
  for (std::size_t i = 0; i < 2; ++i) {
    tensor = tensor || ops[i].trigger_metric == "tensor_pipe_pct";
    onchip = onchip || ops[i].trigger_metric == "memory_throughput_pct";
    EXPECT_NEAR(ops[i].est_gain_pct, headroom, 1e-3) << ops[i].name;
  }
  EXPECT_TRUE(tensor);
  EXPECT_TRUE(onchip);
  // A DRAM-bound copy has no compute headroom to claim: neither remedy applies.
  auto copy = probe::copy_f4();
  auto cb = classify(copy, t, std::nullopt);
  for (const auto& o : find_opportunities(copy, cb, std::nullopt, {}, t)) {
    EXPECT_NE(o.trigger_metric, "tensor_pipe_pct");
    EXPECT_NE(o.trigger_metric, "memory_throughput_pct");
  }
}
