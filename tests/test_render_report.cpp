#include <gtest/gtest.h>

#include "render/contract_markdown.hpp"
#include "render/report_markdown.hpp"
#include "support/golden.hpp"
#include "support/sample_run.hpp"

using namespace kprof;
using namespace kprof::render;
using namespace kprof::testing;

TEST(RenderReport, GoldenNcu) { expect_golden("report_ncu.md", render_report(sample_run(), nullptr)); }

TEST(RenderReport, GoldenNcuVerbose) {
  expect_golden("report_ncu_verbose.md", render_report_verbose(sample_run(), nullptr));
}

TEST(RenderReport, GoldenAnnotation) {
  expect_golden("report_annotation.md", render_report(sample_annotation_run(), nullptr));
}

TEST(RenderReport, ContractComesRightAfterTheHeader) {
  auto run = sample_run();
  auto cmp = sample_comparison();
  std::string report = render_report(run, &cmp);
  std::string contract = render_contract(run, &cmp);
  auto at = report.find(contract);
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(at, report.find("## Kernel:"));
}

TEST(RenderReport, RulesPutOptAndWrnFirstBySpeedup) {
  std::string md = render_report(sample_run(), nullptr);
  auto hp = md.find("| OPT | HighPipeUtilization |");
  auto l2 = md.find("| OPT | MemoryL2Compression |");
  auto cpi = md.find("| OPT | CPIStall |");
  auto inf = md.find("| INF | SOLBottleneck |");
  ASSERT_NE(inf, std::string::npos);
  EXPECT_LT(hp, l2);
  EXPECT_LT(l2, cpi);
  EXPECT_LT(cpi, inf);
  EXPECT_NE(md.find("| 28.2% global |"), std::string::npos);
}

TEST(RenderReport, VerdictMarksAndMissingValues) {
  std::string md = render_report(sample_run(), nullptr);
  EXPECT_NE(md.find("| L2 hit rate | 51.6% | > 60% | ✗ |"), std::string::npos);
  EXPECT_NE(md.find("| DRAM throughput | 82.4% | > 60% | ✓ |"), std::string::npos);
  EXPECT_NE(md.find("| Register spills | — | = 0 | — |"), std::string::npos);
}

// A cause with no remedy has no gain to print: at its roof, or explained by a specific cause whose remedy is the way.
TEST(RenderReport, ACauseWithoutARemedyShowsNoGain) {
  ProfileRun run = sample_run();
  auto& a = *run.stages.at(0).kernels.at(0).analysis;
  a.causes = {{"fp64_pipe", "FP64 pipe bound", "FP64 pipe busy 66.6% of active cycles", "fp64_pipe=66.6%", "none", 33.4,
               false},
              {"latency", "latency bound", "SM 24.9% and memory 42.9% both under 60%; explained by occupancy limited "
               "by registers per thread", "sm=24.9%", "none", 63.0, false},
              {"occupancy_registers", "occupancy limited by registers per thread", "6 blocks per SM", "regs=128",
               "occupancy", 41.0, true}};
  const std::string md = render_report(run, nullptr);
  EXPECT_NE(md.find("| FP64 pipe bound | FP64 pipe busy 66.6% of active cycles | none (at its roof) | — |"),
            std::string::npos);
  EXPECT_NE(md.find("| none (the explaining cause's) | — |"), std::string::npos);
  EXPECT_NE(md.find("| occupancy | 41% |"), std::string::npos);
  EXPECT_EQ(md.find("33%"), std::string::npos);
}

TEST(RenderReport, UnavailableMetricsPerKernel) {
  std::string md = render_report(sample_run(), nullptr);
  auto at = md.find("## Unavailable metrics\n");
  ASSERT_NE(at, std::string::npos);
  // One line per distinct set of missing metrics, naming its kernels (no wall of rows).
  EXPECT_NE(md.find("- flops_tensor, spill_requests (stage_copy · copy_f4):", at), std::string::npos) << md.substr(at);
  EXPECT_NE(md.find("- tensor_pipe_pct, dram_throughput_pct, dram_bytes (stage_concurrent · fma_loop [66x1x1]):", at),
            std::string::npos);
  EXPECT_EQ(md.find("stage_fma · fma_loop", at), std::string::npos);
}

TEST(RenderReport, VerboseAddsEverySectionMetricAndFullRuleText) {
  auto run = sample_run();
  std::string plain = render_report(run, nullptr);
  std::string verbose = render_report_verbose(run, nullptr);
  EXPECT_EQ(plain.find("Cluster Scheduling Policy"), std::string::npos);
  EXPECT_NE(verbose.find("| Cluster Scheduling Policy | PolicySpread | — |"), std::string::npos);
  EXPECT_NE(verbose.find("#### Launch Statistics\n"), std::string::npos);
  const std::string tail = "Start by analyzing DRAM in the Memory Workload Analysis section.";
  EXPECT_EQ(plain.find(tail), std::string::npos);
  EXPECT_NE(verbose.find(tail), std::string::npos);
}
