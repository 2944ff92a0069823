// Plan types: JSON round trip, parsing failures, version and parameter resolution, structural validation.
#include <gtest/gtest.h>

#include "plan/plan_json.hpp"

using namespace kprof;
using namespace kprof::plan;

namespace {
KernelPlan sample_plan() {
  KernelPlan p;
  p.package = "gemm_bias_relu";
  p.version = "v1";
  p.kind = PlanKind::pipeline;
  p.params = {{"m", 256}, {"n", 128}, {"k", 64}};
  p.dtype = "bf16";
  StageSpec g{"gemm", 2.0 * 256 * 128 * 64, 2.0 * (256 * 64 + 64 * 128) + 4.0 * 256 * 128, "bf16", 0,
              {{{"bm", 64}, {"bn", 64}}, {{"bm", 128}, {"bn", 64}}}};
  StageSpec e{"bias_relu", 2.0 * 256 * 128, 6.0 * 256 * 128 + 512, "fp32", 0, {}};
  p.stages = {g, e};
  return p;
}

PackageInfo gemm_info() {
  return PackageInfo{"gemm", "C = A B", {{"v1", "naive"}, {"v2", "tiled"}, {"v3", "wmma"}},
                     {{"m", 4096, "rows"}, {"n", 4096, "cols"}, {"k", 4096, "depth"}}, "bf16"};
}
}  // namespace

TEST(PlanJson, PlanRoundTripKeepsEveryField) {
  auto p = sample_plan();
  std::string text = json(p).dump();
  auto back = plan_from_json(text);
  EXPECT_EQ(json(back), json(p));
  EXPECT_EQ(back.kind, PlanKind::pipeline);
  ASSERT_EQ(back.stages.size(), 2u);
  EXPECT_EQ(back.stages[0].tile_space.size(), 2u);
  EXPECT_EQ(back.stages[0].tile_space[1].at("bm"), 128);
  EXPECT_DOUBLE_EQ(back.stages[0].flops, 2.0 * 256 * 128 * 64);
  EXPECT_NE(text.find("\"kind\":\"pipeline\""), std::string::npos) << text;
}

TEST(PlanJson, PackageListRoundTrip) {
  std::vector<PackageInfo> pkgs{gemm_info()};
  auto back = packages_from_json(packages_to_json(pkgs));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(json(back[0]), json(pkgs[0]));
}

TEST(PlanJson, MalformedInputThrowsPlanError) {
  EXPECT_THROW(plan_from_json("{not json"), PlanError);
  EXPECT_THROW(packages_from_json("[{\"name\":\"x\",\"versions\":[]}]"), PlanError);
  EXPECT_THROW(packages_from_json("{\"packages\": 3}"), PlanError);
}

TEST(PlanJson, ValidationRejectsBrokenPlans) {
  auto p = sample_plan();
  EXPECT_NO_THROW(validate_plan(p));
  auto dup = p;
  dup.stages[1].name = "gemm";
  EXPECT_THROW(validate_plan(dup), PlanError);
  auto single = p;
  single.kind = PlanKind::single;
  EXPECT_THROW(validate_plan(single), PlanError);
  auto empty = p;
  empty.stages.clear();
  EXPECT_THROW(validate_plan(empty), PlanError);
  auto bad_tile = p;
  bad_tile.stages[0].tile_space[0]["bm"] = 0;
  EXPECT_THROW(validate_plan(bad_tile), PlanError);
}

TEST(PlanJson, VersionDefaultsToTheLatest) {
  auto info = gemm_info();
  ASSERT_NE(find_version(info, ""), nullptr);
  EXPECT_EQ(find_version(info, "")->name, "v3");
  EXPECT_EQ(find_version(info, "v1")->name, "v1");
  EXPECT_EQ(find_version(info, "v9"), nullptr);
  std::vector<PackageInfo> pkgs{info};
  EXPECT_NE(find_package(pkgs, "gemm"), nullptr);
  EXPECT_EQ(find_package(pkgs, "gemv"), nullptr);
}

TEST(PlanJson, ParamsFillDefaultsAndRejectUnknownNames) {
  auto info = gemm_info();
  ProblemParams given;
  given.set("m", "512");
  auto r = resolve_params(info, given);
  EXPECT_EQ(r.values.at("m"), 512);
  EXPECT_EQ(r.values.at("n"), 4096);
  EXPECT_EQ(r.dtype, "bf16");
  EXPECT_EQ(r.dir_name(), "k4096_m512_n4096_bf16");

  ProblemParams unknown;
  unknown.set("b", "2");
  try {
    resolve_params(info, unknown);
    FAIL() << "unknown parameter accepted";
  } catch (const PlanError& e) {
    EXPECT_NE(std::string(e.what()).find("m, n, k"), std::string::npos) << e.what();
  }
  ProblemParams zero;
  zero.set("k", "0");
  EXPECT_THROW(resolve_params(info, zero), PlanError);
  ProblemParams dtype;
  dtype.set("dtype", "fp8");
  EXPECT_THROW(resolve_params(info, dtype), PlanError);
}

TEST(PlanJson, ConfigLabelAndPackageListing) {
  EXPECT_EQ(config_label({{"bn", 64}, {"bm", 128}}), "bm128_bn64");
  EXPECT_EQ(config_label({}), "default");
  auto text = render_package_list({gemm_info()});
  EXPECT_NE(text.find("| gemm | v1 v2 v3* | m=4096 n=4096 k=4096 | bf16 |"), std::string::npos) << text;
  EXPECT_NE(text.find("gemm v2: tiled"), std::string::npos);
}
