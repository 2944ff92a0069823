// bench/bench_all and bench/bench_<package> end to end (the wrapper scripts → kprof bench) against a fake
// kprof-kernels (support/fake_kernels.hpp) with canned per-run samples: the runs it makes, the table it writes,
// wrong and failed versions, usage errors before any run; plus a dry run over the shipped sweep with the real
// kprof-kernels (list/describe need no GPU). Timing on a GPU is skipped here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "analyze/device_db.hpp"
#include "model/bench_table.hpp"
#include "plan/plan_json.hpp"
#include "support/fake_kernels.hpp"
#include "support/shell.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using namespace kprof;

namespace {

using Result = test::ShellResult;

fs::path scratch() { return test::scratch_dir("bench_cli"); }

Result sh(const std::string& cmd) { return test::run_shell(cmd, scratch()); }

// The user-facing command, with the kprof binary of this build.
Result bench(const std::string& script, const std::string& args, const std::string& env = "") {
  // KPROF_ASSUME_GPU=1: the fake kprof-kernels runs anywhere, so the no-GPU check (exit 4) is skipped.
  return sh(env + " KPROF_ASSUME_GPU=1 KPROF_BIN=" + std::string(KPROF_BINARY) + " " + KPROF_SOURCE_DIR + "/bench/" +
            script + " " + args);
}

using kprof::testing::spread;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

using kprof::testing::kGemm;
const plan::PackageInfo kOverlap{"overlap", "two streams", {{"v1", "serial"}, {"v2", "concurrent"}},
                                 {{"n", 1024, ""}, {"iters", 8, ""}}, "fp32"};

using kprof::testing::gemm_plan;

plan::KernelPlan overlap_plan() {
  plan::KernelPlan p;
  p.package = "overlap";
  p.version = "v1";
  p.kind = plan::PlanKind::pipeline;
  p.params = {{"n", 1024}, {"iters", 8}};
  p.dtype = "fp32";
  p.stages = {{"rotate_a", 6.0 * 1024 * 8, 16.0 * 1024, "fp32", 0, {}},
              {"rotate_b", 6.0 * 1024 * 8, 16.0 * 1024, "fp32", 0, {}}};
  return p;
}

// gemm: v2 clearly faster than v1, v3 the same distribution as v2; overlap: v1 timed, v2 wrong.
kprof::testing::FakeKernels& fake() {
  static kprof::testing::FakeKernels f(scratch() / "fake");
  static bool init = [] {
    f.set_packages({kGemm, kOverlap});
    f.set_plan(gemm_plan(), true);
    f.set_plan(overlap_plan(), true);
    auto v2 = spread(5.0, 5.2, 10), v3 = v2;
    std::reverse(v3.begin(), v3.end());
    f.set_run("gemm", "v1", 0, kprof::testing::FakeKernels::timings(gemm_plan(), spread(10.0, 10.5, 10)));
    f.set_run("gemm", "v2", 0, kprof::testing::FakeKernels::timings(gemm_plan(), v2));
    f.set_run("gemm", "v3", 0, kprof::testing::FakeKernels::timings(gemm_plan(), v3));
    f.set_run("overlap", "v1", 0, kprof::testing::FakeKernels::timings(overlap_plan(), spread(2.0, 2.1, 10)));
    f.set_run("overlap", "v2", 3);
    return true;
  }();
  (void)init;
  return f;
}

fs::path sweep_file() {
  auto p = scratch() / "sweep.toml";
  write_file_atomic(p, R"(schema = "kprof.bench.sweeps/1"
runs = 10
[packages.gemm]
points = [ { m = 1024, n = 1024, k = 1024 } ]
)");
  return p;
}

const BenchRow& row(const BenchTable& t, const std::string& pkg, const std::string& ver) {
  for (const auto& r : t.rows)
    if (r.package == pkg && r.version == ver) return r;
  throw std::runtime_error("no row " + pkg + " " + ver);
}

}  // namespace

