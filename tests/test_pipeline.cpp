// End-to-end pieces the lead owns: counters joined to traced launches, trimmed launch lists, the annotation-mode
// H200 capture through import + analysis, and stage display names.
#include <gtest/gtest.h>

#include "analyze/analyze_run.hpp"
#include "analyze/classify.hpp"
#include "analyze/device_db.hpp"
#include "analyze/thresholds.hpp"
#include "analyze_probe_metrics.hpp"
#include "collect/kernel_name.hpp"
#include "collect/merge_counters.hpp"
#include "collect/ncu/ncu_import.hpp"
#include "collect/stage_grouping.hpp"
#include "render/contract_view.hpp"
#include "render/report_markdown.hpp"

using namespace kprof;

namespace {
KernelLaunch traced(const std::string& fn, int grid, double ns, const std::string& range = "") {
  KernelLaunch l;
  l.name = fn + "(float*)";
  l.function = fn;
  l.launch.grid = {grid, 1, 1};
  l.launch.block = {256, 1, 1};
  l.duration_ns = ns;
  l.nvtx_range = range;
  return l;
}
const std::string kAnnotation = std::string(KPROF_FIXTURES) + "/h200-annotation/annotation_first_raw.csv";
}  // namespace

TEST(StageGrouping, KeepsEveryDurationButTrimsLaunchRecords) {
  std::vector<KernelLaunch> ls;
  for (int i = 0; i < 20; ++i) ls.push_back(traced("tiny", 1, 1000.0 + i));  // 1000..1019 ns
  auto stages = group_into_stages(ls);
  ASSERT_EQ(stages.size(), 1u);
  const auto& g = stages[0].kernels[0];
  EXPECT_EQ(g.samples_ns.size(), 20u);
  EXPECT_EQ(g.duration_ns.count, 20u);
  EXPECT_DOUBLE_EQ(g.duration_ns.median, 1009.5);
  EXPECT_EQ(g.launches.size(), 8u);
  // The representative (closest to the median: 1009 or 1010) survives the trim and is what the index names.
  double rep = *g.launches[g.representative].duration_ns;
  EXPECT_TRUE(rep == 1009.0 || rep == 1010.0) << rep;
}

TEST(MergeCounters, SameShapeCountersAttachAndOtherShapesStayDurationOnly) {
  // Real counters: the annotation-mode capture profiled the first launch of each kernel (fma_loop: 1056 blocks).
  auto imported = ncu::import_ncu({kAnnotation});
  std::vector<KernelLaunch> ncu_launches;
  for (auto& s : imported.run.stages)
    for (auto& g : s.kernels)
      for (auto& l : g.launches) ncu_launches.push_back(l);
  auto stages = group_into_stages(std::vector<KernelLaunch>{traced("fma_loop", 1056, 1030000.0, "stage_fma"),
                                                            traced("fma_loop", 66, 1300000.0, "stage_concurrent")});
  auto warnings = attach_counters(stages, ncu_launches);
  ASSERT_EQ(stages.size(), 2u);
  const auto& full = stages[0].kernels[0];
  ASSERT_TRUE(full.metrics.sm_throughput_pct.has_value());
  EXPECT_NEAR(*full.metrics.sm_throughput_pct, 67.98, 0.01);  // sm__throughput of ID 3 in the capture
  // Rates divide the counters by the time of the launch they came from (ID 3's gpu__time_duration), never by
  // another launch's; the group's timing stays the tracer's.
  EXPECT_DOUBLE_EQ(*full.metrics.duration_ns, 1026272.0);
  EXPECT_DOUBLE_EQ(full.duration_ns.median, 1030000.0);
  const auto& small = stages[1].kernels[0];
  EXPECT_FALSE(small.metrics.sm_throughput_pct.has_value());  // 1056-block counters do not describe 66 blocks
  EXPECT_DOUBLE_EQ(*small.metrics.grid_size, 66.0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].text.find("another launch shape"), std::string::npos) << warnings[0].text;
}

