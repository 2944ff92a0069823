#include "session/publish.hpp"

#include <ostream>

#include "analyze/analyze_run.hpp"
#include "analyze/compare.hpp"
#include "render/chrome_trace.hpp"
#include "render/contract_markdown.hpp"
#include "render/devlog.hpp"
#include "render/json_output.hpp"
#include "render/source_markdown.hpp"
#include "render/timeline_report.hpp"
#include "session/artifact.hpp"
#include "util/fs.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

namespace {

// The files a mode writes from its trace and ncu's source page.
void add_mode_outputs(std::map<std::string, std::string>& files, const ModeOutputs& outputs, const Trace* trace,
                      const std::optional<TraceAnalysis>& analysis, const SourceView* source) {
  if (trace && analysis) {
    if (outputs.timing_report) files["timing.md"] = render::render_timing_report(*trace, analysis->stats);
    if (outputs.timeline && analysis->timeline) {
      files["timeline.md"] = render::render_timeline_report(*trace, *analysis->timeline, analysis->stats);
      files["kernels.csv"] = render::render_kernels_csv(*trace);
      files["memcpy.csv"] = render::render_memcpy_csv(*trace);
      files["api.csv"] = render::render_api_csv(*trace);
      files["overlap.csv"] = render::render_overlap_csv(*analysis->timeline);
    }
    if (outputs.chrome_trace) files["trace.json"] = render::render_chrome_trace(*trace);
  }
  if (outputs.source_pages && source)
    for (const auto& k : source->kernels) {
      std::string name = safe_name(k.function.empty() ? k.name : k.function);
      files["source/" + name + ".md"] = render::render_annotated_source(k);
      files["source/" + name + "_sass.csv"] = render::render_sass_csv(k);
    }
}

}  // namespace

fs::path append_devlog(const ProfileRun& run, const std::string& docs_dir) {
  fs::path file = fs::path(docs_dir) / (safe_name(run.kernel) + ".md");
  std::string existing = fs::exists(file) ? read_file(file) : render::devlog_header(run.kernel);
  auto previous = render::parse_last_devlog_entry(existing);
  write_file_atomic(file, existing + render::render_devlog_entry(run, previous));
  return file;
}

Published publish_run(ProfileRun& run, const AnalysisContext& ctx, const OutputSpec& output, const fs::path& dir,
                      std::map<std::string, std::string> files, const Trace* trace, const ModeOutputs& outputs,
                      const SourceView* source) {
  auto analysis = analyze::analyze_run(run, ctx.devices, ctx.thresholds, trace, outputs.timeline);
  add_mode_outputs(files, outputs, trace, analysis, source);
  Published p;
  std::optional<ProfileRun> base;
  if (!output.baseline.empty()) {
    base = load_artifact(output.baseline);
    p.comparison = analyze::compare_runs(*base, run, ctx.thresholds);
  }
  const Comparison* cmp = p.comparison ? &*p.comparison : nullptr;
  // nsys mode: the timeline's headline figures belong in the contract, not only in timeline.md.
  std::string headline;
  if (trace && analysis && analysis->timeline && outputs.timeline)
    headline = render::render_timeline_headline(*trace, *analysis->timeline);
  if (!dir.empty()) {
    write_artifact(dir, run, cmp, files, base ? &*base : nullptr, headline);
    p.dir = dir;
  }
  if (output.devlog) p.devlog_file = append_devlog(run, output.docs_dir);
  p.contract_markdown = render::render_contract(run, cmp) + headline;
  p.contract_json = render::render_contract_json(run, cmp);
  p.warnings = run.warnings;
  return p;
}

Published publish(ProfileResult& r, const OutputSpec& output) {
  return publish_run(r.run, r.context, output, r.dir, {}, r.trace ? &*r.trace : nullptr, r.plan.outputs, &r.source);
}

void print_published(const Published& p, bool json, bool quiet, std::ostream& out, std::ostream& err) {
  if (quiet) return;
  if (!p.devlog_file.empty()) err << "kprof: devlog entry appended to " << p.devlog_file.string() << "\n";
  for (const auto& w : p.warnings) err << "kprof: warning: " << w << "\n";
  if (!p.dir.empty()) err << "kprof: artifacts written to " << p.dir.string() << "\n";
  out << (json ? p.contract_json : p.contract_markdown);
}

}  // namespace kprof::session
