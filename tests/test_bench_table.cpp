// The benchmark table (analyze/bench_figures, render/bench_markdown) and the sweep file (plan/bench_sweep), on
// synthetic samples: verdicts from the rank test, speedups, wrong versions, the roofline bound per plan kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analyze/bench_figures.hpp"
#include "analyze/roofline.hpp"
#include "datasheet_devices.hpp"
#include "plan/bench_sweep.hpp"
#include "plan/plan_json.hpp"
#include "render/bench_markdown.hpp"
#include "shipped_thresholds.hpp"
#include "support/golden.hpp"
#include "util/errors.hpp"

using namespace kprof;

namespace {

DeviceSpec h200() { return *datasheet_db().find("h200-sxm"); }

// n samples spread evenly over [lo, hi].
std::vector<double> spread(double lo, double hi, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * i / (n - 1));
  return v;
}

BenchRun gemm_run(const std::string& version, std::vector<double> samples, std::int64_t m = 4096) {
  BenchRun r;
  r.package = "gemm";
  r.version = version;
  r.point = "m=" + std::to_string(m);
  r.params.values = {{"m", m}, {"n", 4096}, {"k", 4096}};
  r.params.dtype = "bf16";
  r.plan_kind = "single";
  const double mm = static_cast<double>(m);
  const double bytes = 2.0 * (mm * 4096 + 4096.0 * 4096) + 4.0 * mm * 4096;
  r.stages = {{"gemm", DeclaredWork{2.0 * mm * 4096 * 4096, bytes, "bf16"}, 0}};
  r.samples_ms = std::move(samples);
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

TEST(BenchTable, SameDistributionIsSameAndSeparatedIsFasterOrSlower) {
  // v2 and v1 draw from one distribution (alternate values of one sorted set); v3 is clearly faster than v2 and
  // v4 clearly slower than v3.
  auto pool = spread(10.0, 10.4, 40);
  std::vector<double> a, b;
  for (std::size_t i = 0; i < pool.size(); ++i) (i % 2 ? b : a).push_back(pool[i]);
  std::reverse(b.begin(), b.end());
  auto fast = spread(5.0, 5.2, 20);
  auto slow = spread(6.0, 6.3, 20);
  auto t = analyze::build_bench_table({gemm_run("v1", a), gemm_run("v2", b), gemm_run("v3", fast), gemm_run("v4", slow)},
                                      nullptr, shipped());
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[0].vs, "");
  EXPECT_EQ(t.rows[0].verdict, "");
  EXPECT_FALSE(t.rows[0].speedup);

  const auto& same = t.rows[1];
  EXPECT_EQ(same.vs, "v1");
  EXPECT_EQ(same.verdict, "same");
  ASSERT_TRUE(same.p_value);
  EXPECT_GE(*same.p_value, t.alpha);
  EXPECT_EQ(same.test, "Mann-Whitney U");

  const auto& faster = t.rows[2];
  EXPECT_EQ(faster.vs, "v2");
  EXPECT_EQ(faster.verdict, "faster");
  ASSERT_TRUE(faster.p_value);
  EXPECT_LT(*faster.p_value, 1e-6);
  ASSERT_TRUE(faster.speedup);
  EXPECT_NEAR(*faster.speedup, median(b) / median(fast), 1e-12);

  EXPECT_EQ(t.rows[3].verdict, "slower");
  EXPECT_LT(*t.rows[3].speedup, 1.0);
}

TEST(BenchTable, AWrongVersionIsNotTimedAndTheNextOneIsComparedWithTheLastTimedVersion) {
  BenchRun wrong = gemm_run("v2", {});
  wrong.status = "wrong";
  wrong.message = "gemm: max error 0.5 > bound 6.1e-05";
  auto t = analyze::build_bench_table({gemm_run("v1", spread(30, 31, 10)), wrong, gemm_run("v3", spread(1, 1.1, 10))},
                                      nullptr, shipped());
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[1].status, "wrong");
  EXPECT_FALSE(t.rows[1].time_ms);
  EXPECT_FALSE(t.rows[1].tflops);
  EXPECT_FALSE(t.rows[1].speedup);
  EXPECT_EQ(t.rows[1].verdict, "");
  EXPECT_EQ(t.rows[2].vs, "v1");
  EXPECT_EQ(t.rows[2].verdict, "faster");

  auto md = render::render_bench_markdown(t);
  EXPECT_NE(md.find("| m=4096 | v2 | — | — | — |"), std::string::npos) << md;
  EXPECT_NE(md.find("**wrong result**: gemm: max error 0.5 > bound 6.1e-05"), std::string::npos) << md;
}