// A faulting kernel under Nsight Compute (misbehave fault on the H200): ncu prints nan for every value of its launch,
// the launch shape included, so the launch has no shape. That is "no values", not "another launch shape".
TEST(MergeCounters, AProfiledLaunchWithoutValuesIsNotAnotherShape) {
  KernelLaunch measured_nothing;
  measured_nothing.id = 3;
  measured_nothing.name = "wild_store(float *, int)";
  measured_nothing.function = "wild_store";
  auto stages = group_into_stages(std::vector<KernelLaunch>{traced("wild_store", 65536, 5000.0)});
  auto warnings = attach_counters(stages, {measured_nothing});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].text.find("reported no values for its launch"), std::string::npos) << warnings[0].text;
  EXPECT_EQ(warnings[0].text.find("another launch shape"), std::string::npos) << warnings[0].text;
  EXPECT_EQ(stages[0].kernels[0].counters_note, "its profiled launch has no values");
  // With another launch of it profiled in a real, different shape, the --all-launches hint is the useful one.
  KernelLaunch other_shape = traced("wild_store", 66, 4000.0);
  other_shape.id = 2;
  auto stages2 = group_into_stages(std::vector<KernelLaunch>{traced("wild_store", 65536, 5000.0)});
  auto warnings2 = attach_counters(stages2, {measured_nothing, other_shape});
  ASSERT_EQ(warnings2.size(), 1u);
  EXPECT_NE(warnings2[0].text.find("another launch shape"), std::string::npos) << warnings2[0].text;
}

// PyTorch's silu and mul (diag_holdout3 on the H200): two instantiations of vectorized_elementwise_kernel with one
// launch shape in one range. ncu's rows carry no mangled name; each group takes the profiled launch whose duration
// is nearest its own (before: both took the first, the silu's counters on the mul kernel).
TEST(MergeCounters, InstantiationsOfOneTemplateWithOneShapeAreToldApartByDuration) {
  KernelLaunch silu = traced("vectorized_elementwise_kernel", 229376, 247000.0, "swiglu_bf16");
  silu.name = "void at::native::vectorized_elementwise_kernel<8, silu>(int)";
  silu.mangled = "_ZN2at6native29vectorized_elementwise_kernelILi8E4siluEEviT0_";
  KernelLaunch mul = traced("vectorized_elementwise_kernel", 229376, 320000.0, "swiglu_bf16");
  mul.name = "void at::native::vectorized_elementwise_kernel<8, mul>(int)";
  mul.mangled = "_ZN2at6native29vectorized_elementwise_kernelILi8E3mulEEviT0_";
  auto stages = group_into_stages(std::vector<KernelLaunch>{silu, mul});
  ASSERT_EQ(stages.size(), 1u);
  ASSERT_EQ(stages[0].kernels.size(), 2u);
  auto profiled = [](int id, double ns) {
    KernelLaunch l = traced("vectorized_elementwise_kernel", 229376, ns, "swiglu_bf16");
    l.id = id;
    l.name = id == 5 ? "void at::vectorized_elementwise_kernel<8, silu>(int)" : "void at::vectorized_elementwise_kernel<8, mul>(int)";
    l.mangled.clear();
    l.metrics["gpu__time_duration.sum"] = MetricValue{ns, "ns"};
    return l;
  };
  auto warnings = attach_counters(stages, {profiled(5, 238048.0), profiled(6, 321536.0)});
  EXPECT_TRUE(warnings.empty());
  for (const auto& g : stages[0].kernels) {
    ASSERT_TRUE(g.metrics.duration_ns.has_value());
    if (g.duration_ns.median < 300000.0) EXPECT_DOUBLE_EQ(*g.metrics.duration_ns, 238048.0);
    else EXPECT_DOUBLE_EQ(*g.metrics.duration_ns, 321536.0);
  }
}

