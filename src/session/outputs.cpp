#include "session/outputs.hpp"

#include "render/chrome_trace.hpp"
#include "render/contract_markdown.hpp"
#include "render/json_output.hpp"
#include "render/report_markdown.hpp"
#include "render/roofline_chart.hpp"
#include "render/roofline_svg.hpp"
#include "render/source_markdown.hpp"
#include "render/timeline_report.hpp"

namespace kprof::session {

namespace {

bool has_sections(const ProfileRun& run) {
  for (const auto& s : run.stages)
    for (const auto& k : s.kernels)
      for (const auto& l : k.launches)
        if (!l.sections.empty() || !l.rules.empty()) return true;
  return false;
}

bool traced(const OutputSources& from) { return from.trace && from.analysis; }
bool timeline(const OutputSources& from) { return traced(from) && from.analysis->timeline; }

}  // namespace

// Names were made valid UTF-8 before (publish.cpp); `replace` keeps any other invalid byte from throwing.
const std::vector<OutputRow>& output_rows() {
  static const std::vector<OutputRow> rows{
    {"params.json", "", OutputInput::run, nullptr, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       f["params.json"] = json(s.run.params).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
     }},
    {"profile.json", "", OutputInput::run, nullptr, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       f["profile.json"] = json(s.run).dump(1, ' ', false, json::error_handler_t::replace) + "\n";
     }},
    {"contract.md", "", OutputInput::run, nullptr, nullptr,
     [](const OutputSources& s, ExtraFiles& f) { f["contract.md"] = s.contract->markdown; }},
    {"contract.json", "", OutputInput::run, nullptr, nullptr,
     [](const OutputSources& s, ExtraFiles& f) { f["contract.json"] = s.contract->json; }},
    {"report.md", "", OutputInput::run, nullptr, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       f["report.md"] = render::render_report(s.run, s.comparison) + s.contract->extra;
     }},
    {"roofline.svg", "roofline.svg (when kernels can be placed)", OutputInput::run, nullptr, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       auto chart = render::roofline_chart_for(s.run, s.baseline);
       if (!chart.points.empty()) f["roofline.svg"] = render::render_roofline_svg(chart);
     }},
    {"timing.md", "", OutputInput::trace, &ModeOutputs::timing_report, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       if (traced(s)) f["timing.md"] = render::render_timing_report(*s.trace, s.analysis->stats);
     }},
    {"timeline.md", "", OutputInput::trace, &ModeOutputs::timeline, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       if (timeline(s))
         f["timeline.md"] = render::render_timeline_report(*s.trace, *s.analysis->timeline, s.analysis->stats);
     }},
    {"kernels.csv", "", OutputInput::trace, &ModeOutputs::timeline, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       if (timeline(s)) f["kernels.csv"] = render::render_kernels_csv(*s.trace);
     }},
    {"memcpy.csv", "", OutputInput::trace, &ModeOutputs::timeline, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       if (timeline(s)) f["memcpy.csv"] = render::render_memcpy_csv(*s.trace);
     }},
    {"api.csv", "", OutputInput::trace, &ModeOutputs::timeline, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       if (timeline(s)) f["api.csv"] = render::render_api_csv(*s.trace);
     }},
    {"overlap.csv", "", OutputInput::trace, &ModeOutputs::timeline, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       if (timeline(s)) f["overlap.csv"] = render::render_overlap_csv(*s.analysis->timeline);
     }},
    {"trace.json", "", OutputInput::trace, &ModeOutputs::chrome_trace, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       if (traced(s)) f["trace.json"] = render::render_chrome_trace(*s.trace);
     }},
    // Written for every run with NCU sections; listed by ncu mode's dry run, whose runs have them.
    {"report-verbose.md", "", OutputInput::run, nullptr, &ModeOutputs::source_pages,
     [](const OutputSources& s, ExtraFiles& f) {
       if (has_sections(s.run)) f["report-verbose.md"] = render::render_report_verbose(s.run, s.comparison);
     }},
    {"source/", "", OutputInput::source_page, &ModeOutputs::source_pages, nullptr,
     [](const OutputSources& s, ExtraFiles& f) {
       if (!s.source) return;
       for (const auto& k : s.source->kernels) {
         std::string name = safe_name(k.function.empty() ? k.name : k.function);
         f["source/" + name + ".md"] = render::render_annotated_source(k);
         f["source/" + name + "_sass.csv"] = render::render_sass_csv(k);
       }
     }},
  };
  return rows;
}

Contract contract_for(const ProfileRun& run, const Comparison* vs_baseline, const std::string& extra) {
  return {render::render_contract(run, vs_baseline) + extra, render::render_contract_json(run, vs_baseline), extra};
}

ExtraFiles render_mode_outputs(const ModeOutputs& outputs, const OutputSources& from) {
  ExtraFiles files;
  for (const auto& row : output_rows())
    if (row.input != OutputInput::run && row.mode && outputs.*row.mode) row.render(from, files);
  return files;
}

std::set<std::string> derived_outputs() {
  std::set<std::string> names{kPartialMarker};
  for (const auto& row : output_rows())
    if (row.input == OutputInput::run) names.emplace(row.name);
  return names;
}

std::vector<std::string> ModeOutputs::names() const {
  std::vector<std::string> n;
  for (const auto& row : output_rows())
    if ((!row.mode || this->*row.mode) && (!row.listed_with || this->*row.listed_with))
      n.emplace_back(row.listed_as.empty() ? row.name : row.listed_as);
  return n;
}

}  // namespace kprof::session
