#include <gtest/gtest.h>

#include "collect/stage_grouping.hpp"
#include "collect/trace/trace_launches.hpp"

using namespace kprof;

namespace {
KernelLaunch launch(int id, const std::string& fn, int grid, double dur, const std::string& range = "") {
  KernelLaunch k;
  k.id = id;
  k.name = fn + "(float *)";
  k.function = fn;
  k.launch.grid = {grid, 1, 1};
  k.launch.block = {256, 1, 1};
  k.duration_ns = dur;
  k.metrics["gpu__time_duration.sum"] = MetricValue{dur, "ns", "", true};
  if (!range.empty()) { k.nvtx_range = range; k.nvtx_stack = {range}; }
  return k;
}
}  // namespace

TEST(StageGrouping, OneStagePerFunctionWithoutNvtx) {
  auto stages = group_into_stages({launch(0, "a", 10, 5), launch(1, "b", 10, 7), launch(2, "a", 10, 3),
                                   launch(3, "a", 20, 9), launch(4, "a", 10, 4)});
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].name, "a");
  ASSERT_EQ(stages[0].kernels.size(), 2u);
  const KernelGroup& g = stages[0].kernels[0];
  EXPECT_EQ(g.label, "a [10x1x1]");  // "a" appears with two shapes in this stage
  EXPECT_EQ(stages[0].kernels[1].label, "a [20x1x1]");
  EXPECT_EQ(g.launches.size(), 3u);
  EXPECT_DOUBLE_EQ(g.duration_ns.median, 4);
  EXPECT_EQ(g.representative, 2);  // durations 5, 3, 4: the median launch is the third
  EXPECT_DOUBLE_EQ(*g.metrics.duration_ns, 4);
  EXPECT_EQ(stages[1].kernels[0].label, "b");
  EXPECT_DOUBLE_EQ(stages[0].total_duration_ns(), 3 * 4 + 9);
}

TEST(StageGrouping, InnermostNvtxRangeAndKernelNamedStagesForTheRest) {
  auto stages = group_into_stages({launch(0, "init", 4, 1), launch(1, "copy", 8, 2, "stage_copy"),
                                   launch(2, "fma", 8, 3, "stage_math"), launch(3, "gemm", 8, 4, "stage_math"),
                                   launch(4, "fma", 2, 5, "stage_conc"), launch(5, "fma", 2, 6, "stage_conc")});
  ASSERT_EQ(stages.size(), 4u);
  EXPECT_EQ(stages[0].name, "init");
  EXPECT_EQ(stages[1].name, "stage_copy");
  EXPECT_EQ(stages[2].name, "stage_math");
  ASSERT_EQ(stages[2].kernels.size(), 2u);
  EXPECT_EQ(stages[2].kernels[0].label, "fma");  // one shape in this stage: no suffix
  EXPECT_EQ(stages[3].kernels.size(), 1u);
  EXPECT_EQ(stages[3].kernels[0].launches.size(), 2u);
  EXPECT_EQ(stages[3].kernels[0].duration_ns.count, 2u);
}

// A launch that had the GPU to itself (no other kernel's interval meets it) counts toward the group's shortest lone
// launch; one sharing the GPU with another stream's kernel does not (it may have waited for SMs).
TEST(StageGrouping, TheShortestLaunchThatRanAloneIsKept) {
  auto at = [](KernelLaunch k, double start) {
    k.start_ns = start;
    return k;
  };
  auto stages = group_into_stages({at(launch(0, "a", 10, 10), 0), at(launch(1, "b", 10, 10), 5),
                                   at(launch(2, "a", 10, 30), 40), at(launch(3, "c", 10, 4), 100),
                                   at(launch(4, "c", 10, 2), 102)});
  ASSERT_EQ(stages.size(), 3u);
  const KernelGroup& a = stages[0].kernels[0];
  ASSERT_TRUE(a.alone_min_ns.has_value());
  EXPECT_DOUBLE_EQ(*a.alone_min_ns, 30);  // the 10-ns launch overlapped b
  EXPECT_FALSE(stages[1].kernels[0].alone_min_ns.has_value());  // b overlapped a
  EXPECT_FALSE(stages[2].kernels[0].alone_min_ns.has_value());  // c's two launches overlap each other
  // Untraced launches (no start) are never alone.
  EXPECT_FALSE(group_into_stages({launch(0, "a", 10, 10)})[0].kernels[0].alone_min_ns.has_value());
}

// A traced kernel's graph id rides on its launch, and the group counts the launches that ran as graph nodes (all of
// them, before the launch records are trimmed): three of four launches of "a" were a graph's nodes.
TEST(StageGrouping, GraphNodeLaunchesAreCounted) {
  std::vector<KernelLaunch> launches;
  for (int i = 0; i < 4; ++i) {
    KernelLaunch k = launch(i, "a", 10, 10);
    k.start_ns = 100.0 * i;
    k.graph_id = i < 3 ? 7 : 0;
    launches.push_back(k);
  }
  auto stages = group_into_stages(launches);
  ASSERT_EQ(stages.size(), 1u);
  const KernelGroup& g = stages[0].kernels[0];
  EXPECT_EQ(g.graph_node_launches, 3u);
  EXPECT_TRUE(g.graph_launched());
  launches[1].graph_id = launches[2].graph_id = 0;
  EXPECT_FALSE(group_into_stages(launches)[0].kernels[0].graph_launched());  // 1 of 4
  // From a trace: the kernel record's graph id.
  Trace trace;
  trace.strings = {"", "a"};
  TraceKernel k;
  k.name = k.function = 1;
  k.start_ns = 0, k.end_ns = 10, k.graph_id = 5;
  trace.kernels.push_back(k);
  ASSERT_EQ(kernel_launches(trace).size(), 1u);
  EXPECT_EQ(kernel_launches(trace)[0].graph_id, 5u);
}

