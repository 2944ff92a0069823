#include "collect/merge_counters.hpp"

#include <fmt/format.h>

#include "collect/kernel_name.hpp"
#include "collect/stage_grouping.hpp"
#include "collect/ncu/canonical.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace kprof {

namespace {
// |log(duration / group median)|: how far a profiled launch's time is from the group's; infinite when unknown.
double time_distance(const KernelLaunch& l, const KernelGroup& g) {
  return l.duration_ns && *l.duration_ns > 0 && g.duration_ns.median > 0
             ? std::abs(std::log(*l.duration_ns / g.duration_ns.median))
             : std::numeric_limits<double>::infinity();
}
}  // namespace

std::vector<Warning> attach_counters(std::vector<Stage>& stages, const std::vector<KernelLaunch>& ncu_launches) {
  std::vector<Warning> warnings;
  auto warn = [&](const KernelGroup& g, std::string text) {
    warnings.push_back({WarningCode::Counters, std::move(text), g.label});
  };
  // Which profiled launch gives each group its counters: one of the same function and launch shape. Every
  // (group, launch) pair is ranked: a launch whose printed name reads as the group's instantiation first
  // (instantiation_key: ncu's and the trace's demanglers spell it differently), then one inside the group's NVTX
  // range, then the nearest in time. Pairs are taken best first; a launch taken by one kernel is not given to a
  // different kernel (another mangled name): two instantiations of one template with one shape (PyTorch's silu
  // and mul on the H200) each get their own launch, and one whose launch the counter run did not profile gets no
  // counters rather than another's. The same kernel in several stages shares its launch.
  using GroupId = std::pair<std::size_t, std::size_t>;
  struct Pair {
    bool other_name, other_range;
    double distance;
    GroupId group;
    std::size_t launch;  // index into ncu_launches
  };
  std::vector<std::string> launch_keys;  // each profiled launch's instantiation key, computed once
  launch_keys.reserve(ncu_launches.size());
  for (const auto& l : ncu_launches) launch_keys.push_back(instantiation_key(l.name));
  std::map<GroupId, std::string> identity, own_keys;  // a group's kernel: its mangled name, else its key, else itself
  std::map<GroupId, std::vector<std::size_t>> candidates;
  std::vector<Pair> pairs;
  for (std::size_t si = 0; si < stages.size(); ++si)
    for (std::size_t gi = 0; gi < stages[si].kernels.size(); ++gi) {
      const auto& g = stages[si].kernels[gi];
      const std::string mangled = g.launches.empty() ? std::string() : g.launches.front().mangled;
      const std::string own_name = g.launches.empty() ? g.signature : g.launches.front().name;
      const std::string own_key = own_name.empty() ? std::string() : instantiation_key(own_name);
      identity[{si, gi}] = !mangled.empty() ? "m:" + mangled
                           : !own_key.empty() ? "k:" + own_key
                                              : fmt::format("g:{}/{}", si, gi);
      own_keys[{si, gi}] = own_key;
      for (std::size_t li = 0; li < ncu_launches.size(); ++li) {
        const auto& l = ncu_launches[li];
        if (l.function != g.kernel) continue;
        if (!mangled.empty() && !l.mangled.empty() && l.mangled != mangled) continue;
        if (l.launch.grid != g.launch.grid || l.launch.block != g.launch.block) continue;
        candidates[{si, gi}].push_back(li);
        const bool other_name = own_key.empty() || launch_keys[li] != own_key;
        // Launches of its own instantiation: the first in the range, as profiled (time only tells kernels apart).
        pairs.push_back({other_name, !launch_in_stage(l, stages[si].name), other_name ? time_distance(l, g) : 0.0,
                         {si, gi}, li});
      }
    }
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
    if (a.other_name != b.other_name) return !a.other_name;
    if (a.other_range != b.other_range) return !a.other_range;
    return a.distance < b.distance;
  });
  std::map<GroupId, const KernelLaunch*> chosen;
  std::map<std::size_t, std::string> owner;  // launch → the kernel (identity) that took it
  std::map<std::string, std::set<std::size_t>> owned;  // kernel → the launches it took
  for (const auto& p : pairs) {
    if (chosen.count(p.group)) continue;
    const std::string& me = identity[p.group];
    auto it = owner.find(p.launch);
    if (it != owner.end() && it->second != me) continue;  // another kernel's launch
    if (it == owner.end()) {
      // An unclaimed launch that is not recognisably ours, while ours has one this group can use (the same kernel
      // in another stage): leave it for the kernel it belongs to.
      const std::string& key = own_keys[p.group];
      bool ours_elsewhere = false;
      for (std::size_t li : candidates[p.group]) ours_elsewhere = ours_elsewhere || owned[me].count(li) > 0;
      if (ours_elsewhere && (key.empty() || launch_keys[p.launch] != key)) continue;
      owner[p.launch] = me;
      owned[me].insert(p.launch);
    }
    chosen[p.group] = &ncu_launches[p.launch];
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
          g.counters_status = CountersStatus::NoValues;
          g.counters_note = "its profiled launch has no values";
          warn(g, "no counters for " + g.label + ": the counter run reached it but reported no values for its launch "
                  "(nan or empty: the profiler could not measure it, as for a kernel that faulted or was cut short): "
                  "duration only");
        } else if (same_shape_elsewhere) {
          g.counters_status = CountersStatus::OtherInstantiation;
          g.counters_note = "the profiled launch of this name and shape belongs to another instantiation";
          warn(g, "no counters for " + g.label + ": the counter run profiled " + g.kernel +
                      " with this launch shape, but its name or time fits another instantiation of that template "
                      "better, not this one: duration only");
        } else {
          g.counters_status = same_name ? CountersStatus::OtherShape : CountersStatus::NotProfiled;
          g.counters_note = same_name ? "only another launch shape of it was profiled" : "not profiled";
          warn(g, same_name ? "no counters for " + g.label + " " + g.launch.str() +
                                  ": the counter run profiled only another launch shape of it (use --all-launches)"
                            : "no counters for " + g.label + " (the counter run did not profile it): duration only");
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
      g.counters_status = CountersStatus::Attached;
      // Keep the profiled launch (its sections and rules feed the opportunities) as the representative.
      g.launches.push_back(with_counters);
      g.representative = static_cast<int>(g.launches.size()) - 1;
    }
  }
  return warnings;
}

}  // namespace kprof
