// `kprof list` and `kprof <package>`: resolution, usage errors and the commands a run would make, against a fake
// kprof-kernels (a shell script) so no GPU or CUDA build is needed; plus the real kprof-kernels' list/describe
// when it was built (they need no GPU). Profiling a package needs a GPU and is skipped here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "session/assemble.hpp"
#include "plan/plan_json.hpp"
#include "support/fake_kernels.hpp"
#include "support/shell.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using namespace kprof;

namespace {
using Result = test::ShellResult;

fs::path scratch() { return test::scratch_dir("plan_cli"); }

Result sh(const std::string& cmd) { return test::run_shell(cmd, scratch()); }

// The fake kprof-kernels (support/fake_kernels.hpp) with a fixed list, one plan for every gemm version, and a
// `run` that exits with $FAKE_RUN_RC.
std::string fake_kernels() {
  static const std::string path = [] {
    static kprof::testing::FakeKernels fake(scratch() / "fake");
    plan::PackageInfo gemm{"gemm", "C = A B", {{"v1", "naive"}, {"v2", "tiled"}, {"v3", "wmma"}},
                           {{"m", 4096, ""}, {"n", 4096, ""}, {"k", 4096, ""}}, "bf16"};
    plan::PackageInfo ov{"overlap", "two streams", {{"v1", "serial"}, {"v2", "concurrent"}},
                         {{"n", 1024, ""}, {"iters", 8, ""}}, "fp32"};
    plan::KernelPlan kp;
    kp.package = "gemm";
    kp.version = "v3";
    kp.params = {{"m", 512}, {"n", 4096}, {"k", 4096}};
    kp.dtype = "bf16";
    kp.stages = {{"gemm", 2.0 * 512 * 4096 * 4096, 1e6, "bf16", 0, {{{"bm", 64}}, {{"bm", 128}}}}};
    fake.set_packages({gemm, ov});
    fake.set_plan(kp, true);
    return fake.path();
  }();
  return path;
}

Result kprof_with_fake(const std::string& args, const std::string& env = "") {
  // KPROF_ASSUME_GPU=1: the fake runs anywhere, so the no-GPU check (exit 4) is skipped.
  return sh(env + " KPROF_ASSUME_GPU=1 KPROF_KERNELS=" + fake_kernels() + " " + KPROF_BINARY + " " + args);
}
}  // namespace

TEST(PlanCli, ListPrintsPackagesVersionsAndParams) {
  auto r = kprof_with_fake("list");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| gemm | v1 v2 v3* | m=4096 n=4096 k=4096 | bf16 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| overlap | v1 v2* |"), std::string::npos) << r.out;
  auto j = kprof_with_fake("list --json");
  ASSERT_EQ(j.code, 0);
  EXPECT_EQ(plan::packages_from_json(j.out).size(), 2u);
}

TEST(PlanCli, UnknownPackageExits2WithTheList) {
  auto r = kprof_with_fake("gemv --m=4");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown subcommand or package 'gemv'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("| gemm |"), std::string::npos) << r.err;
}

TEST(PlanCli, UnknownVersionOrParameterExits2) {
  auto v = kprof_with_fake("gemm v7");
  EXPECT_EQ(v.code, 2);
  EXPECT_NE(v.err.find("gemm has no version 'v7'"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("v2: tiled"), std::string::npos) << v.err;
  auto p = kprof_with_fake("gemm --b=3 --dry-run");
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("no parameter --b"), std::string::npos) << p.err;
  auto t = kprof_with_fake("gemm --prof_type=fast --dry-run");
  EXPECT_EQ(t.code, 2);
}

TEST(PlanCli, ExistingSubcommandsStillParse) {
  auto r = kprof_with_fake("devices");
  EXPECT_EQ(r.code, 0) << r.err;
  auto h = kprof_with_fake("--help");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("list"), std::string::npos);
}

