#include <gtest/gtest.h>

#include <limits>

#include "model/device_spec.hpp"
#include "model/profile.hpp"

using namespace kprof;

TEST(ProblemParams, DirNameIsCanonicalAndSorted) {
  ProblemParams p;
  p.set("t", "4096");
  p.set("b", "32");
  p.set("s", "16");
  p.set("dtype", "bf16");
  EXPECT_EQ(p.dir_name(), "b32_s16_t4096_bf16");
  EXPECT_EQ(ProblemParams{}.dir_name(), "default");
}

TEST(ProblemParams, RejectsBadValues) {
  ProblemParams p;
  EXPECT_THROW(p.set("b", "3x"), std::invalid_argument);
  EXPECT_THROW(p.set("b", "-1"), std::invalid_argument);
  EXPECT_THROW(p.set("../b", "1"), std::invalid_argument);
  EXPECT_THROW(p.set("dtype", "bf/16"), std::invalid_argument);
}

TEST(SampleStats, QuantilesByInterpolation) {
  auto s = SampleStats::of({5, 1, 4, 2, 3});
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_NEAR(s.stdev, 1.5811388, 1e-6);
}

TEST(ProfileRun, JsonRoundTripIsLossless) {
  ProfileRun run;
  run.mode = Mode::Import;
  run.kernel = "kernels";
  run.params.set("b", "32");
  run.params.dtype = "bf16";
  run.device.name = "NVIDIA H200";
  Stage st;
  st.name = "stage_fma";
  KernelGroup g;
  g.kernel = "fma_loop";
  KernelLaunch l;
  l.id = 6;
  l.name = "fma_loop(float *, int)";
  l.duration_ns = 1026528.0;
  l.metrics["gpu__time_duration.sum"] = MetricValue{1026528.0, "ns", "", true};
  l.rules.push_back(RuleResult{"Occupancy", "AchievedOccupancy", "OPT", "text, with \"quotes\"", "local", 42.48});
  g.launches.push_back(l);
  g.metrics.duration_ns = 1026528.0;
  g.metrics.flops_fp32 = 0.1 + 0.2;  // not exactly representable: must still round-trip
  g.metrics.unavailable = {"tensor_pipe_pct"};
  KernelAnalysis a;
  a.bottleneck.kind = BottleneckKind::compute;
  a.opportunities.push_back(Opportunity{"Raise occupancy", "occupancy", 12.5, 40.0, 5.0, "achieved_occupancy_pct", 57.5,
                                        "x=57.5%", "r", "kprof"});
  g.analysis = a;
  st.kernels.push_back(g);
  run.stages.push_back(st);

  json j = run;
  ProfileRun back = j.get<ProfileRun>();
  EXPECT_EQ(json(back).dump(), j.dump());
  EXPECT_EQ(back.stages[0].kernels[0].metrics.flops_fp32, 0.1 + 0.2);
  EXPECT_FALSE(back.stages[0].kernels[0].metrics.tensor_pipe_pct.has_value());
  EXPECT_EQ(back.stages[0].kernels[0].analysis->bottleneck.kind, BottleneckKind::compute);
}

// Integers read from JSON: nlohmann's own conversion casts, which is undefined for a float out of range (1e69 into
// an int, found by fuzz_devices) and wraps an integer. json_support.hpp range-checks every integer read.
TEST(JsonSupport, IntegerReadsAreRangeChecked) {
  EXPECT_EQ(json(132).get<int>(), 132);
  EXPECT_EQ(json(132.0).get<int>(), 132);  // an integral float is an integer
  EXPECT_EQ(json(-5).get<std::int64_t>(), -5);
  EXPECT_EQ(json(std::numeric_limits<std::uint64_t>::max()).get<std::uint64_t>(),
            std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(json(-2147483648LL).get<int>(), std::numeric_limits<int>::min());
  EXPECT_THROW(json(1e69).get<int>(), json::exception);
  EXPECT_THROW(json(2147483648.0).get<int>(), json::exception);
  EXPECT_THROW(json(2147483648LL).get<int>(), json::exception);
  EXPECT_THROW(json(-1).get<std::uint32_t>(), json::exception);
  EXPECT_THROW(json(18446744073709551615ULL).get<std::int64_t>(), json::exception);
  EXPECT_THROW(json(1.5).get<int>(), json::exception);
  EXPECT_THROW(json(1.8446744073709552e19).get<std::uint64_t>(), json::exception);  // 2^64
  try {
    (void)json::parse(R"({"sm_count": 1e69})").get<DeviceSpec>();
    FAIL() << "expected an exception";
  } catch (const json::exception& e) {
    EXPECT_NE(std::string(e.what()).find("1e+69 is not a signed 32-bit integer"), std::string::npos) << e.what();
  }
  // Containers and optionals of integers go through the same check; doubles and bools do not.
  EXPECT_THROW(json::parse("[1, 2, 3e10]").get<std::vector<int>>(), json::exception);
  EXPECT_THROW(json::parse("3e10").get<std::optional<int>>(), json::exception);
  EXPECT_DOUBLE_EQ(json(1e69).get<double>(), 1e69);
  EXPECT_TRUE(json(true).get<bool>());
}

#include "collect/kernel_name.hpp"

TEST(KernelName, DistinguishingNamesShowOnlyWhatDiffers) {
  using kprof::distinguishing_names;
  // PyTorch's normal() for float and bf16: the instantiations differ deep inside a lambda's template arguments.
  auto n = distinguishing_names(
      {"void at::<unnamed>::dist_kernel<float, 4, void templates::normal_and_transform<float, float, G *>(I &)"
       "::[lambda(curandState *) (instance 2)]>(long, T3)",
       "void at::<unnamed>::dist_kernel<float, 4, void templates::normal_and_transform<c10::BFloat16, float, G *>(I &)"
       "::[lambda(curandState *) (instance 2)]>(long, T3)"});
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[0], "dist_kernel<…,normal_and_transform<float,…>>");
  EXPECT_EQ(n[1], "dist_kernel<…,normal_and_transform<BFloat16,…>>");
  // Two arguments needed to tell three apart; the first alone is enough for two.
  n = distinguishing_names({"r<A, X, 1>(int)", "r<B, X, 1>(int)", "r<A, X, 2>(int)"});
  EXPECT_EQ(n[0], "r<A,…,1>");
  EXPECT_EQ(n[1], "r<B,…,1>");
  EXPECT_EQ(n[2], "r<A,…,2>");
  EXPECT_EQ(distinguishing_names({"k(float *)", "k(double *)"}), (std::vector<std::string>{"k", "k"}));
  // ncu's "unnamed>::" (the '<' of "<unnamed>" lost) unbalanced the brackets: every name came back whole.
  n = distinguishing_names({"void v<4, unnamed>::CompareFunctor<float>, std::array<char *, 3>>(int, T2, T3)",
                            "void v<4, AbsFunctor<float>, std::array<char *, 2>>(int, T2, T3)"});
  EXPECT_EQ(n[0], "v<…,CompareFunctor<float>,…>");
  EXPECT_EQ(n[1], "v<…,AbsFunctor<float>,…>");
  EXPECT_EQ(kprof::instantiation_key("void unnamed>::k<unnamed>::Tile<64, 32>, 1>(unnamed>::Params)"),
            kprof::instantiation_key("void (anonymous namespace)::k<(anonymous namespace)::Tile<64, 32>, 1>(P)"));
}
