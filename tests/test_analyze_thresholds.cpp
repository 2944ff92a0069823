#include <gtest/gtest.h>

#include "shipped_thresholds.hpp"

#include <cstdlib>
#include <filesystem>

#include "analyze/interpret.hpp"
#include "analyze/thresholds.hpp"
#include "analyze_probe_metrics.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

using namespace kprof;
using namespace kprof::analyze;

namespace {
}  // namespace

TEST(Thresholds, ShippedFileHoldsTheSixHealthyThresholds) {
  auto t = shipped();
  ASSERT_EQ(t.metrics.size(), 6u);
  EXPECT_EQ(t.metrics[0].metric, "tensor_pipe_pct");
  EXPECT_EQ(t.metrics[0].healthy_text(), "> 60%");
  EXPECT_DOUBLE_EQ(t.metric_value("dram_throughput_pct"), 70);
  EXPECT_DOUBLE_EQ(t.metric_value("achieved_occupancy_pct"), 25);
  EXPECT_DOUBLE_EQ(t.metric_value("l2_hit_pct"), 80);
  EXPECT_EQ(t.find("local_memory_bytes")->healthy_text(), "== 0 B");
  EXPECT_EQ(t.find("waves_per_sm")->healthy_text(), "> 1");
  EXPECT_DOUBLE_EQ(t.param("classify.busy_pct"), 60);
  EXPECT_DOUBLE_EQ(t.param("compare.noise_pct"), 2);
  EXPECT_EQ(t.ncu_categories.at("LaunchConfiguration"), "grid_fill");
  for (const auto& m : t.metrics) EXPECT_FALSE(m.meaning.empty()) << m.metric;
  EXPECT_THROW(t.param("classify.nonexistent"), Error);
}

// Issue 25: an occupancy of exactly its healthy limit (25.0% against "> 25%") is not an issue; below it, as printed,
// it is; other units keep the strict comparison.
TEST(Thresholds, APercentageAtTheLimitAsPrintedIsHealthy) {
  auto t = shipped();
  const MetricThreshold& occ = *t.find("achieved_occupancy_pct");
  EXPECT_TRUE(occ.healthy(25.0));
  EXPECT_TRUE(occ.healthy(24.96));
  EXPECT_FALSE(occ.healthy(24.9));
  EXPECT_FALSE(t.find("waves_per_sm")->healthy(1.0));
}

TEST(Thresholds, UserFileOverridesValuesKeyByKey) {
  auto dir = std::filesystem::temp_directory_path() / "kprof_test_thresholds";
  auto file = dir / "mine.toml";
  write_file_atomic(file, "[[metric]]\nmetric = \"tensor_pipe_pct\"\nvalue = 45\n\n[compare]\nnoise_pct = 5\n");
  auto t = Thresholds::load(file);
  EXPECT_DOUBLE_EQ(t.metric_value("tensor_pipe_pct"), 45);
  EXPECT_EQ(t.find("tensor_pipe_pct")->label, "TC util");  // kept from the shipped file
  EXPECT_DOUBLE_EQ(t.param("compare.noise_pct"), 5);
  EXPECT_DOUBLE_EQ(t.param("compare.alpha"), 0.05);
  EXPECT_EQ(t.sources.size(), 2u);

  ::setenv("KPROF_THRESHOLDS", file.c_str(), 1);
  auto from_env = Thresholds::load();
  ::unsetenv("KPROF_THRESHOLDS");
  EXPECT_DOUBLE_EQ(from_env.metric_value("tensor_pipe_pct"), 45);
}

TEST(Thresholds, MalformedTomlNamesFileAndLine) {
  Thresholds t = shipped();
  try {
    t.apply("[classify]\nbusy_pct = \"high\"\n", "bad.toml");
    FAIL() << "expected ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "bad.toml");
    EXPECT_EQ(e.line(), 2);
  }
  EXPECT_THROW(t.apply("[classify\n", "broken.toml"), ParseError);
  EXPECT_THROW(t.apply("[[metric]]\nmetric = \"x\"\nop = \"~\"\n", "op.toml"), ParseError);
}

TEST(Interpret, CopyKernelVerdicts) {
  auto v = interpret(probe::copy_f4(), shipped());
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v[0].label, "TC util");
  EXPECT_EQ(v[0].verdict, Verdict::warn);          // 0% tensor pipe
  EXPECT_EQ(v[1].verdict, Verdict::ok);            // DRAM 82.4% > 70%
  EXPECT_DOUBLE_EQ(*v[1].value, 82.352146);
  EXPECT_EQ(v[2].verdict, Verdict::ok);            // occupancy 97.5%
  EXPECT_EQ(v[3].verdict, Verdict::warn);          // L2 hit 51.6% < 80%
  EXPECT_EQ(v[4].verdict, Verdict::ok);            // no local instructions → 0 bytes
  EXPECT_DOUBLE_EQ(*v[4].value, 0);
  EXPECT_EQ(v[5].verdict, Verdict::warn);          // exactly 1 wave is not > 1
}

TEST(Interpret, MissingMetricIsUnavailableNotOk) {
  CanonicalMetrics m;
  m.tensor_pipe_pct = 75;
  auto v = interpret(m, shipped());
  EXPECT_EQ(v[0].verdict, Verdict::ok);
  EXPECT_EQ(v[1].verdict, Verdict::unavailable);
  EXPECT_FALSE(v[1].value.has_value());
  EXPECT_EQ(v[4].verdict, Verdict::unavailable);

  auto spill = interpret(probe::spill_kernel(), shipped());
  EXPECT_EQ(spill[4].verdict, Verdict::warn);
  EXPECT_DOUBLE_EQ(*spill[4].value, 1342011136.0);
}