TEST(BenchTable, OkRunWithoutSamplesIsReportedAsFailed) {
  auto t = analyze::build_bench_table({gemm_run("v1", {})}, nullptr, shipped());
  EXPECT_EQ(t.rows[0].status, "failed");
  EXPECT_FALSE(t.rows[0].time_ms);
}

TEST(BenchTable, VersionsAreComparedOnlyAtTheSamePoint) {
  auto t = analyze::build_bench_table(
      {gemm_run("v1", spread(30, 31, 10), 4096), gemm_run("v1", spread(8, 9, 10), 1024),
       gemm_run("v2", spread(7, 7.5, 10), 1024)},
      nullptr, shipped());
  EXPECT_EQ(t.rows[1].vs, "");  // m=1024 v1 is the first at its point, not compared with m=4096 v1
  EXPECT_EQ(t.rows[2].vs, "v1");
  EXPECT_NEAR(*t.rows[2].speedup, median(spread(8, 9, 10)) / median(spread(7, 7.5, 10)), 1e-12);
}

TEST(BenchTable, TooFewRunsFallBackToTheRelativeChangeRule) {
  auto th = shipped();
  auto t = analyze::build_bench_table({gemm_run("v1", {10.0, 10.1, 10.2}), gemm_run("v2", {10.05, 10.1, 10.15}),
                                       gemm_run("v3", {5.0, 5.1, 5.2})},
                                      nullptr, th);
  ASSERT_LT(3u, static_cast<std::size_t>(th.param("compare.min_samples")));
  EXPECT_FALSE(t.rows[1].p_value);
  EXPECT_EQ(t.rows[1].verdict, "same");  // medians equal: within compare.noise_pct
  EXPECT_NE(t.rows[1].test.find("relative change"), std::string::npos);
  EXPECT_EQ(t.rows[2].verdict, "faster");
  auto md = render::render_bench_markdown(t);
  EXPECT_NE(md.find("same (relative change, few runs)"), std::string::npos) << md;
}

TEST(BenchTable, ThroughputAndPercentOfRoofForASingleKernelMatchItsRooflinePlacement) {
  auto spec = h200();
  auto r = gemm_run("v1", spread(2.0, 2.2, 11));
  auto t = analyze::build_bench_table({r}, &spec, shipped());
  const auto& row = t.rows[0];
  const double med = median(r.samples_ms);
  EXPECT_NEAR(*row.tflops, *r.stages[0].work.flops / (med * 1e-3) / 1e12, 1e-9);
  EXPECT_NEAR(*row.gbps, *r.stages[0].work.min_bytes / (med * 1e-3) / 1e9, 1e-9);
  CanonicalMetrics m;
  m.duration_ns = med * 1e6;
  auto p = analyze::place(m, r.stages[0].work, spec);
  ASSERT_TRUE(p);
  ASSERT_TRUE(row.pct_of_roof);
  EXPECT_NEAR(*row.pct_of_roof, p->pct_of_roof, 1e-9);
  EXPECT_EQ(row.bound_by, p->bound_by);
  EXPECT_EQ(row.bound_by, "compute");
  EXPECT_NEAR(*row.bound_ms, *r.stages[0].work.flops / (spec.peak("bf16_tflops")->value * 1e12) * 1e3, 1e-12);
  // The peaks the bound used are named with their kind and source.
  ASSERT_EQ(t.peaks.size(), 2u);
  EXPECT_EQ(t.peaks[0].rfind("bf16_tflops 989.5 (datasheet: ", 0), 0u) << t.peaks[0];
  EXPECT_EQ(t.peaks[1].rfind("dram_gbps 4800 (datasheet: ", 0), 0u) << t.peaks[1];
  EXPECT_EQ(t.device, "NVIDIA H200 SXM (h200-sxm)");
}