TEST(BenchCli, BenchAllRunsEveryVersionOfEveryPackageAndWritesTheTable) {
  auto& f = fake();
  auto out = scratch() / "all";
  fs::remove_all(out);
  const size_t calls_before = f.calls().size();
  auto r = bench("bench_all", "--kernels " + f.path() + " --sweep " + sweep_file().string() + " --out " + out.string());
  // overlap v2 is wrong: the table is complete, and the exit code says not everything was timed.
  ASSERT_EQ(r.code, 7) << r.err;

  // Every version, oldest first, with the sweep's runs and point (defaults filled in); overlap has no points in
  // the sweep and runs at its defaults. Every describe comes before the first run.
  auto calls = f.calls();
  calls.erase(calls.begin(), calls.begin() + static_cast<long>(calls_before));
  std::vector<std::string> runs;
  bool run_seen = false, describe_after_run = false;
  for (const auto& c : calls) {
    if (c.rfind("run ", 0) == 0) runs.push_back(c), run_seen = true;
    if (c.rfind("describe ", 0) == 0 && run_seen) describe_after_run = true;
  }
  EXPECT_FALSE(describe_after_run);
  ASSERT_EQ(runs.size(), 5u);
  const std::string gdir = (out / "runs" / "gemm" / "k1024_m1024_n1024_bf16").string();
  // Each run writes into a hidden staging folder beside its place, renamed into place when it ends
  // (session/sweep_worker.hpp): a run directory is never half-written.
  EXPECT_EQ(runs[0].rfind("run gemm v1 --k=1024 --m=1024 --n=1024 --runs 10 --out " + gdir + "/.v1.partial-", 0), 0u)
      << runs[0];
  EXPECT_EQ(runs[1].rfind("run gemm v2 ", 0), 0u);
  EXPECT_EQ(runs[2].rfind("run gemm v3 ", 0), 0u);
  EXPECT_EQ(runs[3].rfind("run overlap v1 --iters=8 --n=1024 --runs 10 --out " +
                             (out / "runs" / "overlap" / "iters8_n1024_fp32" / ".v1.partial-").string(), 0), 0u)
      << runs[3];
  EXPECT_EQ(runs[4].rfind("run overlap v2 ", 0), 0u);

  // The table: stdout is bench.md; bench.json has the figures.
  ASSERT_TRUE(fs::exists(out / "bench.md"));
  EXPECT_EQ(r.out, read_file(out / "bench.md"));
  auto t = json::parse(read_file(out / "bench.json")).get<BenchTable>();
  ASSERT_EQ(t.rows.size(), 5u);
  const auto& v1 = row(t, "gemm", "v1");
  const auto& v2 = row(t, "gemm", "v2");
  const auto& v3 = row(t, "gemm", "v3");
  EXPECT_EQ(v1.point, "m=1024 n=1024 k=1024");
  EXPECT_EQ(v1.runs, 10u);
  EXPECT_EQ(v2.vs, "v1");
  EXPECT_EQ(v2.verdict, "faster");
  EXPECT_LT(*v2.p_value, 0.001);
  EXPECT_NEAR(*v2.speedup, median(spread(10.0, 10.5, 10)) / median(spread(5.0, 5.2, 10)), 1e-9);
  EXPECT_EQ(v3.vs, "v2");
  EXPECT_EQ(v3.verdict, "same");
  EXPECT_GE(*v3.p_value, t.alpha);
  EXPECT_NEAR(*v3.speedup, 1.0, 1e-12);
  const auto& wrong = row(t, "overlap", "v2");
  EXPECT_EQ(wrong.status, "wrong");
  EXPECT_NE(wrong.message.find("max error 0.5 > bound"), std::string::npos) << wrong.message;
  EXPECT_EQ(row(t, "overlap", "v1").point, "defaults");

  // % of roof against the matched device's peaks (timings.json names an NVIDIA H200).
  const auto db = analyze::DeviceDb::load();
  const DeviceSpec* spec = db.find("h200-sxm");
  ASSERT_TRUE(spec);
  EXPECT_EQ(t.device, spec->name + " (h200-sxm)");
  const plan::KernelPlan gemm = gemm_plan();  // kept alive: st refers into it
  const auto& st = gemm.stages[0];
  const double bound_s = std::max(st.flops / (spec->peak("bf16_tflops")->value * 1e12),
                                  st.min_bytes / (spec->peak("dram_gbps")->value * 1e9));
  ASSERT_TRUE(v1.pct_of_roof);
  EXPECT_NEAR(*v1.pct_of_roof, bound_s * 1e3 / median(spread(10.0, 10.5, 10)) * 100, 1e-9);
  EXPECT_NEAR(*v1.tflops, st.flops / (median(spread(10.0, 10.5, 10)) * 1e-3) / 1e12, 1e-9);

  EXPECT_NE(r.out.find("## gemm"), std::string::npos);
  EXPECT_NE(r.out.find("**wrong result**"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("[bench 2/5] gemm v2 m=1024 n=1024 k=1024: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("WRONG RESULT"), std::string::npos) << r.err;
  // kprof-kernels' own output goes to a log per run, not to the terminal.
  EXPECT_NE(read_file(fs::path(gdir) / "v1" / "kprof-kernels.log").find("fake run"), std::string::npos);
  EXPECT_EQ(r.err.find("fake run"), std::string::npos);
}

TEST(BenchCli, BenchPackageRunsOnePackageAndPointsReplaceTheSweep) {
  auto& f = fake();
  const size_t before = f.calls().size();
  auto out = scratch() / "gemm";
  auto r = bench("bench_gemm", "--kernels " + f.path() + " --sweep " + sweep_file().string() +
                                   " --point m=64,n=32 --point k=16 --versions v1,v3 --runs 7 --retune --dry-run --out " +
                                   out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  // Dry run: the commands, nothing run; only gemm; only v1 and v3; the points as given with defaults filled in.
  EXPECT_NE(r.out.find(f.path() + " run gemm v1 --k=4096 --m=64 --n=32 --runs 7 --out " +
                       (out / "runs/gemm/k4096_m64_n32_bf16/v1").string() + " --retune\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("run gemm v3 --k=16 --m=4096 --n=4096 --runs 7"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("run gemm v2"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("overlap"), std::string::npos) << r.out;
  for (std::size_t i = before; i < f.calls().size(); ++i) EXPECT_NE(f.calls()[i].rfind("run", 0), 0u) << f.calls()[i];
  EXPECT_FALSE(fs::exists(out / "bench.md"));
}

TEST(BenchCli, MistakesAreUsageErrorsBeforeAnyRun) {
  auto& f = fake();
  const size_t before = f.calls().size();
  const std::string common = "--kernels " + f.path() + " --sweep " + sweep_file().string() + " --out " +
                             (scratch() / "bad").string();
  auto pkg = bench("bench_all", common + " --packages gemv");
  EXPECT_EQ(pkg.code, 2);
  EXPECT_NE(pkg.err.find("unknown package 'gemv'"), std::string::npos) << pkg.err;
  auto two = bench("bench_all", common + " --point m=64");
  EXPECT_EQ(two.code, 2);
  EXPECT_NE(two.err.find("--point gives one package's parameters"), std::string::npos) << two.err;
  auto param = bench("bench_gemm", common + " --point q=3");
  EXPECT_EQ(param.code, 2);
  EXPECT_NE(param.err.find("gemm at q=3"), std::string::npos) << param.err;
  auto ver = bench("bench_gemm", common + " --versions v9");
  EXPECT_EQ(ver.code, 2);
  auto dev = bench("bench_gemm", common + " --device nosuch");
  EXPECT_EQ(dev.code, 2);
  EXPECT_NE(dev.err.find("h200-sxm"), std::string::npos) << dev.err;
  write_file_atomic(scratch() / "bad.toml", "[packages.gemm]\nrunz = 3\n");
  auto sweep = bench("bench_gemm", "--kernels " + f.path() + " --sweep " + (scratch() / "bad.toml").string());
  EXPECT_EQ(sweep.code, 3);
  EXPECT_NE(sweep.err.find("bad.toml:2"), std::string::npos) << sweep.err;
  for (std::size_t i = before; i < f.calls().size(); ++i) EXPECT_NE(f.calls()[i].rfind("run", 0), 0u) << f.calls()[i];
}

TEST(BenchCli, AFailingRunIsRecordedAndTheOthersStillRun) {
  auto& f = fake();
  auto out = scratch() / "failing";
  fs::remove_all(out);
  auto r = bench("bench_gemm", "--kernels " + f.path() + " --sweep " + sweep_file().string() + " --out " + out.string(),
                 "FAKE_RUN_RC=1");
  EXPECT_EQ(r.code, 7) << r.err;
  auto t = json::parse(read_file(out / "bench.json")).get<BenchTable>();
  ASSERT_EQ(t.rows.size(), 3u);
  for (const auto& row : t.rows) {
    EXPECT_EQ(row.status, "failed");
    EXPECT_NE(row.message.find("exited with code 1"), std::string::npos) << row.message;
  }
  EXPECT_NE(r.err.find("[bench 3/3]"), std::string::npos) << r.err;
}

// A timings file whose schema is not a string: json::value() threw type_error, which escaped as an internal error
// (exit 1); now the run is recorded as failed with the file's problem, like any other bad timings file.
TEST(BenchCli, ATimingsFileWithANonStringSchemaIsAFailedRun) {
  kprof::testing::FakeKernels f(scratch() / "fake_bad_timings");
  f.set_packages({kGemm});
  f.set_plan(gemm_plan(), true);
  for (const char* v : {"v1", "v2", "v3"}) f.set_run("gemm", v, 0, R"({"schema": 741.5, "plan": {"samples_ms": [1]}})");
  auto out = scratch() / "bad_timings";
  fs::remove_all(out);
  auto r = bench("bench_gemm", "--kernels " + f.path() + " --sweep " + sweep_file().string() + " --out " + out.string());
  EXPECT_EQ(r.code, 7) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  auto t = json::parse(read_file(out / "bench.json")).get<BenchTable>();
  ASSERT_EQ(t.rows.size(), 3u);
  for (const auto& row : t.rows) {
    EXPECT_EQ(row.status, "failed");
    EXPECT_NE(row.message.find("not a kprof.kernels.timings/1 document"), std::string::npos) << row.message;
  }
}

TEST(BenchCli, ShippedSweepResolvesAgainstTheRealKernelsBinary) {
  fs::path bin = fs::path(KPROF_BINARY).parent_path() / "kprof-kernels";
  if (!fs::exists(bin)) GTEST_SKIP() << "kprof-kernels not built (no CUDA toolkit at configure time)";
  auto out = scratch() / "real";
  auto r = bench("bench_all", "--dry-run --out " + out.string(), "KPROF_KERNELS=");
  ASSERT_EQ(r.code, 0) << r.err;
  auto pkgs = plan::packages_from_json(sh(bin.string() + " list").out);
  for (const auto& p : pkgs)
    for (const auto& v : p.versions)
      EXPECT_NE(r.out.find(" run " + p.name + " " + v.name + " "), std::string::npos) << p.name << " " << v.name;
  EXPECT_NE(r.out.find("run mla v1 --b=32 --d=512 --h=128 --p=64 --s=16 --t=4096 --runs 10"), std::string::npos)
      << r.out;
}

TEST(BenchCli, TimingOnTheGpuNeedsAGpu) {
  if (std::system("nvidia-smi -L >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no GPU here: `bench/bench_gemm --point m=256,n=256,k=256 --runs 5` times gemm on a GPU machine";
  fs::path bin = fs::path(KPROF_BINARY).parent_path() / "kprof-kernels";
  if (!fs::exists(bin)) GTEST_SKIP() << "kprof-kernels not built";
  auto out = scratch() / "gpu";
  auto r = bench("bench_gemm", "--point m=256,n=256,k=256 --runs 5 --cache-dir " + (scratch() / "cache").string() +
                                   " --out " + out.string(),
                 "KPROF_KERNELS=");
  ASSERT_EQ(r.code, 0) << r.err;
  auto t = json::parse(read_file(out / "bench.json")).get<BenchTable>();
  ASSERT_EQ(t.rows.size(), 3u);
  for (const auto& row : t.rows) {
    EXPECT_EQ(row.status, "ok") << row.message;
    EXPECT_EQ(row.runs, 5u);
    EXPECT_TRUE(row.pct_of_roof);
  }
}