TEST(StageGrouping, EmptyInput) { EXPECT_TRUE(group_into_stages({}).empty()); }

// Issue 25: two instantiations of one template at one shape are two groups, named by what tells them apart, when
// the collector knows only their printed names (an ncu CSV import) as when it knows their mangled names (a trace).
namespace {
KernelLaunch instantiation(int id, const std::string& functor, const std::string& mangled, double dur) {
  KernelLaunch k = launch(id, "vectorized_elementwise_kernel", 65536, dur);
  k.name = "void at::native::vectorized_elementwise_kernel<4, at::native::" + functor +
           ", std::array<char *, 2>>(int, T2, T3)";
  k.mangled = mangled;
  return k;
}
}  // namespace

TEST(StageGrouping, InstantiationsOfOneShapeAreTwoGroupsNamedByTheirTemplateArguments) {
  for (bool with_mangled : {false, true}) {
    auto stages = group_into_stages({instantiation(0, "CUDAFunctor_add<float>", with_mangled ? "_Zadd" : "", 182),
                                     instantiation(1, "AbsFunctor<float>", with_mangled ? "_Zabs" : "", 124),
                                     instantiation(2, "CUDAFunctor_add<float>", with_mangled ? "_Zadd" : "", 180)});
    ASSERT_EQ(stages.size(), 1u);
    ASSERT_EQ(stages[0].kernels.size(), 2u) << with_mangled;
    EXPECT_EQ(stages[0].kernels[0].label, "vectorized_elementwise_kernel<…,CUDAFunctor_add<float>,…>");
    EXPECT_EQ(stages[0].kernels[1].label, "vectorized_elementwise_kernel<…,AbsFunctor<float>,…>");
    EXPECT_EQ(stages[0].kernels[0].duration_ns.count, 2u);
    EXPECT_DOUBLE_EQ(stages[0].kernels[1].duration_ns.median, 124);
  }
}

TEST(StageGrouping, OverloadsThatDifferOnlyInParametersAreNumbered) {
  KernelLaunch a = launch(0, "k", 8, 1), b = launch(1, "k", 8, 2);
  b.name = "k(double *)";
  auto stages = group_into_stages({a, b});
  ASSERT_EQ(stages[0].kernels.size(), 2u);
  EXPECT_EQ(stages[0].kernels[0].label, "k #1");
  EXPECT_EQ(stages[0].kernels[1].label, "k #2");
}

// Nested ranges: three or more numbered siblings under one parent are one stage named with the parent (two cases
// with layer0..layer3 each stay apart, no "layer0" shared between them); a name two paths end in is qualified by
// its parent; two numbered siblings stay apart; a library's range below the stage's (CUB's) does not name it.
TEST(StageGrouping, NestedRangesRollNumberedSiblingsUpAndQualifySharedNames) {
  std::vector<KernelLaunch> ls;
  auto nested = [&](const std::string& fn, std::vector<std::string> stack, const std::string& range) {
    KernelLaunch l = launch(static_cast<int>(ls.size()), fn, 8, 2);
    l.nvtx_stack = std::move(stack);
    l.nvtx_range = range;
    ls.push_back(std::move(l));
  };
  for (int i = 0; i < 4; ++i) {
    const std::string layer = "layer" + std::to_string(i);
    nested("gemm", {"mlp_bwd", layer}, layer);
    nested("cat", {"kv_cache", layer}, layer);
  }
  nested("attn", {"fwd", "attn"}, "attn");
  nested("attn_bwd", {"bwd", "attn"}, "attn");
  nested("norm", {"step", "norm"}, "norm");
  nested("a", {"pair", "part1"}, "part1");
  nested("b", {"pair", "part2"}, "part2");
  nested("sort", {"sort_case", "cub::DeviceRadixSort"}, "sort_case");
  for (const char* top : {"gemm1", "gemm2", "gemm3"}) nested("g", {top}, top);  // a program's own top-level stages
  for (const char* p : {"fp8", "fp16", "fp32"}) nested("cast", {"casts", p}, p);  // numbers, not a run
  std::vector<std::string> names;
  for (const auto& st : group_into_stages(ls)) names.push_back(st.name);
  EXPECT_EQ(names, (std::vector<std::string>{"mlp_bwd/layer*", "kv_cache/layer*", "fwd/attn", "bwd/attn", "norm",
                                             "part1", "part2", "sort_case", "gemm1", "gemm2", "gemm3", "fp8", "fp16",
                                             "fp32"}));
  // The counters' launches, which carry their own stacks, are placed in these stages by the same names.
  EXPECT_TRUE(launch_in_stage(ls[0], "mlp_bwd/layer*"));
  EXPECT_FALSE(launch_in_stage(ls[1], "mlp_bwd/layer*"));  // kv_cache's layer0
  EXPECT_TRUE(launch_in_stage(ls[8], "fwd/attn"));
  EXPECT_FALSE(launch_in_stage(ls[9], "fwd/attn"));        // bwd's attn
  EXPECT_TRUE(launch_in_stage(ls[10], "norm"));
  EXPECT_TRUE(launch_in_stage(ls[13], "sort_case"));
  KernelLaunch autograd = launch(99, "k", 8, 1);           // no range of its own
  EXPECT_FALSE(launch_in_stage(autograd, "mlp_bwd/layer*"));
  auto stages = group_into_stages(ls);
  EXPECT_EQ(stages[0].kernels.size(), 1u);
  EXPECT_EQ(stages[0].kernels[0].launches.size(), 4u);  // the four layers' gemm launches, one group
}
