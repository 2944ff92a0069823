#include "render/run_totals.hpp"


namespace kprof::render {

namespace {
struct Sum {
  double value = 0;
  bool all = true;  // every kernel contributed
  void add(const std::optional<double>& per_launch, double launches) {
    if (per_launch) value += *per_launch * launches; else all = false;
  }
};

struct WeightedMean {
  double num = 0, den = 0;
  void add(const std::optional<double>& v, double weight) {
    if (v && weight > 0) { num += *v * weight; den += weight; }
  }
  std::optional<double> get() const { return den > 0 ? std::optional<double>(num / den) : std::nullopt; }
};
}  // namespace

RunTotals compute_run_totals(const ProfileRun& run) {
  RunTotals t;
  // Figures are per pass: a profiled program repeats its work (a plan run N times, a benchmark loop). A pass is
  // the smallest launch count among the kernel groups that take at least 5% of the GPU time, and each group counts
  // count / pass launches. A plan run 20 times gives one launch of each stage; a loop that calls one kernel twice
  // per iteration keeps that kernel's ×2; a small kernel launched once outside the loop (an initialisation, a
  // library's one-off kernel) counts as a fraction of a pass instead of turning every figure into the whole
  // program's. Without any such group, the smallest count of all.
  double gpu_ns = 0;
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels) gpu_ns += g.gpu_time_ns();
  std::size_t pass_count = 0, smallest = 0;
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels) {
      const std::size_t n = g.duration_ns.count;
      if (n == 0) continue;
      if (smallest == 0 || n < smallest) smallest = n;
      const double share = gpu_ns > 0 ? g.gpu_time_ns() / gpu_ns : 0;
      if (share >= 0.05 && (pass_count == 0 || n < pass_count)) pass_count = n;
    }
  if (pass_count == 0) pass_count = smallest;
  double total_ns = 0;
  bool any_kernel = false;
  Sum flops, bytes;
  WeightedMean occ, tc;
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels) {
      any_kernel = true;
      double launches = pass_count ? static_cast<double>(g.duration_ns.count) / static_cast<double>(pass_count) : 1.0;
      double median = g.duration_ns.median;
      if (g.duration_ns.count == 0 && g.metrics.duration_ns) {  // a group without stats: one launch
        launches = 1;
        median = *g.metrics.duration_ns;
      }
      double time = launches * median;
      total_ns += time;
      const DeclaredWork declared = s.declared_for(g);
      // Counted FLOPs win only when they are complete: the CUPTI counters count tensor FLOPs but not FP32/FP64
      // (a softmax read 0.0 TFLOP/s while the plan declared its work).
      auto f = g.metrics.total_flops();
      const bool counted = f && (*f > 0 || (g.metrics.flops_fp32 && g.metrics.flops_fp64));
      flops.add(counted ? f : (declared.flops ? declared.flops : f), launches);
      bytes.add(g.metrics.dram_bytes ? g.metrics.dram_bytes : declared.min_bytes, launches);
      occ.add(g.metrics.achieved_occupancy_pct, time);
      tc.add(g.metrics.tensor_pipe_pct, time);
    }
  if (!any_kernel || total_ns <= 0) return t;
  t.duration_ns = total_ns;
  double seconds = total_ns * 1e-9;
  if (flops.all) t.tflops = flops.value / seconds / 1e12;
  if (bytes.all) t.dram_gbps = bytes.value / seconds / 1e9;
  t.occupancy_pct = occ.get();
  t.tc_util_pct = tc.get();
  return t;
}

}  // namespace kprof::render
