#include "session/publish.hpp"

#include <cstring>

#include "analyze/analyze_run.hpp"
#include "analyze/compare.hpp"
#include "render/devlog.hpp"
#include "render/timeline_report.hpp"
#include "session/artifact.hpp"
#include "session/outputs.hpp"
#include "util/folder_lock.hpp"
#include "util/fs.hpp"
#include "util/interrupt.hpp"
#include "util/utf8.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

namespace {

// Text that came from the profiled program (kernel and range names, ncu's strings) made valid UTF-8 before it
// reaches JSON or a report (util/utf8.hpp).
void make_text_valid(ProfileRun& run, Trace* trace) {
  auto fix = [](std::string& s) { make_valid_utf8(s); };
  fix(run.kernel), fix(run.version), fix(run.command), fix(run.device.name);
  for (auto& w : run.warnings) fix(w.text);
  for (auto& s : run.sources) fix(s);
  for (auto& st : run.stages) {
    fix(st.name);
    for (auto& g : st.kernels) {
      fix(g.kernel), fix(g.signature), fix(g.label);
      for (auto& l : g.launches) {
        fix(l.name), fix(l.function), fix(l.mangled), fix(l.nvtx_range);
        for (auto& n : l.nvtx_stack) fix(n);
        for (auto& m : l.sections) fix(m.name), fix(m.text);
        for (auto& r : l.rules) fix(r.name), fix(r.description);
      }
    }
  }
  if (trace)
    for (auto& s : trace->strings) fix(s);
}

}  // namespace

