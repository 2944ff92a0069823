#include "collect/stage_grouping.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "collect/kernel_name.hpp"
#include "collect/ncu/canonical.hpp"

namespace kprof {

namespace {

constexpr std::size_t kKeptLaunches = 8;

using GroupKey = std::tuple<std::string, std::array<int, 3>, std::array<int, 3>>;

std::optional<double> duration_of(const KernelLaunch& l) {
  if (l.duration_ns) return l.duration_ns;
  return ncu::derive_canonical(l).duration_ns;
}

void finish_group(KernelGroup& g, std::vector<std::size_t>& origin, const CompleteLaunch& complete) {
  std::vector<double> d;
  std::vector<std::optional<double>> per_launch;
  for (const auto& l : g.launches) {
    per_launch.push_back(duration_of(l));
    if (per_launch.back()) d.push_back(*per_launch.back());
  }
  g.duration_ns = SampleStats::of(d);
  g.representative = 0;
  if (!d.empty()) {
    double best = INFINITY;
    for (std::size_t i = 0; i < per_launch.size(); ++i)
      if (per_launch[i] && std::abs(*per_launch[i] - g.duration_ns.median) < best) {
        best = std::abs(*per_launch[i] - g.duration_ns.median);
        g.representative = static_cast<int>(i);
      }
  }
  // Every duration stays (compare tests on them); the launch records themselves are trimmed to the first few
  // plus the representative, so a trace of 20k launches of one kernel does not become 20k JSON objects.
  g.samples_ns = std::move(d);
  if (g.launches.size() > kKeptLaunches) {
    KernelLaunch rep = std::move(g.launches[g.representative]);
    std::size_t rep_origin = origin[g.representative];
    if (static_cast<std::size_t>(g.representative) < kKeptLaunches - 1) g.launches[g.representative] = rep;
    g.launches.resize(kKeptLaunches - 1);
    g.launches.push_back(std::move(rep));
    origin.resize(kKeptLaunches - 1);
    origin.push_back(rep_origin);
    g.representative = static_cast<int>(kKeptLaunches - 1);
  }
  if (complete)
    for (std::size_t i = 0; i < g.launches.size(); ++i) complete(origin[i], g.launches[i]);
  g.metrics = ncu::derive_canonical(g.launches[g.representative]);
}

// Union of every launch's [start, end) on the GPU, sorted and merged: when the GPU ran some kernel.
std::vector<std::pair<double, double>> busy_intervals(const std::vector<KernelLaunch>& launches) {
  std::vector<std::pair<double, double>> iv;
  for (const auto& l : launches)
    if (l.start_ns && l.duration_ns && *l.duration_ns > 0) iv.emplace_back(*l.start_ns, *l.start_ns + *l.duration_ns);
  std::sort(iv.begin(), iv.end());
  std::vector<std::pair<double, double>> merged;
  for (const auto& i : iv) {
    if (!merged.empty() && i.first <= merged.back().second) merged.back().second = std::max(merged.back().second, i.second);
    else merged.push_back(i);
  }
  return merged;
}

double busy_within(const std::vector<std::pair<double, double>>& busy, double a, double b) {
  double sum = 0;
  auto it = std::lower_bound(busy.begin(), busy.end(), std::make_pair(a, a),
                             [](const auto& x, const auto& y) { return x.second < y.first; });
  for (; it != busy.end() && it->first < b; ++it) sum += std::max(0.0, std::min(b, it->second) - std::max(a, it->first));
  return sum;
}

// Whether each launch ran with no other kernel beside it on the GPU (traced launches only; false without timestamps).
std::vector<bool> alone_launches(const std::vector<KernelLaunch>& launches) {
  std::vector<std::pair<std::pair<double, double>, std::size_t>> iv;
  for (std::size_t i = 0; i < launches.size(); ++i)
    if (const auto& l = launches[i]; l.start_ns && l.duration_ns && *l.duration_ns > 0)
      iv.push_back({{*l.start_ns, *l.start_ns + *l.duration_ns}, i});
  std::sort(iv.begin(), iv.end());
  std::vector<bool> alone(launches.size(), false);
  double reach = -INFINITY;  // the latest end among the launches that started earlier
  for (std::size_t p = 0; p < iv.size(); ++p) {
    const auto [start, end] = iv[p].first;
    const bool next_clear = p + 1 == iv.size() || iv[p + 1].first.first >= end;
    alone[iv[p].second] = reach <= start && next_clear;
    reach = std::max(reach, end);
  }
  return alone;
}

// The group's span (first start to last end) and the GPU's idle time inside it, when its launches carry trace
// timestamps.
void set_span(KernelGroup& g, const std::vector<std::pair<double, double>>& busy) {
  double first = INFINITY, last = -INFINITY;
  for (const auto& l : g.launches)
    if (l.start_ns && l.duration_ns) {
      first = std::min(first, *l.start_ns);
      last = std::max(last, *l.start_ns + *l.duration_ns);
    }
  if (!(last > first)) return;
  g.span_ns = last - first;
  g.gpu_idle_ns = std::max(0.0, *g.span_ns - busy_within(busy, first, last));
}

// Numbered sibling ranges (layer0, layer1, ...) at least this many under one parent, their numbers consecutive, are
// repetitions of one thing and one stage: a per-layer split of a 24-layer optimizer step made 144 kernel groups in 24
// stages of six. Top-level ranges never roll (gemm1, gemm2, gemm3 as a program's own stages stay apart), nor do
// numbers that are not a run (fp8, fp16, fp32).
constexpr std::size_t kRolledSiblings = 3;

// Whether the names (one stem, each with a number after it) number a consecutive run of at least kRolledSiblings.
bool numbered_run(const std::set<std::string>& names, std::size_t stem) {
  if (names.size() < kRolledSiblings) return false;
  std::set<long long> numbers;
  for (const auto& n : names) {
    if (n.size() - stem > 9) return false;
    numbers.insert(std::stoll(n.substr(stem)));
  }
  return numbers.size() == names.size() &&
         *numbers.rbegin() - *numbers.begin() + 1 == static_cast<long long>(numbers.size());
}

// Each launch's stage: its innermost default-domain NVTX range (KernelLaunch::nvtx_range), named by the shortest
// tail of its range path that no other path shares, after numbered siblings become one ("step/layer*"): two cases
// each with ranges layer0..layer3 get "kv_cache/layer*" and "mlp_bwd/layer*", not a shared "layer0". A rolled name
// keeps its parent. "" for a launch outside any range.
std::vector<std::string> stage_names(const std::vector<KernelLaunch>& launches) {
  // The work is per distinct range path (a trace of a million launches has a few dozen): `of[li]` is launch li's
  // path in `paths`, -1 outside any range.
  std::vector<std::vector<std::string>> paths;
  std::vector<int> of(launches.size(), -1);
  {
    std::map<std::vector<std::string>, int> seen;
    for (std::size_t li = 0; li < launches.size(); ++li) {
      const auto& l = launches[li];
      if (l.nvtx_range.empty()) continue;
      // Consecutive launches mostly share their ranges: no path built again for them.
      if (li > 0 && of[li - 1] >= 0 && launches[li - 1].nvtx_range == l.nvtx_range &&
          launches[li - 1].nvtx_stack == l.nvtx_stack) {
        of[li] = of[li - 1];
        continue;
      }
      auto [it, fresh] = seen.try_emplace(range_path(l), static_cast<int>(paths.size()));
      if (fresh) paths.push_back(it->first);
      of[li] = it->second;
    }
  }
  auto join = [](const std::vector<std::string>& v, std::size_t from, std::size_t to) {
    std::string out;
    for (std::size_t i = from; i < to; ++i) out += (i > from ? "/" : "") + v[i];
    return out;
  };
  auto stem_of = [](const std::string& name) {
    std::size_t end = name.size();
    while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
    return end > 0 && end < name.size() ? name.substr(0, end) : std::string();
  };
  std::vector<bool> rolled(paths.size(), false);  // the path's last element was rolled up
  std::size_t depth = 0;
  for (const auto& p : paths) depth = std::max(depth, p.size());
  for (std::size_t d = 1; d < depth; ++d) {
    std::map<std::pair<std::string, std::string>, std::set<std::string>> siblings;  // (parent path, stem) → names
    for (const auto& p : paths)
      if (p.size() > d)
        if (std::string stem = stem_of(p[d]); !stem.empty()) siblings[{join(p, 0, d), stem}].insert(p[d]);
    for (std::size_t li = 0; li < paths.size(); ++li) {
      auto& p = paths[li];
      if (p.size() <= d) continue;
      const std::string stem = stem_of(p[d]);
      if (stem.empty() || !numbered_run(siblings[{join(p, 0, d), stem}], stem.size())) continue;
      p[d] = stem + "*";
      if (d + 1 == p.size()) rolled[li] = true;
    }
  }
  std::set<std::string> distinct;
  for (const auto& p : paths)
    if (!p.empty()) distinct.insert(join(p, 0, p.size()));
  std::vector<std::string> name_of(paths.size());
  std::map<std::string, std::string> named;  // whole path → its stage name (two distinct paths may roll into one)
  for (std::size_t li = 0; li < paths.size(); ++li) {
    const auto& p = paths[li];
    if (p.empty()) continue;
    const std::string whole = join(p, 0, p.size());
    if (auto it = named.find(whole); it != named.end()) {
      name_of[li] = it->second;
      continue;
    }
    for (std::size_t k = rolled[li] && p.size() > 1 ? 2 : 1; k <= p.size(); ++k) {
      const std::string tail = join(p, p.size() - k, p.size());
      const bool shared = std::any_of(distinct.begin(), distinct.end(), [&](const std::string& other) {
        return other != whole && (other == tail || (other.size() > tail.size() &&
                                                    other.compare(other.size() - tail.size(), tail.size(), tail) == 0 &&
                                                    other[other.size() - tail.size() - 1] == '/'));
      });
      if (!shared || k == p.size()) {
        name_of[li] = named[whole] = tail;
        break;
      }
    }
  }
  std::vector<std::string> out(launches.size());
  for (std::size_t li = 0; li < launches.size(); ++li)
    if (of[li] >= 0) out[li] = name_of[static_cast<std::size_t>(of[li])];
  return out;
}

}  // namespace

void label_groups(Stage& st) {
  for (auto& g : st.kernels) g.label = g.kernel.empty() ? g.signature : g.kernel;
  std::map<std::string, std::set<std::array<int, 3>>> grids_per_function;
  for (const auto& g : st.kernels) grids_per_function[g.kernel].insert(g.launch.grid);
  for (auto& g : st.kernels)
    if (grids_per_function[g.kernel].size() > 1)
      g.label = fmt::format("{} [{}x{}x{}]", g.kernel, g.launch.grid[0], g.launch.grid[1], g.launch.grid[2]);
  // Instantiations of one template at one shape: named by the template arguments that tell them apart
  // ("vectorized_elementwise_kernel<…,AbsFunctor<float>,…> [1x1x1]"), so that a reader and `compare` can match
  // them whatever order they ran in; numbered in launch order only where even those are equal (overloads).
  std::map<std::string, std::vector<std::size_t>> same_label;
  for (std::size_t gi = 0; gi < st.kernels.size(); ++gi) same_label[st.kernels[gi].label].push_back(gi);
  for (const auto& [label, members] : same_label) {
    if (members.size() < 2) continue;
    std::vector<std::string> signatures;
    for (std::size_t gi : members) signatures.push_back(st.kernels[gi].signature);
    const std::vector<std::string> names = distinguishing_names(signatures);
    const std::string& fn = st.kernels[members[0]].kernel;
    const std::string shape = !fn.empty() && label.rfind(fn, 0) == 0 ? label.substr(fn.size()) : "";  // " [66x1x1]"
    for (std::size_t m = 0; m < members.size(); ++m) st.kernels[members[m]].label = names[m] + shape;
  }
  std::map<std::string, int> still_same, seen;
  for (const auto& g : st.kernels) ++still_same[g.label];
  for (auto& g : st.kernels)
    if (still_same[g.label] > 1) g.label += fmt::format(" #{}", ++seen[g.label]);
}

std::vector<Stage> group_into_stages(const std::vector<KernelLaunch>& launches) {
  return group_into_stages(std::vector<KernelLaunch>(launches));
}

std::vector<Stage> group_into_stages(std::vector<KernelLaunch>&& launches) {
  return group_into_stages(std::move(launches), CompleteLaunch{});
}

std::vector<Stage> group_into_stages(std::vector<KernelLaunch>&& launches, const CompleteLaunch& complete) {
  bool any_range = false;
  for (const auto& l : launches) any_range = any_range || !l.nvtx_range.empty();
  const auto busy = busy_intervals(launches);
  const std::vector<bool> alone = alone_launches(launches);
  const std::vector<std::string> ranges = stage_names(launches);

  std::vector<Stage> stages;
  std::map<std::string, std::size_t> stage_index;
  std::vector<std::map<GroupKey, std::size_t>> group_index;
  std::vector<std::vector<std::vector<std::size_t>>> origin;  // stage → group → index in `launches` per launch
  for (std::size_t li = 0; li < launches.size(); ++li) {
    KernelLaunch& l = launches[li];
    std::string fn = l.function.empty() ? l.name : l.function;
    std::string stage_name = any_range && !ranges[li].empty() ? ranges[li] : fn;
    auto [sit, new_stage] = stage_index.try_emplace(stage_name, stages.size());
    if (new_stage) {
      stages.push_back(Stage{stage_name, {}, {}});
      group_index.emplace_back();
      origin.emplace_back();
    }
    Stage& st = stages[sit->second];
    // A kernel is its mangled name when the collector knows it (two instantiations of one template are two
    // kernels), else its full printed name; a group is one kernel at one launch shape.
    // ncu prints no mangled name: its demangled signature tells instantiations (and overloads) apart just as well.
    GroupKey key{l.mangled.empty() ? l.name : l.mangled, l.launch.grid, l.launch.block};
    auto [git, new_group] = group_index[sit->second].try_emplace(key, st.kernels.size());
    if (new_group) {
      KernelGroup g;
      g.kernel = fn;
      g.signature = l.name;
      g.label = fn;
      g.launch = l.launch;
      st.kernels.push_back(std::move(g));
      origin[sit->second].emplace_back();
    }
    st.kernels[git->second].launches.push_back(std::move(l));
    origin[sit->second][git->second].push_back(li);
  }

  for (std::size_t si = 0; si < stages.size(); ++si) {
    Stage& st = stages[si];
    label_groups(st);
    for (std::size_t gi = 0; gi < st.kernels.size(); ++gi) {
      set_span(st.kernels[gi], busy);
      KernelGroup& g = st.kernels[gi];
      for (std::size_t k = 0; k < g.launches.size(); ++k) {
        if (alone[origin[si][gi][k]] && g.launches[k].duration_ns)
          g.alone_min_ns = std::min(g.alone_min_ns.value_or(INFINITY), *g.launches[k].duration_ns);
        g.graph_node_launches += g.launches[k].graph_id != 0;
      }
      finish_group(g, origin[si][gi], complete);
    }
  }
  return stages;
}

}  // namespace kprof
