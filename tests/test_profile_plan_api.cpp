// The C++ API (api/profile_plan.hpp) against a fake kprof-kernels (support/fake_kernels.hpp): the version
// override, the parameters passed on, each function's mode, the artifact it returns, and the errors a caller gets.
// Event mode runs the fake as the profiled program (it launches nothing, so the profile has no kernels); a real
// profile needs a GPU and is skipped here.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include "api/profile_plan.hpp"
#include "session/kernels_binary.hpp"
#include "support/fake_kernels.hpp"
#include "util/errors.hpp"

namespace fs = std::filesystem;
using namespace kprof;

namespace {

fs::path scratch() {
  auto d = fs::temp_directory_path() / ("kprof_api_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

const plan::PackageInfo kGemm{"gemm", "C = A B", {{"v1", "naive"}, {"v2", "tiled"}, {"v3", "wmma"}},
                              {{"m", 4096, ""}, {"n", 4096, ""}, {"k", 4096, ""}}, "bf16"};

plan::KernelPlan plan_for(const std::string& version) {
  plan::KernelPlan p;
  p.package = "gemm";
  p.version = version;
  p.params = {{"m", 512}, {"n", 256}, {"k", 128}};
  p.dtype = "bf16";
  p.stages = {{"gemm", 2.0 * 512 * 256 * 128, 2.0 * (512 * 128 + 128 * 256) + 4.0 * 512 * 256, "bf16", 0, {}}};
  return p;
}

kprof::testing::FakeKernels& fake() {
  static kprof::testing::FakeKernels f(scratch() / "fake");
  static bool init = [] {
    f.set_packages({kGemm});
    for (auto v : {"v1", "v2", "v3"}) f.set_plan(plan_for(v));
    // The profiled run needs the CUPTI tracer's path only to set it in the program's environment; the fake
    // ignores it, so the test does not depend on a CUDA build.
    ::setenv("KPROF_INJECT_LIB", "/nonexistent/libkprof_inject.so", 1);
    ::setenv("KPROF_ASSUME_GPU", "1", 1);  // the fake runs anywhere: skip the no-GPU check (exit 4)
    return true;
  }();
  (void)init;
  return f;
}

api::ProfilePlanSettings settings() {
  api::ProfilePlanSettings s;
  s.kernels = fake().path();
  s.cache_dir = (scratch() / "cache").string();
  s.no_wait = false;
  return s;
}

std::vector<std::string> new_calls(std::size_t before) {
  auto c = fake().calls();
  return {c.begin() + static_cast<long>(before), c.end()};
}

template <class F>
Error error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no kprof::Error thrown";
  return Error("none", 0);
}

}  // namespace

TEST(ProfilePlanApi, AGivenVersionOverridesThePlansAndKeepsItsParameters) {
  auto& f = fake();
  const auto before = f.calls().size();
  auto root = scratch() / "override";
  auto r = api::event_profile_plan(plan_for("v1"), root, "v2", 3, settings());
  EXPECT_TRUE(r.ok()) << r.exit_code;
  EXPECT_EQ(r.mode, Mode::Event);
  EXPECT_EQ(r.package, "gemm");
  EXPECT_EQ(r.version, "v2");
  EXPECT_EQ(r.params.values, plan_for("v1").params);
  EXPECT_EQ(r.params.dtype, "bf16");

  // The artifact sits in the tree under the given root, and kprof-kernels was told to write into it.
  EXPECT_EQ(r.artifact_dir.parent_path(), root / "event" / "gemm" / "k128_m512_n256_bf16");
  // It wrote into the artifact's staging directory (.<name>.partial-<pid>-<n>, renamed into place at the end).
  const std::string common = "gemm v2 --k=128 --m=512 --n=256 --out " +
                             (r.artifact_dir.parent_path() / ("." + r.artifact_dir.filename().string() + ".partial-"))
                                 .string();
  const std::string cache = " --cache-dir " + (scratch() / "cache").string();
  auto calls = new_calls(before);
  auto has_call = [&](const std::string& tail) {
    return std::any_of(calls.begin(), calls.end(), [&](const std::string& c) {
      return c.rfind("run " + common, 0) == 0 && c.size() > tail.size() && c.substr(c.size() - tail.size()) == tail;
    });
  };
  EXPECT_NE(std::find(calls.begin(), calls.end(), "describe gemm v2 --k=128 --m=512 --n=256"), calls.end());
  EXPECT_TRUE(has_call(cache + " --runs 0 --tune"));  // check+tune
  EXPECT_TRUE(has_call(cache + " --no-check --no-tune --runs 3"));
  EXPECT_FALSE(fs::exists(r.artifact_dir.parent_path() / ("." + r.artifact_dir.filename().string() + ".partial-")));
  for (const auto& c : calls) EXPECT_EQ(c.find(" v1"), std::string::npos) << c;

  // The profile was written and read back.
  ASSERT_TRUE(r.run);
  EXPECT_EQ(r.run->kernel, "gemm");
  EXPECT_EQ(r.run->version, "v2");
  EXPECT_EQ(r.run->mode, Mode::Event);
  EXPECT_TRUE(fs::exists(r.artifact_dir / "profile.json"));
}

TEST(ProfilePlanApi, WithoutAVersionThePlansOwnIsProfiledAndAnEmptyOneMeansTheLatest) {
  auto s = settings();
  s.dry_run = true;
  auto own = api::event_profile_plan(plan_for("v1"), scratch() / "own", "", 5, s);
  EXPECT_EQ(own.version, "v1");
  auto latest = api::event_profile_plan(plan_for(""), scratch() / "own", "", 5, s);
  EXPECT_EQ(latest.version, "v3");
  EXPECT_FALSE(latest.run);  // a dry run writes nothing
}

TEST(ProfilePlanApi, EachFunctionProfilesInItsMode) {
  auto s = settings();
  s.dry_run = true;
  auto root = scratch() / "modes";
  auto p = plan_for("v3");
  std::vector<std::pair<std::string, api::ProfilePlanResult>> got{
      {"annotation", api::annotation_profile_plan(p, root, "", 2, s)},
      {"event", api::event_profile_plan(p, root, "", 2, s)},
      {"ncu", api::ncu_profile_plan(p, root, "", 2, s)},
      {"nsys", api::nsys_profile_plan(p, root, "", 2, s)}};
  for (const auto& [mode, r] : got) {
    EXPECT_EQ(mode_name(r.mode), mode);
    EXPECT_EQ(r.artifact_dir.parent_path().parent_path().parent_path(), root / mode) << r.artifact_dir;
  }
  s.exact_dir = (scratch() / "exact").string();
  EXPECT_EQ(api::nsys_profile_plan(p, root, "", 2, s).artifact_dir, scratch() / "exact");
  EXPECT_EQ(error_of([&] { api::profile_plan("fast", p, root, "", 2, s); }).exit_code(), kExitUsage);
}

TEST(ProfilePlanApi, TheCounterSourceReachesTheRun) {
  auto s = settings();
  s.dry_run = true;
  s.counters = "cupti";
  EXPECT_EQ(api::annotation_profile_plan(plan_for("v2"), scratch() / "cupti", "", 2, s).exit_code, 0);
  s.counters = "nsight";  // not a counter source: the run's own check says so
  EXPECT_EQ(error_of([&] { api::annotation_profile_plan(plan_for("v2"), scratch() / "cupti", "", 2, s); }).exit_code(),
            kExitUsage);
}

TEST(ProfilePlanApi, MistakesThrowErrorsThatSayWhat) {
  auto s = settings();
  auto root = scratch() / "errors";
  auto v = error_of([&] { api::event_profile_plan(plan_for("v1"), root, "v9", 3, s); });
  EXPECT_EQ(v.exit_code(), kExitUsage);
  EXPECT_NE(std::string(v.what()).find("gemm has no version 'v9'"), std::string::npos) << v.what();
  EXPECT_NE(std::string(v.what()).find("v2: tiled"), std::string::npos) << v.what();

  auto other = plan_for("v1");
  other.package = "gemv";
  try {
    api::event_profile_plan(other, root, "", 3, s);
    ADD_FAILURE() << "unknown package accepted";
  } catch (const session::UnknownPackageError& e) {
    EXPECT_EQ(e.package(), "gemv");
    EXPECT_EQ(e.exit_code(), kExitUsage);
    EXPECT_NE(std::string(e.what()).find("| gemm |"), std::string::npos) << e.what();
  }

  auto param = plan_for("v1");
  param.params["q"] = 3;
  auto pe = error_of([&] { api::event_profile_plan(param, root, "", 3, s); });
  EXPECT_EQ(pe.exit_code(), kExitUsage);
  EXPECT_NE(std::string(pe.what()).find("--q"), std::string::npos) << pe.what();

  auto nameless = plan_for("v1");
  nameless.package.clear();
  EXPECT_EQ(error_of([&] { api::event_profile_plan(nameless, root, "", 3, s); }).exit_code(), kExitUsage);
  EXPECT_EQ(error_of([&] { api::event_profile_plan(plan_for("v1"), root, "", 0, s); }).exit_code(), kExitUsage);

  auto missing = s;
  missing.kernels = (scratch() / "absent" / "kprof-kernels").string();
  EXPECT_EQ(error_of([&] { api::event_profile_plan(plan_for("v1"), root, "", 3, missing); }).exit_code(), kExitNoTool);
}

TEST(ProfilePlanApi, AWrongVersionIsNotProfiled) {
  auto& f = fake();
  f.set_run("gemm", "v2", 3);
  const auto before = f.calls().size();
  auto e = error_of([&] { api::annotation_profile_plan(plan_for("v1"), scratch() / "wrong", "v2", 3, settings()); });
  f.set_run("gemm", "v2", 0);
  EXPECT_EQ(e.exit_code(), kExitProgramFailed);
  EXPECT_NE(std::string(e.what()).find("wrong result"), std::string::npos) << e.what();
  for (const auto& c : new_calls(before)) EXPECT_EQ(c.find("--no-check"), std::string::npos) << c;
}

TEST(ProfilePlanApi, DescribePlanGivesThePlanOfAVersion) {
  auto p = api::describe_plan("gemm", "v2", {{"m", 512}}, fake().path());
  EXPECT_EQ(p.package, "gemm");
  EXPECT_EQ(p.version, "v2");
  ASSERT_EQ(p.stages.size(), 1u);
  auto calls = fake().calls();
  EXPECT_EQ(calls.back(), "describe gemm v2 --k=4096 --m=512 --n=4096");
  EXPECT_EQ(error_of([] { api::describe_plan("gemm", "v0", {}, fake().path()); }).exit_code(), kExitUsage);
}

TEST(ProfilePlanApi, ARealProfileNeedsAGpu) {
  if (std::system("nvidia-smi -L >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no GPU here: api::event_profile_plan on the real kprof-kernels runs on a GPU machine";
  fs::path bin = fs::path(KPROF_BINARY).parent_path() / "kprof-kernels";
  if (!fs::exists(bin)) GTEST_SKIP() << "kprof-kernels not built";
  ::unsetenv("KPROF_INJECT_LIB");
  api::ProfilePlanSettings s;
  s.kernels = bin.string();
  s.cache_dir = (scratch() / "gpu-cache").string();
  auto p = api::describe_plan("gemm", "v1", {{"m", 256}, {"n", 256}, {"k", 256}}, bin.string());
  auto r = api::event_profile_plan(p, scratch() / "gpu", "v3", 3, s);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r.run);
  EXPECT_EQ(r.run->version, "v3");
  EXPECT_FALSE(r.run->stages.empty());
}