namespace {
constexpr char kArtifactMark[] = "<!-- kprof artifact: ";

// "<!-- kprof artifact: /abs/dir -->\n" (invisible in rendered Markdown): what makes an entry unique, since two
// artifacts of one kernel, version and mode in one second share the heading. One line, and no "--" to end the
// comment early.
std::string artifact_mark(const fs::path& artifact) {
  if (artifact.empty()) return "";
  std::error_code ec;
  fs::path dir = fs::absolute(artifact, ec).lexically_normal();
  if (dir.filename() == "profile.json") dir = dir.parent_path();
  std::string text = dir.string();
  make_valid_utf8(text);
  for (auto& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  for (std::size_t at; (at = text.find("--")) != std::string::npos;) text.replace(at, 2, "-\u2010");
  return kArtifactMark + text + " -->\n";
}
}  // namespace

fs::path append_devlog(const ProfileRun& run, const std::string& docs_dir, bool* appended, const fs::path& artifact) {
  fs::path file = fs::path(docs_dir) / (safe_name(run.kernel) + ".md");
  // Read, add, write back under the folder's lock: concurrent writers (runs, `kprof devlog`) each add their entry.
  FolderLock lock(file.has_parent_path() ? file.parent_path() : fs::path("."));
  std::string existing = fs::exists(file) ? read_file(file) : render::devlog_header(run.kernel);
  auto previous = render::previous_devlog_entry(existing, run);
  std::string entry = render::render_devlog_entry(run, previous);
  const std::size_t heading_end = entry.find('\n') + 1;
  const std::string heading = entry.substr(0, heading_end), mark = artifact_mark(artifact);
  // The same artifact's entry is there: its heading and its mark, or its heading without a mark (an entry written
  // before entries were marked, or of a run without an artifact).
  bool duplicate = false;
  const std::string text = "\n" + existing;
  for (std::size_t at = text.find("\n" + heading); at != std::string::npos && !duplicate;
       at = text.find("\n" + heading, at + 1)) {
    const std::size_t next = at + 1 + heading.size();
    const bool marked = text.compare(next, std::strlen(kArtifactMark), kArtifactMark) == 0;
    duplicate = mark.empty() || !marked || text.compare(next, mark.size(), mark) == 0;
  }
  if (!duplicate) write_file_atomic(file, existing + heading + mark + entry.substr(heading_end));
  if (appended) *appended = !duplicate;
  return file;
}

// profile.json keeps the raw counters (every metric of the page, ~2,200 with ncu's full set) of each group's
// representative launch only: the analysis reads no other launch's, and every launch's stay in the raw inputs the
// artifact keeps (ncu/*.csv, counters.json). The other launches keep their identity, timing, sections and rules.
// A 25 MB raw page's profile.json went from 82 MB to under 10 MB with this.
void keep_representative_metrics(ProfileRun& run) {
  for (auto& s : run.stages)
    for (auto& g : s.kernels) {
      if (g.representative < 0 || static_cast<std::size_t>(g.representative) >= g.launches.size()) continue;
      for (std::size_t i = 0; i < g.launches.size(); ++i)
        if (static_cast<int>(i) != g.representative) {
          g.launches[i].metrics.clear();
        }
    }
}

namespace {

// The one body of publish_run and publish: `stage` is where the artifact is written (null: none is).
Published publish_into(ProfileRun& run, const AnalysisContext& ctx, const OutputSpec& output, ArtifactStage* stage,
                       ExtraFiles files, Trace* trace, const ModeOutputs& outputs,
                       const SourceView* source) {
  make_text_valid(run, trace);
  // Parsers name the files they read in the staging directory, which is renamed (or removed) when the artifact is
  // complete: name them relative to the artifact instead ("ncu/ncu_raw.csv:4: ...").
  if (stage) {
    const std::string staging = stage->dir().string() + "/";
    for (auto& w : run.warnings)
      for (std::size_t at = w.text.find(staging); at != std::string::npos; at = w.text.find(staging, at))
        w.text.erase(at, staging.size());
  }
  auto analysis = analyze::analyze_run(run, ctx.devices, ctx.thresholds, trace, outputs.timeline);
  keep_representative_metrics(run);
  // Rendered again over what a re-analysis carried (source_files): the new trace's or source page's files win.
  const OutputSources fed{.run = run, .trace = trace, .analysis = analysis ? &*analysis : nullptr, .source = source};
  for (auto& [name, file] : render_mode_outputs(outputs, fed)) files[name] = std::move(file);
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
  Contract contract = contract_for(run, cmp, headline);
  if (stage) write_artifact(stage->dir(), run, cmp, files, base ? &*base : nullptr, &contract);
  p.contract_markdown = std::move(contract.markdown);
  p.contract_json = std::move(contract.json);
  p.warnings = run.warnings;
  return p;
}

// After the artifact is in place: the devlog entry (never for a partial one).
void add_devlog(Published& p, const ProfileRun& run, const OutputSpec& output) {
  if (output.devlog) p.devlog_file = append_devlog(run, output.docs_dir, &p.devlog_appended, p.dir);
}

}  // namespace

Published publish_run(ProfileRun& run, const AnalysisContext& ctx, const OutputSpec& output, const fs::path& dir,
                      ExtraFiles files, Trace* trace, const ModeOutputs& outputs,
                      const SourceView* source) {
  InterruptScope interrupts;
  std::optional<ArtifactStage> stage;
  if (!dir.empty()) stage.emplace(dir, !output.out_dir.empty(), output.replace);
  Published p = publish_into(run, ctx, output, stage ? &*stage : nullptr, std::move(files), trace, outputs, source);
  if (interrupt_signal())  // nothing was measured here: the staged directory goes (its destructor)
    throw Error("interrupted; no artifact written", interrupt_exit_code());
  if (stage) p.dir = stage->commit();
  add_devlog(p, run, output);
  return p;
}

Published publish(ProfileResult& r, const OutputSpec& output) {
  Published p = publish_into(r.run, r.context, output, r.stage.get(), {}, r.trace ? &*r.trace : nullptr,
                             r.plan.outputs, &r.source);
  if (interrupt_signal() && !r.exit_code) r.exit_code = interrupt_exit_code();
  if (!r.stage) return p;
  if (r.exit_code == kExitInterrupted || r.exit_code == kExitTerminated) {
    r.dir = p.dir = r.stage->keep_partial(std::string("interrupted by ") +
                                          (r.exit_code == kExitTerminated ? "SIGTERM" : "SIGINT") +
                                          "; what was measured before is kept, the report says so");
    return p;
  }
  r.dir = p.dir = r.stage->commit();
  add_devlog(p, r.run, output);
  return p;
}

}  // namespace kprof::session