TEST(BenchTable, PipelineStageBoundsAddUpAndConcurrentStagesShareTheGpu) {
  auto spec = h200();
  const double bw = spec.peak("dram_gbps")->value * 1e9, fp32 = spec.peak("fp32_tflops")->value * 1e12;
  // Stage a: compute-heavy (1 TFLOP, 1 GB); stage b: memory only (combine-like: 0 FLOPs, 4 GB).
  std::vector<BenchStage> st{{"a", DeclaredWork{1e12, 1e9, "fp32"}, 0}, {"b", DeclaredWork{0.0, 4e9, "fp32"}, 1}};
  auto pipe = analyze::plan_bound("pipeline", st, spec);
  ASSERT_TRUE(pipe);
  EXPECT_NEAR(pipe->ms, (1e12 / fp32 + 4e9 / bw) * 1e3, 1e-9);
  EXPECT_EQ(pipe->bound_by, "mixed");
  auto conc = analyze::plan_bound("concurrent", st, spec);
  ASSERT_TRUE(conc);
  EXPECT_NEAR(conc->ms, std::max(1e12 / fp32, (1e9 + 4e9) / bw) * 1e3, 1e-9);
  EXPECT_LT(conc->ms, pipe->ms);

  BenchRun r;
  r.package = "overlap";
  r.version = "v2";
  r.plan_kind = "concurrent";
  r.stages = st;
  r.samples_ms = spread(40, 42, 9);
  auto t = analyze::build_bench_table({r}, &spec, shipped());
  EXPECT_NEAR(*t.rows[0].pct_of_roof, conc->ms / 41.0 * 100, 1e-9);
  // Only the FLOPs of stage a count; bytes of both.
  EXPECT_NEAR(*t.rows[0].tflops, 1e12 / 41e-3 / 1e12, 1e-9);
  EXPECT_NEAR(*t.rows[0].gbps, 5e9 / 41e-3 / 1e9, 1e-9);
}

TEST(BenchTable, MissingPeakOrDeviceLeavesTheRoofEmptyWithANote) {
  auto spec = h200();
  spec.datasheet.erase("bf16_tflops");
  spec.measured.erase("bf16_tflops");
  std::string gap;
  auto b = analyze::plan_bound("single", gemm_run("v1", {1}).stages, spec, &gap);
  EXPECT_FALSE(b);
  EXPECT_NE(gap.find("no bf16_tflops peak for h200-sxm"), std::string::npos) << gap;
  auto t = analyze::build_bench_table({gemm_run("v1", spread(1, 2, 5))}, &spec, shipped());
  EXPECT_FALSE(t.rows[0].pct_of_roof);
  EXPECT_TRUE(t.rows[0].tflops);
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("no bf16_tflops peak"), std::string::npos);

  auto none = analyze::build_bench_table({gemm_run("v1", spread(1, 2, 5))}, nullptr, shipped());
  EXPECT_FALSE(none.rows[0].pct_of_roof);
  EXPECT_EQ(none.device, "");
  ASSERT_FALSE(none.notes.empty());
}

TEST(BenchTable, MarkdownHasOneSectionPerPackageAndJsonReadsBack) {
  auto spec = h200();
  auto a = gemm_run("v1", spread(30, 31, 10)), b = gemm_run("v2", spread(3, 3.1, 10));
  BenchRun ov;
  ov.package = "overlap";
  ov.version = "v1";
  ov.point = "defaults";
  ov.plan_kind = "pipeline";
  ov.status = "failed";
  ov.message = "CUDA error: out of memory";
  auto t = analyze::build_bench_table({a, b, ov}, &spec, shipped());
  auto md = render::render_bench_markdown(t);
  EXPECT_NE(md.find("## gemm\n"), std::string::npos);
  EXPECT_NE(md.find("## overlap\n"), std::string::npos);
  EXPECT_NE(md.find("| params | version | time (ms) | p10–p90 (ms) | runs | TFLOP/s | GB/s | % of roof | bound | vs | "
                    "speedup | verdict |"),
            std::string::npos)
      << md;
  // v2: median 3.05 ms, spread p10–p90, 10 runs, speedup 30.5/3.05 = 10.00×, faster with its p-value.
  EXPECT_NE(md.find("| m=4096 | v2 | 3.05 | 3.01–3.09 | 10 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| v1 | 10.00× | faster (p="), std::string::npos) << md;
  EXPECT_NE(md.find("**failed**: CUDA error: out of memory"), std::string::npos) << md;
  EXPECT_NE(md.find("Peaks behind % of roof:\n- bf16_tflops 989.5 (datasheet: "), std::string::npos) << md;

  auto back = json::parse(render::render_bench_json(t)).get<BenchTable>();
  EXPECT_EQ(back.schema, "kprof.bench/1");
  ASSERT_EQ(back.rows.size(), 3u);
  EXPECT_EQ(back.rows[1].verdict, "faster");
  EXPECT_EQ(back.rows[1].samples_ms, b.samples_ms);
  EXPECT_DOUBLE_EQ(*back.rows[1].p_value, *t.rows[1].p_value);
}

