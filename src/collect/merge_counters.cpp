#include "collect/merge_counters.hpp"

#include "collect/ncu/canonical.hpp"

#include <cmath>
#include <limits>
#include <map>

namespace kprof {

namespace {
// |log(duration / group median)|: how far a profiled launch's time is from the group's; infinite when unknown.
double time_distance(const KernelLaunch& l, const KernelGroup& g) {
  return l.duration_ns && *l.duration_ns > 0 && g.duration_ns.median > 0
             ? std::abs(std::log(*l.duration_ns / g.duration_ns.median))
             : std::numeric_limits<double>::infinity();
}
}  // namespace

std::vector<std::string> attach_counters(std::vector<Stage>& stages, const std::vector<KernelLaunch>& ncu_launches) {
  std::vector<std::string> warnings;
  // Pass 1: each group's same-shape launch. Pass 2: a launch chosen by groups of different kernels (two
  // instantiations of one template with one shape, when the counter run profiled only one of them: ncu without
  // mangled names did) stays with the nearest in time; the others get no counters rather than another kernel's.
  std::map<std::pair<std::size_t, std::size_t>, const KernelLaunch*> chosen;  // (stage, group) → launch
  std::map<const KernelLaunch*, std::pair<std::size_t, std::size_t>> owner;
  for (std::size_t si = 0; si < stages.size(); ++si)
    for (std::size_t gi = 0; gi < stages[si].kernels.size(); ++gi) {
      const auto& g = stages[si].kernels[gi];
      const Stage& stage = stages[si];
      const std::string& mangled = g.launches.empty() ? std::string() : g.launches.front().mangled;
      const KernelLaunch* same_shape = nullptr;
      for (const auto& l : ncu_launches) {
        if (l.function != g.kernel) continue;
        if (!mangled.empty() && !l.mangled.empty() && l.mangled != mangled) continue;
        if (l.launch.grid != g.launch.grid || l.launch.block != g.launch.block) continue;
        if (!same_shape) {
          same_shape = &l;
          continue;
        }
        const bool in_range = l.nvtx_range == stage.name, had_range = same_shape->nvtx_range == stage.name;
        if (in_range != had_range) {
          if (in_range) same_shape = &l;
          continue;
        }
        // Launches of one kernel (the same name as ncu prints it, template arguments included): the first.
        // Launches of different instantiations: the one nearest the group's time.
        if (l.name != same_shape->name && time_distance(l, g) < time_distance(*same_shape, g)) same_shape = &l;
      }
      if (!same_shape) continue;
      auto it = owner.find(same_shape);
      if (it == owner.end()) {
        owner[same_shape] = {si, gi};
        chosen[{si, gi}] = same_shape;
        continue;
      }
      const auto& other = stages[it->second.first].kernels[it->second.second];
      const std::string& other_mangled = other.launches.empty() ? std::string() : other.launches.front().mangled;
      const double mine = time_distance(*same_shape, g), theirs = time_distance(*same_shape, other);
      // The same kernel in two stages, or no times to tell them apart: both use it, as before.
      if (mangled.empty() || other_mangled.empty() || mangled == other_mangled || std::isinf(mine) ||
          std::isinf(theirs)) {
        chosen[{si, gi}] = same_shape;
        continue;
      }
      if (mine < theirs) {
        chosen.erase(it->second);
        chosen[{si, gi}] = same_shape;
        it->second = {si, gi};
      }
    }
  for (std::size_t si = 0; si < stages.size(); ++si) {
    auto& stage = stages[si];
    for (std::size_t gi = 0; gi < stage.kernels.size(); ++gi) {
      auto& g = stage.kernels[gi];
      const KernelLaunch* same_shape = nullptr;
      const KernelLaunch* same_name = nullptr;
      bool all_shapeless = true;  // every same-name launch lacks a launch shape (its values nan or missing)
      // The group's mangled name, when both sides know it, tells template instantiations apart.
      const std::string& mangled = g.launches.empty() ? std::string() : g.launches.front().mangled;
      bool same_shape_elsewhere = false;  // a same-shape launch exists but went to another kernel's group
      for (const auto& l : ncu_launches) {
        if (l.function != g.kernel) continue;
        if (!mangled.empty() && !l.mangled.empty() && l.mangled != mangled) continue;
        if (!same_name) same_name = &l;
        if (l.launch.grid != std::array<int, 3>{0, 0, 0}) all_shapeless = false;
        if (l.launch.grid == g.launch.grid && l.launch.block == g.launch.block) same_shape_elsewhere = true;
      }
      if (auto c = chosen.find({si, gi}); c != chosen.end()) {
        same_shape = c->second;
        same_shape_elsewhere = false;
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
        } else if (same_shape_elsewhere) {
          g.counters_note = "its profiled launch fits another kernel of the same name and shape";
          warnings.push_back("no counters for " + g.label + ": the counter run profiled one launch of " + g.kernel +
                             " with this shape, and its time fits another instantiation of that template: "
                             "duration only (ncu tells instantiations apart only by mangled name)");
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
