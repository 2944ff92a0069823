#include "analyze/plausibility.hpp"

#include <fmt/format.h>

#include <cmath>

#include "analyze/diagnosis.hpp"
#include "analyze/metric_fields.hpp"

namespace kprof::analyze {

std::vector<Implausible> check_plausibility(const KernelGroup& g, const CanonicalMetrics& m,
                                            const DeclaredWork& declared,
                                            const std::optional<RooflinePlacement>& roofline,
                                            const std::vector<RooflinePlacement>& hierarchical, const Thresholds& t) {
  std::vector<Implausible> out;
  const double pct_tol = t.param("plausibility.pct_tolerance");
  const double roof_tol = t.param("plausibility.roof_tolerance_pct");
  auto add = [&](std::string metric, std::string message) { out.push_back({std::move(metric), std::move(message)}); };

  // Percentages of a peak or hit rates cannot exceed 100 beyond rounding.
  for (const char* f : {"sm_throughput_pct", "memory_throughput_pct", "dram_throughput_pct", "tensor_pipe_pct",
                        "achieved_occupancy_pct", "theoretical_occupancy_pct", "l1_throughput_pct",
                        "l2_throughput_pct", "fma_pipe_pct", "alu_pipe_pct", "fp64_pipe_pct", "xu_pipe_pct",
                        "lsu_pipe_pct", "issue_active_pct"}) {
    auto v = metric_field(m, f);
    if (v && (*v > 100.0 + pct_tol || *v < 0))
      add(f, fmt::format("{} = {:.1f}% is outside 0-100%", f, *v));
  }
  for (const char* f : {"l2_hit_pct", "l1_hit_pct"}) {
    auto v = metric_field(m, f);
    if (v && (*v > 100.0 + pct_tol || *v < 0))
      add(f, fmt::format("{} = {:.1f}% is over 100%: with little {} traffic the counters' sectors do not add up; "
                         "the hit rate means nothing here",
                         f, *v, std::string(f).substr(0, 2) == "l2" ? "L2" : "L1"));
  }
  if (m.duration_ns && *m.duration_ns <= 0)
    add("duration_ns", fmt::format("duration {:.3g} ns is not positive", *m.duration_ns));
  for (double s : g.samples_ns)
    if (!(s > 0)) {
      add("duration_ns", "a launch duration is zero, negative or not a number");
      break;
    }
  // Achieved rate above a roof: the counters and the time do not belong together, or the peak is wrong.
  auto over_roof = [&](const RooflinePlacement& p) {
    if (p.pct_of_roof > 100.0 + roof_tol)
      add("roofline", fmt::format("{:.1f}% of the {} roof at the {} level ({:.3g} TFLOP/s against {:.3g}): above the "
                                  "roof, so the FLOPs, bytes or duration belong to different launches or the peak "
                                  "({}) is wrong",
                                  p.pct_of_roof, p.precision, p.memory_level, p.achieved_tflops, p.roof_tflops,
                                  p.peak_source));
  };
  if (roofline) over_roof(*roofline);
  for (const auto& h : hierarchical) over_roof(h);
  // Counters from one launch, durations of others: a group whose counter launch took a very different time.
  // (Kernels of a few microseconds are left out: a profiler's replay of them carries its own overhead.)
  // Nor a launch that ran alone far slower than its replay: the replay's resident data explains the difference, and
  // the diagnosis names it (page_migration).
  const bool replay_slowdown =
      g.alone_min_ns && m.duration_ns &&
      slower_than_replay(*g.alone_min_ns, *m.duration_ns, t.param("diagnosis.replay_slowdown_min"),
                         t.param("diagnosis.replay_slowdown_min_us"));
  if (!replay_slowdown && g.duration_ns.count > 1 && m.duration_ns && *m.duration_ns > 0 &&
      g.duration_ns.median >= t.param("diagnosis.launch_bound_max_us") * 1e3) {
    double r = *m.duration_ns / g.duration_ns.median;
    const double lim = t.param("plausibility.launch_mismatch_ratio");
    if (r > lim || r < 1.0 / lim)
      add("duration_ns", fmt::format("the counters come from a launch of {:.1f} us while the group's median launch "
                                     "takes {:.1f} us: its launches do different work, so the counters describe one "
                                     "of them only",
                                     *m.duration_ns * 1e-3, g.duration_ns.median * 1e-3));
  }
  // Declared work against what the counters saw.
  if (declared.min_bytes && *declared.min_bytes > 0 && m.dram_bytes && *m.dram_bytes >= 0 &&
      *m.dram_bytes < *declared.min_bytes * t.param("plausibility.min_bytes_ratio"))
    add("declared", fmt::format("DRAM moved {:.3g} B, under the declared minimum of {:.3g} B: the declaration is too "
                                "high, or the data was already in L2 (CUPTI counters do not flush caches)",
                                *m.dram_bytes, *declared.min_bytes));
  if (declared.flops && *declared.flops > 0) {
    auto counted = m.total_flops();
    const double lim = t.param("plausibility.flops_mismatch_ratio");
    if (counted && *counted > 0 && (*counted > *declared.flops * lim || *counted < *declared.flops / lim))
      add("declared", fmt::format("the counters saw {:.3g} FLOP where the plan declares {:.3g}: one of them is wrong "
                                  "(or the kernel does other work than declared)",
                                  *counted, *declared.flops));
  }
  return out;
}

}  // namespace kprof::analyze