TEST(BenchSweep, ParsesPackagesRunsAndPoints) {
  auto s = plan::parse_sweep(R"(schema = "kprof.bench.sweeps/1"
runs = 15
[packages.mla]
runs = 5
points = [ { b = 32, s = 16, t = 4096 }, { t = 1024 } ]
[packages.gemm]
points = [ { m = 1024, n = 1024, k = 1024 } ]
)",
                             "sweep.toml");
  EXPECT_EQ(s.runs, 15);
  ASSERT_EQ(s.packages.size(), 2u);
  EXPECT_EQ(s.packages["mla"].runs, 5);
  ASSERT_EQ(s.packages["mla"].points.size(), 2u);
  EXPECT_EQ(s.packages["mla"].points[0].values.at("t"), 4096);
  EXPECT_EQ(s.packages["mla"].points[1].values.size(), 1u);
  EXPECT_FALSE(s.packages["gemm"].runs);
}

TEST(BenchSweep, MistakesNameTheFileAndLine) {
  auto fails = [](const std::string& text, const std::string& what) {
    try {
      plan::parse_sweep(text, "sweep.toml");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_EQ(e.exit_code(), kExitBadInput);
    }
  };
  fails("[packages.mla]\nrun = 5\n", "sweep.toml:2: unknown key \"run\"");
  fails("[packages.mla]\nruns = 0\n", "runs must be an integer from 1");
  fails("[packages.mla]\npoints = [ { b = 1.5 } ]\n", "mla.b must be an integer");
  fails("[packages.mla]\npoints = [ 3 ]\n", "must be a table");
  fails("schema = \"other/1\"\n", "unsupported schema");
  fails("pakages = 1\n", "unknown top-level key");
  fails("[packages.mla\n", "sweep.toml:1");
}

TEST(BenchSweep, CommandLinePointsAndLabelsInTheDeclaredOrder) {
  auto p = plan::parse_point("m=1024,n=512 --k=64");
  EXPECT_EQ(p.values.at("m"), 1024);
  EXPECT_EQ(p.values.at("k"), 64);
  EXPECT_THROW(plan::parse_point("m1024"), plan::PlanError);
  EXPECT_THROW(plan::parse_point("m=big"), plan::PlanError);
  plan::PackageInfo gemm{"gemm", "", {{"v1", ""}}, {{"m", 1, ""}, {"n", 1, ""}, {"k", 1, ""}}, "bf16"};
  EXPECT_EQ(plan::point_label(p, gemm), "m=1024 n=512 k=64");
  EXPECT_EQ(plan::point_label(ProblemParams{}, gemm), "defaults");
}

TEST(BenchTable, MarkdownIsPinnedByItsGoldenFile) {
  auto spec = h200();
  BenchRun wrong = gemm_run("v2", {});
  wrong.status = "wrong";
  wrong.message = "gemm: max error 0.5 > bound 6.1e-05";
  BenchRun split;
  split.package = "mla";
  split.version = "v3";
  split.point = "b=32 s=16 t=4096";
  split.plan_kind = "pipeline";
  split.stages = {{"mla_partial", DeclaredWork{584115552256.0, 226492416.0, "bf16"}, 0},
                  {"mla_combine", DeclaredWork{0.0, 67108864.0, "fp32"}, 0}};
  split.samples_ms = spread(5.85, 5.95, 10);
  auto t = analyze::build_bench_table(
      {gemm_run("v1", spread(30, 31, 10)), wrong, gemm_run("v3", spread(1.2, 1.3, 10)),
       gemm_run("v4", {1.25, 1.26, 1.24}), split},
      &spec, shipped());
  kprof::testing::expect_golden("bench_table.md", render::render_bench_markdown(t));
}
