// Hand-built ProfileRuns with values from the H200 fixture (tests/fixtures/h200-probe), analysis fields filled
// by hand, so renderer tests depend neither on the ncu parsers nor on the analysis layer.
#pragma once
#include <string>
#include <vector>

#include "model/comparison.hpp"
#include "model/profile.hpp"

namespace kprof::testing {

inline DeviceSpec h200_spec() {
  DeviceSpec d;
  d.name = "NVIDIA H200 SXM";
  d.id = "h200-sxm";
  d.aliases = {"NVIDIA H200"};
  d.compute_capability = "9.0";
  d.sm_count = 132;
  d.boost_clock_mhz = 1980;
  d.l2_mb = 60;
  d.memory_gb = 141;
  const std::string ds = "NVIDIA H200 datasheet (dense)";
  d.datasheet = {{"dram_gbps", {4800, ds}},    {"fp64_tflops", {34, ds}},  {"fp32_tflops", {67, ds}},
                 {"tf32_tflops", {494.5, ds}}, {"bf16_tflops", {989.5, ds}}, {"fp16_tflops", {989.5, ds}},
                 {"fp8_tflops", {1979, ds}}};
  d.measured = {{"dram_gbps", {4300, "kprof peaks --measure 2026-11-30 (device-to-device copy)"}},
                {"bf16_tflops", {798, "kprof peaks --measure 2026-11-30 (bf16 GEMM, random data)"}}};
  d.notes = "Peaks at boost clock; measured figures are medians of 10 repeats.";
  return d;
}

inline KernelLaunch make_launch(int id, const std::string& signature, const std::string& function,
                                const std::string& range, std::int64_t stream, std::array<int, 3> grid,
                                double duration_ns) {
  KernelLaunch l;
  l.id = id;
  l.name = signature;
  l.function = function;
  l.nvtx_range = range;
  l.nvtx_stack = {range};
  l.stream = stream;
  l.context = 1;
  l.launch.grid = grid;
  l.launch.block = {256, 1, 1};
  l.launch.registers_per_thread = 16;
  l.duration_ns = duration_ns;
  l.metrics["gpu__time_duration.sum"] = MetricValue{duration_ns, "ns", "", true};
  return l;
}

inline MetricVerdict verdict(const std::string& metric, const std::string& label, std::optional<double> value,
                             const std::string& unit, const std::string& healthy, Verdict v,
                             const std::string& meaning) {
  return MetricVerdict{metric, label, value, unit, healthy, v, meaning};
}

// copy_f4, ncu ID 5: DRAM-bound float4 copy of 1 GiB.
inline KernelGroup copy_group() {
  KernelGroup g;
  g.kernel = "copy_f4";
  g.signature = "copy_f4(const float4 *, float4 *, unsigned long)";
  g.label = "copy_f4";
  auto l = make_launch(5, g.signature, g.kernel, "stage_copy", 7, {1056, 1, 1}, 536672);
  l.metrics["dram__bytes_read.sum"] = MetricValue{1.073780e9, "byte", "", true};
  l.metrics["dram__bytes_write.sum"] = MetricValue{1.052746e9, "byte", "", true};
  l.sections = {
      {"GPU Speed Of Light Throughput", "Memory Throughput", "%", 82.35, ""},
      {"GPU Speed Of Light Throughput", "DRAM Throughput", "%", 82.35, ""},
      {"GPU Speed Of Light Throughput", "Duration", "ns", 536670, ""},
      {"GPU Speed Of Light Throughput", "Compute (SM) Throughput", "%", 6.01, ""},
      {"Launch Statistics", "Cluster Scheduling Policy", "", std::nullopt, "PolicySpread"},
      {"Launch Statistics", "Registers Per Thread", "register/thread", 16, ""},
      {"Occupancy", "Achieved Occupancy", "%", 97.53, ""},
  };
  l.rules = {
      {"SpeedOfLight", "SOLBottleneck", "INF",
       "This workload is utilizing greater than 80.0% of the available compute or memory performance of the device. "
       "To further improve performance, work will likely need to be shifted from the most utilized to another unit. "
       "Start by analyzing DRAM in the Memory Workload Analysis section.",
       "", std::nullopt},
      {"ComputeWorkloadAnalysis", "HighPipeUtilization", "OPT",
       "All compute pipelines are under-utilized. Either this workload is very small or it doesn't issue enough warps "
       "per scheduler.",
       "local", 93.99},
      {"MemoryWorkloadAnalysis_Chart", "MemoryL2Compression", "OPT",
       "Out of the 1073842112.0 bytes sent to the L2 Compression unit only 0.00% were successfully compressed. To "
       "increase this success rate, consider marking only those memory regions as compressible that contain the most "
       "zero values and/or expose the most homogeneous values.",
       "global", 28.17},
      {"WarpStateStats", "CPIStall", "OPT",
       "On average, each warp of this workload spends 295.7 cycles being stalled waiting for a scoreboard dependency "
       "on a L1TEX (local, global, surface, texture) operation.",
       "global", 17.65},
  };
  g.launch = l.launch;
  g.launches = {l};
  g.duration_ns = SampleStats::of({536672});
  g.representative = 0;

  auto& m = g.metrics;
  m.duration_ns = 536672;
  m.sm_throughput_pct = 6.006983;
  m.memory_throughput_pct = 82.352146;
  m.dram_throughput_pct = 82.352146;
  m.tensor_pipe_pct = 0.0;
  m.achieved_occupancy_pct = 97.530061;
  m.theoretical_occupancy_pct = 100;
  m.l2_hit_pct = 51.61874;
  m.waves_per_sm = 1;
  m.dram_read_bytes = 1.073780e9;
  m.dram_write_bytes = 1.052746e9;
  m.dram_bytes = 1.073780e9 + 1.052746e9;
  m.flops_fp32 = 0;
  m.registers_per_thread = 16;
  m.grid_size = 1056;
  m.block_size = 256;
  m.unavailable = {"flops_tensor", "spill_requests"};

  KernelAnalysis a;
  a.verdicts = {
      verdict("dram_throughput_pct", "DRAM throughput", 82.352146, "%", "> 60%", Verdict::ok,
              "Low: memory is not streamed at full rate."),
      verdict("achieved_occupancy_pct", "Occupancy", 97.530061, "%", "> 50%", Verdict::ok,
              "Low: too few warps to hide latency."),
      verdict("l2_hit_pct", "L2 hit rate", 51.61874, "%", "> 60%", Verdict::warn,
              "Low: data is fetched from DRAM again; improve locality."),
      verdict("spill_requests", "Register spills", std::nullopt, "", "= 0", Verdict::unavailable,
              "Spills go through local memory."),
  };
  a.bottleneck = {BottleneckKind::memory, "", false, "DRAM",
                  "DRAM throughput is 82.4% of peak while the SM is 6.0% busy: the kernel streams 2.13 GB and does no "
                  "arithmetic. Only moving fewer bytes makes it faster.",
                  "DRAM at 82% of peak", "max(dram, memory) >= 80% → memory"};
  a.opportunities = {
      {"Approach measured DRAM bandwidth", "", 7.9, 0, 0, "dram_throughput_pct", 82.352146, "dram_throughput=82.4%",
       "3962 GB/s achieved against 4300 GB/s measured; the gain is bounded by that headroom.", "kprof"},
      {"Enable L2 compression", "", 7.9, 0, 0, "", std::nullopt, "",
       "ncu estimates 28.2%, bounded here by the DRAM headroom.", "ncu:MemoryL2Compression"},
  };
  a.notes = {"No FLOPs counted: roofline placement skipped."};
  g.analysis = a;
  return g;
}

// fma_loop, ncu ID 6: FP32 FMA chain, full grid, compute-bound.
inline KernelGroup fma_group() {
  KernelGroup g;
  g.kernel = "fma_loop";
  g.signature = "fma_loop(float *, int)";
  g.label = "fma_loop";
  auto l = make_launch(6, g.signature, g.kernel, "stage_fma", 7, {1056, 1, 1}, 1026528);
  l.rules = {
      {"Occupancy", "AchievedOccupancy", "OPT",
       "The difference between calculated theoretical (100.0%) and measured achieved occupancy (57.5%) can be the "
       "result of warp scheduling overheads or workload imbalances during the kernel execution.",
       "local", 42.48},
      {"SpeedOfLight", "SOLBottleneck", "OPT",
       "Compute is more heavily utilized than Memory: Look at the Compute Workload Analysis section to see what the "
       "compute pipelines are spending their time doing.",
       "", std::nullopt},
  };
  g.launch = l.launch;
  g.launches = {l};
  g.duration_ns = SampleStats::of({1026528});
  g.representative = 0;

  auto& m = g.metrics;
  m.duration_ns = 1026528;
  m.sm_throughput_pct = 67.823304;
  m.memory_throughput_pct = 0.028255;
  m.dram_throughput_pct = 0.0;
  m.tensor_pipe_pct = 1.978111;
  m.achieved_occupancy_pct = 57.517271;
  m.theoretical_occupancy_pct = 100;
  m.l2_hit_pct = 97.454507;
  m.waves_per_sm = 1;
  m.dram_bytes = 5000;
  m.flops_fp32 = 43173315104.0;
  m.registers_per_thread = 16;
  m.grid_size = 1056;
  m.block_size = 256;

  KernelAnalysis a;
  a.verdicts = {
      verdict("sm_throughput_pct", "SM throughput", 67.823304, "%", "> 60%", Verdict::ok, "Low: the SM is idle."),
      verdict("achieved_occupancy_pct", "Occupancy", 57.517271, "%", "> 60%", Verdict::warn,
              "Low: warps idle; the FMA chain's latency is not hidden."),
  };
  a.bottleneck = {BottleneckKind::compute, "", false, "FP32 pipe (SM)",
                  "SM throughput is 67.8% of peak with the FMA pipe the busiest unit, while DRAM is idle. Achieved "
                  "occupancy of 57.5% against 100% theoretical leaves issue slots unused.",
                  "FMA pipe busy; occupancy 57.5%", "sm - memory >= 10 points → compute"};
  RooflinePlacement r;
  r.precision = "fp32";
  r.peak_tflops = 67;
  r.peak_gbps = 4300;
  r.peak_source = "fp32: datasheet; dram: measured";
  r.ridge_flop_per_byte = 67e12 / 4300e9;
  r.arithmetic_intensity = 43173315104.0 / 5000;
  r.achieved_tflops = 43173315104.0 / 1026528e-9 / 1e12;
  r.roof_tflops = 67;
  r.pct_of_roof = r.achieved_tflops / r.roof_tflops * 100;
  r.bound_by = "compute";
  r.flops_source = "counters";
  a.roofline = r;
  a.opportunities = {
      {"Raise achieved occupancy", "", 18.0, 0, 0, "achieved_occupancy_pct", 57.517271, "achieved_occupancy=57.5%",
       "57.5% achieved against 100% theoretical; bounded by the 37% roofline headroom.", "ncu:AchievedOccupancy"},
      {"Reduce dispatch stalls", "", 6.0, 0, 0, "", std::nullopt, "dispatch_stall=30.5%",
       "Dispatch stalls are 30.5% of the cycles between issues.", "ncu:CPIStall"},
  };
  g.analysis = a;
  return g;
}

// fma_loop on two streams with 66 blocks each (ncu IDs 10 and 11): an under-filled GPU, launched twice.
inline KernelGroup small_grid_group() {
  KernelGroup g;
  g.kernel = "fma_loop";
  g.signature = "fma_loop(float *, int)";
  g.label = "fma_loop [66x1x1]";
  g.launches = {make_launch(10, g.signature, g.kernel, "stage_concurrent", 23, {66, 1, 1}, 1279840),
                make_launch(11, g.signature, g.kernel, "stage_concurrent", 24, {66, 1, 1}, 1279488)};
  g.launch = g.launches[0].launch;
  g.duration_ns = SampleStats::of({1279840, 1279488});
  g.representative = 0;
  auto& m = g.metrics;
  m.duration_ns = 1279840;
  m.sm_throughput_pct = 34.072587;
  m.achieved_occupancy_pct = 12.499916;
  m.theoretical_occupancy_pct = 100;
  m.waves_per_sm = 0.06;
  m.flops_fp32 = 43173315104.0 / 16;
  m.grid_size = 66;
  m.block_size = 256;
  m.unavailable = {"tensor_pipe_pct", "dram_throughput_pct", "dram_bytes"};

  KernelAnalysis a;
  a.verdicts = {
      verdict("achieved_occupancy_pct", "Occupancy", 12.499916, "%", "> 60%", Verdict::warn,
              "Low: warps idle; latency is not hidden."),
      verdict("waves_per_sm", "Waves per SM", 0.06, "", ">= 1", Verdict::warn, "Below 1: SMs sit idle."),
  };
  a.bottleneck = {BottleneckKind::latency, "", false, "grid too small",
                  "Each launch has 66 blocks for 132 SMs (0.06 waves per SM), so most SMs idle and occupancy is "
                  "12.5%. Launch more blocks or give each launch more work. Overlap on two streams does not help.",
                  "66 blocks on 132 SMs", "sm < 60 and memory < 60, waves < 1 → latency (small grid)"};
  a.opportunities = {{"Fill the GPU: launch at least 132 blocks", "", 50.0, 0, 0, "waves_per_sm", 0.06, "waves_per_sm=0.06",
                      "Half the SMs have no block.", "kprof"}};
  g.analysis = a;
  return g;
}

inline ProfileRun base_run() {
  ProfileRun run;
  run.mode = Mode::Ncu;
  run.kernel = "kernels";
  run.version = "v1";
  run.params.set("n", "67108864");
  run.params.dtype = "fp32";
  run.device = DeviceInfo{"NVIDIA H200", "9.0", 132, 1980, 3200, "h200-sxm"};
  run.device_spec = h200_spec();
  run.timestamp = "2026-11-30T12:00:00Z";
  run.command = "./kernels 1";
  run.sources = {"tests/fixtures/h200-probe/full_raw.csv", "tests/fixtures/h200-probe/full_details.csv"};
  run.clock_control = "none";
  return run;
}

// Three stages from the fixture: copy (memory), fma (compute), concurrent (latency, 2 launches).
inline ProfileRun sample_run() {
  ProfileRun run = base_run();
  run.warnings = {{WarningCode::Clocks, "GPU clocks were not locked (--clock-control none): durations follow the boost clock."}};
  run.stages = {Stage{"stage_copy", {copy_group()}, {}}, Stage{"stage_fma", {fma_group()}, {}},
                Stage{"stage_concurrent", {small_grid_group()}, {}}};
  run.overall = run.stages[2].kernels[0].analysis->bottleneck;
  return run;
}

// Annotation mode: one kernel timed three times (median 519.52 us), no counters, declared work only.
inline ProfileRun sample_annotation_run() {
  ProfileRun run = base_run();
  run.mode = Mode::Annotation;
  run.kernel = "copy";
  run.version = "v2";
  run.command = "python bench_copy.py";
  run.sources = {};
  KernelGroup g;
  g.kernel = "copy_f4";
  g.signature = "copy_f4(const float4 *, float4 *, unsigned long)";
  g.label = "copy_f4";
  for (auto [id, d] : {std::pair{0, 536672.0}, {1, 519520.0}, {2, 519488.0}})
    g.launches.push_back(make_launch(id, g.signature, g.kernel, "copy_f4", 7, {1056, 1, 1}, d));
  g.launch = g.launches[0].launch;
  g.duration_ns = SampleStats::of({536672, 519520, 519488});
  g.representative = 1;
  g.metrics.duration_ns = 519520;
  g.metrics.unavailable = {"sm_throughput_pct", "dram_throughput_pct", "tensor_pipe_pct", "achieved_occupancy_pct"};
  g.declared = DeclaredWork{0.0, 2147483648.0, "fp32"};
  KernelAnalysis a;
  a.bottleneck = {BottleneckKind::memory, "", false, "DRAM",
                  "Declared work is 2.15 GB and no FLOPs, so only bandwidth bounds it. It reaches 4134 GB/s of 4300 "
                  "GB/s measured.",
                  "4134 GB/s of 4300", "declared AI below ridge → memory"};
  a.opportunities = {{"Approach measured DRAM bandwidth", "", 3.9, 0, 0, "", std::nullopt, "achieved_gbps=4133.6",
                      "Bounded by the measured copy peak.", "kprof"}};
  g.analysis = a;
  run.stages = {Stage{"copy_f4", {g}, g.declared}};
  run.overall = a.bottleneck;
  return run;
}

inline Comparison sample_comparison() {
  Comparison c;
  c.baseline_label = "kernels v0 (20261129-180000)";
  c.current_label = "kernels v1 (20261130-120000)";
  c.summary = {{"Duration (us)", 4259.1, 4122.5, -3.2072, true, "better"},
               {"Achieved TFLOP/s", 11.40, 11.78, 3.333, false, "better"},
               {"Achieved GB/s", std::nullopt, std::nullopt, std::nullopt, false, ""},
               {"Occupancy (%)", 34.9, 34.8, -0.287, false, "same"}};
  c.stages = {{"stage_copy · copy_f4", {{"Duration (us)", 536.7, 519.5, -3.2048, true, "better"}}},
              {"stage_fma · fma_loop", {{"Duration (us)", 1010.2, 1026.5, 1.6136, true, "worse"}}}};
  c.notes = {"same device (NVIDIA H200), same params"};
  return c;
}

}  // namespace kprof::testing
