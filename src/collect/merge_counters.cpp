#include "collect/merge_counters.hpp"

#include "collect/ncu/canonical.hpp"

namespace kprof {

std::vector<std::string> attach_counters(std::vector<Stage>& stages, const std::vector<KernelLaunch>& ncu_launches) {
  std::vector<std::string> warnings;
  for (auto& stage : stages) {
    for (auto& g : stage.kernels) {
      const KernelLaunch* same_shape = nullptr;
      const KernelLaunch* same_name = nullptr;
      bool all_shapeless = true;  // every same-name launch lacks a launch shape (its values nan or missing)
      // The group's mangled name, when both sides know it, tells template instantiations apart.
      const std::string& mangled = g.launches.empty() ? std::string() : g.launches.front().mangled;
      for (const auto& l : ncu_launches) {
        if (l.function != g.kernel) continue;
        if (!mangled.empty() && !l.mangled.empty() && l.mangled != mangled) continue;
        if (!same_name) same_name = &l;
        if (l.launch.grid != std::array<int, 3>{0, 0, 0}) all_shapeless = false;
        if (l.launch.grid == g.launch.grid && l.launch.block == g.launch.block) {
          // Prefer the launch profiled inside the same NVTX range.
          if (!same_shape || (l.nvtx_range == stage.name && same_shape->nvtx_range != stage.name)) same_shape = &l;
        }
      }
      // Throughput counters do not carry over between launch shapes (a 66-block launch of a kernel behaves
      // nothing like its 1056-block launch), so a group without a same-shape launch keeps its duration only.
      const KernelLaunch* src = same_shape;
      if (!src) {
        // A profiled launch of it whose shape the profiler could not give (Nsight Compute prints nan for every
        // metric of a launch it could not measure, such as one that faulted) is not "another shape".
        if (same_name && all_shapeless) {
          g.counters_note = "its profiled launch has no values";
          warnings.push_back("no counters for " + g.label + ": the counter run reached it but reported no values for "
                             "its launch (nan or empty: the profiler could not measure it, as for a kernel that "
                             "faulted or was cut short): duration only");
        } else {
          g.counters_note = same_name ? "only another launch shape of it was profiled" : "not profiled";
          warnings.push_back(same_name ? "no counters for " + g.label + " " + g.launch.str() +
                                             ": the counter run profiled only another launch shape of it (use "
                                             "--all-launches)"
                                       : "no counters for " + g.label +
                                             " (the counter run did not profile it): duration only");
        }
        g.metrics.grid_size = static_cast<double>(g.launch.grid[0]) * g.launch.grid[1] * g.launch.grid[2];
        g.metrics.block_size = static_cast<double>(g.launch.block[0]) * g.launch.block[1] * g.launch.block[2];
        continue;
      }
      KernelLaunch with_counters = *src;
      auto m = ncu::derive_canonical(with_counters);
      m.provenance["counters"] = "counter launch " + std::to_string(src->id);
      // Rates (FLOP/s, GB/s, % of roof) divide the counters by the time of the SAME launch: the profiler's own
      // duration of the profiled launch. The tracer's median stays the group's timing (duration_ns stats); a
      // counter launch far from that median is reported by the plausibility checks.
      if (!m.duration_ns) {
        m.duration_ns = g.duration_ns.median;
        m.provenance["duration_ns"] = "tracer median of " + std::to_string(g.duration_ns.count) +
                                      " launches (the counter launch has no duration)";
      }
      g.metrics = std::move(m);
      // Keep the profiled launch (its sections and rules feed the opportunities) as the representative.
      g.launches.push_back(with_counters);
      g.representative = static_cast<int>(g.launches.size()) - 1;
    }
  }
  return warnings;
}

}  // namespace kprof