TEST(AnnotationCapture, StreamingCopyIsMemoryBoundWithoutLocalityBlame) {
  ProfileRun run = ncu::import_ncu_files({kAnnotation});
  auto db = analyze::DeviceDb::load();
  auto th = analyze::Thresholds::load();
  analyze::analyze_run(run, db, th);
  EXPECT_EQ(run.device.matched_spec, "h200-sxm");
  const KernelGroup* copy = nullptr;
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels)
      if (g.kernel == "copy_f4") copy = &g;
  ASSERT_NE(copy, nullptr);
  ASSERT_TRUE(copy->analysis.has_value());
  EXPECT_EQ(copy->analysis->bottleneck.kind, BottleneckKind::memory);
  // l1tex__t_bytes.sum 2,147,483,648 vs DRAM read+write ~2.15e9: every byte used once, nothing to tile.
  EXPECT_FALSE(copy->analysis->bottleneck.locality_issue) << copy->analysis->bottleneck.root_cause;
  for (const auto& o : copy->analysis->opportunities) EXPECT_NE(o.trigger_metric, "l2_hit_pct") << o.name;
}

TEST(Classify, LowL2HitWithReuseIsStillALocalityIssue) {
  auto m = probe::copy_f4();
  m.l1_bytes = 5.0 * *m.dram_bytes;  // bytes requested five times over: reuse exists and L2 misses cost DRAM traffic
  auto b = analyze::classify(m, analyze::Thresholds::load(), std::nullopt);
  EXPECT_TRUE(b.locality_issue);
}

TEST(ContractView, StageNamedAfterItsKernelShowsTheLabelOnce) {
  Stage s;
  s.name = "vectorized_elementwise_kernel";
  KernelGroup g;
  g.kernel = "vectorized_elementwise_kernel";
  g.label = "vectorized_elementwise_kernel [4000x1x1]";
  EXPECT_EQ(render::stage_display(s, g), "vectorized_elementwise_kernel [4000x1x1]");
  s.name = "stage_gemm";
  EXPECT_EQ(render::stage_display(s, g), "stage_gemm · vectorized_elementwise_kernel [4000x1x1]");
}

TEST(KernelName, NcuAnonymousNamespaceSpellingKeepsTheBaseName) {
  // As ncu 2025.3.1 printed the MLA split-KV kernel on the H200 (examples/h200/packages/mla_v3_ncu).
  EXPECT_EQ(function_base_name("void unnamed>::mla_tc_kernel<unnamed>::TcTile<512, 64, 64, 32, 16>, 1>(unnamed>::TcParams)"),
            "mla_tc_kernel");
  EXPECT_EQ(function_base_name("unnamed>::mla_combine_kernel(const float *, const float *, __nv_bfloat16 *, int, int)"),
            "mla_combine_kernel");
  // The demangler's own spelling, as the CUPTI trace reader produces it.
  EXPECT_EQ(function_base_name("void (anonymous namespace)::mla_tc_kernel<(anonymous namespace)::TcTile<512, 64, 64, 32, 16>, true>((anonymous namespace)::TcParams)"),
            "mla_tc_kernel");
}

TEST(AnnotationCapture, ReportNamesTheBindingMemoryLevel) {
  // With the measured H200 L2 bandwidth in data/devices.json, sgemm_naive (ID 4 of the capture: AI ~374 FLOP/B
  // against DRAM bytes, ~4 against L2 bytes) is placed at both levels; the L2 roof is the lower one.
  ProfileRun run = ncu::import_ncu_files({kAnnotation});
  analyze::analyze_run(run, analyze::DeviceDb::load(), analyze::Thresholds::load());
  std::string report = render::render_report(run, nullptr);
  EXPECT_NE(report.find("Binding level: **l2**"), std::string::npos);
}