TEST(PlanCli, DryRunShowsTuningAndTheProfiledPlanRun) {
  auto out = scratch() / "dry";
  auto r = kprof_with_fake("gemm --m=512 --prof_type=event --bench_runs 7 --dry-run --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  // version defaults to the latest; params are resolved (defaults filled in) and passed on
  EXPECT_NE(r.out.find("check and tune: " + fake_kernels() + " run gemm v3 --k=4096 --m=512 --n=4096 --out " +
                       out.string() + " --runs 0 --tune"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("run gemm v3 --k=4096 --m=512 --n=4096 --out " + out.string() + " --no-check --no-tune --runs 7"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("gemm v3 (single plan, k4096_m512_n4096_bf16): gemm 17.18 GFLOP"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(2 configs to tune)"), std::string::npos) << r.err;
  auto re = kprof_with_fake("gemm v1 --retune --dry-run --out " + out.string());
  ASSERT_EQ(re.code, 0) << re.err;
  EXPECT_NE(re.out.find("run gemm v1 --k=4096 --m=4096 --n=4096 --out " + out.string() + " --runs 0 --retune"),
            std::string::npos)
      << re.out;
}

TEST(PlanCli, WrongResultInTheCheckStopsBeforeProfiling) {
  auto r = kprof_with_fake("gemm v2 --prof_type=event --out " + (scratch() / "wrong").string(), "FAKE_RUN_RC=3");
  EXPECT_EQ(r.code, 7);
  EXPECT_NE(r.err.find("wrong result"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was profiled"), std::string::npos) << r.err;
}

TEST(PlanCli, MissingKernelsBinaryIsExit5) {
  auto r = sh("KPROF_KERNELS=/nonexistent/kprof-kernels " + std::string(KPROF_BINARY) + " list");
  EXPECT_NE(r.code, 0);
  auto q = sh("KPROF_KERNELS=" + (scratch() / "absent").string() + " " + KPROF_BINARY + " gemm --dry-run");
  EXPECT_NE(q.code, 0);
}

TEST(PlanCli, DeclaredStagesAreAttachedByName) {
  ProfileRun run;
  run.stages.resize(2);
  run.stages[0].name = "gemm";
  run.stages[1].name = "bias_relu";
  std::map<std::string, DeclaredWork> d{{"gemm", {1e9, 2e6, "bf16"}}, {"missing", {1.0, 1.0, "fp32"}}};
  session::apply_declared_stages(run, d);
  ASSERT_TRUE(run.stages[0].declared.flops);
  EXPECT_DOUBLE_EQ(*run.stages[0].declared.flops, 1e9);
  EXPECT_EQ(run.stages[0].declared.precision, "bf16");
  EXPECT_FALSE(run.stages[1].declared.flops);
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_NE(run.warnings[0].text.find("'missing'"), std::string::npos);
}

// The real kprof-kernels (built with CUDA): list and describe run on the host only.
TEST(PlanCli, RealKernelsBinaryListsAndDescribesWithoutAGpu) {
  fs::path bin = fs::path(KPROF_BINARY).parent_path() / "kprof-kernels";
  if (!fs::exists(bin)) GTEST_SKIP() << "kprof-kernels not built (no CUDA toolkit at configure time)";
  auto l = sh(bin.string() + " list");
  ASSERT_EQ(l.code, 0) << l.err;
  auto pkgs = plan::packages_from_json(l.out);
  for (auto name : {"gemm", "gemm_bias_relu", "overlap"}) EXPECT_NE(plan::find_package(pkgs, name), nullptr) << name;
  EXPECT_EQ(plan::find_version(*plan::find_package(pkgs, "gemm"), "")->name, "v3");

  auto d = sh(bin.string() + " describe gemm v3 --m=128 --n=64 --k=32");
  ASSERT_EQ(d.code, 0) << d.err;
  auto p = plan::plan_from_json(d.out);
  EXPECT_EQ(p.kind, plan::PlanKind::single);
  ASSERT_EQ(p.stages.size(), 1u);
  EXPECT_DOUBLE_EQ(p.stages[0].flops, 2.0 * 128 * 64 * 32);
  EXPECT_DOUBLE_EQ(p.stages[0].min_bytes, 2.0 * (128 * 32 + 32 * 64) + 4.0 * 128 * 64);
  EXPECT_EQ(p.stages[0].tile_space.size(), 6u);

  auto pipe = plan::plan_from_json(sh(bin.string() + " describe gemm_bias_relu --m=64 --n=64 --k=64").out);
  EXPECT_EQ(pipe.kind, plan::PlanKind::pipeline);
  ASSERT_EQ(pipe.stages.size(), 2u);
  EXPECT_EQ(pipe.stages[1].name, "bias_relu");
  auto conc = plan::plan_from_json(sh(bin.string() + " describe overlap v2").out);
  EXPECT_EQ(conc.kind, plan::PlanKind::concurrent);
  EXPECT_EQ(conc.stages[1].stream, 1);

  EXPECT_EQ(sh(bin.string() + " describe gemm v9").code, 2);
  EXPECT_EQ(sh(bin.string() + " describe gemm --q=1").code, 2);
  EXPECT_EQ(sh(bin.string() + " run nosuch").code, 2);
  auto k = sh("KPROF_KERNELS= " + std::string(KPROF_BINARY) + " gemm v1 --m=256 --dry-run --prof_type=event --out " +
              (scratch() / "real").string());
  ASSERT_EQ(k.code, 0) << k.err;
  EXPECT_NE(k.out.find("kprof-kernels run gemm v1 --k=4096 --m=256 --n=4096"), std::string::npos) << k.out;
}

TEST(PlanCli, ProfilingAPackageNeedsAGpu) {
  if (std::system("nvidia-smi -L >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no GPU here: `kprof gemm v3 --m=512 --n=512 --k=512 --prof_type=event` runs on a GPU machine";
  fs::path bin = fs::path(KPROF_BINARY).parent_path() / "kprof-kernels";
  if (!fs::exists(bin)) GTEST_SKIP() << "kprof-kernels not built";
  auto out = scratch() / "gpu";
  auto r = sh(std::string(KPROF_BINARY) + " gemm v3 --m=512 --n=512 --k=512 --bench_runs 3 --prof_type=event --cache-dir " +
              (scratch() / "cache").string() + " --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  for (auto f : {"plan.json", "timings.json", "tiling/gemm.json", "tiling/gemm/autotuning.json",
                 "compiled/gemm/resources.json", "profile.json"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
}
