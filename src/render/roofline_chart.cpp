#include "render/roofline_chart.hpp"

#include <algorithm>
#include <set>

#include "render/contract_view.hpp"

namespace kprof::render {

namespace {
std::string level_name(const std::string& level) {
  if (level == "dram") return "HBM";
  if (level == "l2") return "L2";
  if (level == "l1") return "L1";
  return level;
}

void add_points(RooflineChart& chart, const ProfileRun& run, const std::string& version_tag,
                std::set<std::string>& precisions) {
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels) {
      if (!g.analysis) continue;
      std::string series = stage_display(s, g);
      auto add = [&](const RooflinePlacement& p) {
        if (p.arithmetic_intensity <= 0 || p.achieved_tflops <= 0) return;
        precisions.insert(p.precision);
        RooflinePoint pt;
        pt.series = series;  // one kernel, one colour and number; the marker's shape says the memory level
        pt.label = version_tag.empty() ? series : series + " " + version_tag;
        pt.level = level_name(p.memory_level);
        pt.arithmetic_intensity = p.arithmetic_intensity;
        pt.tflops = p.achieved_tflops;
        chart.points.push_back(pt);
      };
      if (g.analysis->roofline) add(*g.analysis->roofline);
      for (const auto& h : g.analysis->hierarchical)
        if (h.memory_level != "dram") add(h);
    }
}
}  // namespace

RooflineChart roofline_chart_for(const ProfileRun& run, const ProfileRun* baseline) {
  RooflineChart chart;
  chart.title = "Roofline: " + run.kernel + " " + run.version +
                (run.device_spec ? " on " + run.device_spec->name : std::string());
  std::set<std::string> precisions;
  // Baseline first so each series runs from the old version to the new one.
  if (baseline) add_points(chart, *baseline, baseline->version, precisions);
  add_points(chart, run, baseline ? run.version : std::string(), precisions);
  if (run.device_spec && !chart.points.empty()) {
    std::vector<std::string> precs(precisions.begin(), precisions.end());
    add_spec_roofs(chart, *run.device_spec, precs);
  }
  return chart;
}

}  // namespace kprof::render