// The same two instantiations when the counter run profiled only one of them (ncu by function name, as captured
// in diag_holdout3 on the H200): the launch goes to the group it fits in time; the other keeps its duration only,
// with a note, instead of the other kernel's counters.
TEST(MergeCounters, AnInstantiationThatWasNotProfiledGetsNoOtherKernelsCounters) {
  KernelLaunch silu = traced("vectorized_elementwise_kernel", 229376, 247000.0, "swiglu_bf16");
  silu.name = "void at::native::vectorized_elementwise_kernel<8, at::native::silu_functor>(int)";
  silu.mangled = "_ZN2at6native29vectorized_elementwise_kernelILi8E4siluEEviT0_";
  KernelLaunch mul = traced("vectorized_elementwise_kernel", 229376, 320000.0, "swiglu_bf16");
  mul.name = "void at::native::vectorized_elementwise_kernel<8, at::native::mul_functor>(int)";
  mul.mangled = "_ZN2at6native29vectorized_elementwise_kernelILi8E3mulEEviT0_";
  for (bool mul_first : {false, true}) {
    auto stages = group_into_stages(mul_first ? std::vector<KernelLaunch>{mul, silu} : std::vector<KernelLaunch>{silu, mul});
    KernelLaunch only = traced("vectorized_elementwise_kernel", 229376, 238048.0, "swiglu_bf16");
    // A spelling whose key matches neither group (the lambda of ncu's demangler): time decides.
    only.name = "void at::vectorized_elementwise_kernel<8, [lambda(float) (instance 1)]>(int, T2, T3)";
    only.id = 5;
    only.mangled.clear();
    only.metrics["gpu__time_duration.sum"] = MetricValue{238048.0, "ns"};
    auto warnings = attach_counters(stages, {only});
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].text.find("fits another instantiation of that template better"), std::string::npos) << warnings[0].text;
    for (const auto& g : stages[0].kernels) {
      if (g.duration_ns.median < 300000.0) {
        EXPECT_TRUE(g.counters_note.empty());
        EXPECT_DOUBLE_EQ(*g.metrics.duration_ns, 238048.0);
      } else {
        EXPECT_EQ(g.counters_note, "the profiled launch of this name and shape belongs to another instantiation");
      }
    }
  }
}

// ncu's and the trace's demanglers spell one instantiation differently; instantiation_key() reads both alike
// (names as printed on the H200 for PyTorch's fill kernel and as c++filt gives its mangled name).
TEST(KernelName, InstantiationKeysOfTwoDemanglersAgree) {
  EXPECT_EQ(instantiation_key("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                              "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)"),
            instantiation_key("void at::vectorized_elementwise_kernel<4, at::FillFunctor<float>, std::array<char *, "
                              "1>>(int, T2, T3)"));
  EXPECT_EQ(instantiation_key("void at::native::(anonymous namespace)::k<(int)-2, 3u>(float*)"),
            instantiation_key("void at::<unnamed>::k<-2, 3>(T1 *)"));
  EXPECT_NE(instantiation_key("void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<float>, "
                              "std::array<char*, 2ul> >(int, at::native::AbsFunctor<float>, std::array<char*, 2ul>)"),
            instantiation_key("void at::vectorized_elementwise_kernel<4, at::FillFunctor<float>, std::array<char *, "
                              "1>>(int, T2, T3)"));
  EXPECT_EQ(instantiation_key("k<{lambda(float)#1}>(int)"), instantiation_key("k<[lambda(float) (instance 1)]>(int)"));
  // The lambda's parameters and instance tell dtype-dispatched instantiations apart.
  EXPECT_NE(instantiation_key("k<{lambda(float)#1}>(int)"), instantiation_key("k<{lambda(c10::BFloat16)#1}>(int)"));
  EXPECT_NE(instantiation_key("k<{lambda(float)#1}>(int)"), instantiation_key("k<{lambda(float)#2}>(int)"));
  // An enclosing function's parameters (ncu: template parameter names) do not count (holdout3, compare_scalar).
  EXPECT_EQ(instantiation_key("void at::native::vectorized_elementwise_kernel<4, at::native::compare_scalar_kernel<"
                              "float>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, float)::"
                              "{lambda(float)#1}, std::array<char*, 2ul> >(int, F, std::array<char*, 2ul>)"),
            instantiation_key("void at::vectorized_elementwise_kernel<4, void at::compare_scalar_kernel<float>("
                              "at::TensorIteratorBase &, at::<unnamed>::OpType, T1)::[lambda(float) (instance 1)], "
                              "std::array<char *, 2>>(int, T2, T3)"));
  // Hostile input stays linear and never throws: unbalanced and deeply nested brackets.
  EXPECT_NO_THROW(instantiation_key(std::string(20000, '(') + "x" + std::string(5, ')') + "::" + std::string(9000, '<')));
  EXPECT_NO_THROW(instantiation_key(std::string(20000, '{') + "lambda(" + std::string(20000, ')')));
  EXPECT_EQ(instantiation_key(""), "");
}

// Review finding: kernel A in stages fwd and bwd, kernel B (same template and shape) in bwd; ncu profiled one
// launch of each (names that read as neither: time decides). A in bwd is nearer B's launch in time than B, but A
// already has its own launch (from fwd), so B's launch stays B's.
TEST(MergeCounters, AKernelThatHasItsLaunchDoesNotTakeAnotherKernelsLaunch) {
  auto launch = [](const std::string& mangled, double ns, const std::string& range) {
    KernelLaunch l = traced("k", 132, ns, range);
    l.name = "void k<" + mangled + ">(int)";
    l.mangled = mangled;
    return l;
  };
  auto stages = group_into_stages(std::vector<KernelLaunch>{launch("_Z1kILi1EEvi", 200000.0, "fwd"),
                                                            launch("_Z1kILi1EEvi", 200000.0, "bwd"),
                                                            launch("_Z1kILi2EEvi", 300000.0, "bwd")});
  auto profiled = [](int id, double ns, const std::string& range) {
    KernelLaunch l = traced("k", 132, ns, range);
    l.id = id;
    l.mangled.clear();
    l.name = "void k<[lambda() (instance " + std::to_string(id + 7) + ")]>(T1)";  // reads as neither kernel
    l.metrics["gpu__time_duration.sum"] = MetricValue{ns, "ns"};
    return l;
  };
  auto warnings = attach_counters(stages, {profiled(0, 200000.0, "fwd"), profiled(1, 210000.0, "bwd")});
  EXPECT_TRUE(warnings.empty()) << (warnings.empty() ? "" : warnings[0].text);
  for (const auto& st : stages)
    for (const auto& g : st.kernels) {
      ASSERT_TRUE(g.metrics.duration_ns.has_value()) << st.name << " " << g.launches.front().mangled;
      const bool is_b = g.launches.front().mangled == "_Z1kILi2EEvi";
      EXPECT_DOUBLE_EQ(*g.metrics.duration_ns, is_b ? 210000.0 : 200000.0) << st.name;
    }
}

// The counters status is what decides (the minimum-share summary), the note what a reader sees: each outcome of the
// join sets both.
TEST(Pipeline, EveryJoinOutcomeSetsItsCountersStatus) {
  using namespace kprof;
  std::vector<Stage> stages(1);
  KernelGroup a, b;
  a.kernel = a.label = "a";
  b.kernel = b.label = "b";
  a.launch.grid = b.launch.grid = {4, 1, 1};
  a.launch.block = b.launch.block = {128, 1, 1};
  a.duration_ns.count = b.duration_ns.count = 2;
  a.duration_ns.median = 1000;
  b.duration_ns.median = 3000;
  stages[0].kernels = {a, b};
  EXPECT_DOUBLE_EQ(stages[0].kernels[1].gpu_time_ns(), 6000);
  KernelLaunch other_shape;
  other_shape.function = "a";
  other_shape.launch.grid = {8, 1, 1};
  other_shape.launch.block = {128, 1, 1};
  auto warnings = attach_counters(stages, {other_shape});
  EXPECT_EQ(stages[0].kernels[0].counters_status, CountersStatus::OtherShape);
  EXPECT_EQ(stages[0].kernels[1].counters_status, CountersStatus::NotProfiled);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0].group, "a");
  EXPECT_EQ(warnings[1].group, "b");
  EXPECT_EQ(json(stages[0].kernels[1]).at("counters_status"), "not-profiled");
}
