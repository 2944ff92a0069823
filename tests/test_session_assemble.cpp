// The seam between collecting and assembling (session/assemble.hpp), replayed on raw outputs captured on the H200
// (examples/h200/): the trace, counters and ncu files each run left in its artifact directory go through the
// same assemble() a live run uses, and must give the stages, kernel groups, launches and metrics that run wrote
// to its profile.json (everything but the analysis, which publish() adds).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "analyze/analyze_run.hpp"
#include "session/artifact.hpp"
#include "session/assemble.hpp"
#include "session/collector.hpp"
#include "session/mode_table.hpp"
#include "session/publish.hpp"
#include "util/errors.hpp"

namespace fs = std::filesystem;
using namespace kprof;
using namespace kprof::session;

namespace {

fs::path examples() { return fs::path(KPROF_SOURCE_DIR) / "examples" / "h200"; }

struct Replay {
  const char* dir;  // under examples/h200/
  std::optional<CounterSource> counters;
  TimingSource timing = TimingSource::Trace;
};

// The spec the run had, as far as assembly reads it: mode, names, command and declared work from profile.json.
RunSpec spec_of(const ProfileRun& recorded, const Replay& r) {
  RunSpec spec;
  spec.mode = recorded.mode;
  spec.kernel = recorded.kernel;
  spec.version = recorded.version;
  spec.params = recorded.params;
  spec.output.out_root.clear();  // no lookup of other artifacts (event mode's automatic roofline source)
  std::string word;
  for (char c : recorded.command + " ") {
    if (c != ' ') {
      word += c;
    } else if (!word.empty()) {
      spec.command.push_back(word);
      word.clear();
    }
  }
  spec.counters = r.counters ? r.counters : CounterSource::Ncu;
  spec.timing = r.timing;
  for (const auto& s : recorded.stages)
    if (s.declared.flops) spec.declared_stages[s.name] = s.declared;
  return spec;
}

// What the collectors would have recorded besides their files: the passes in order, the GPU's name and clocks.
Collected facts_of(const ProfileRun& recorded, const ModePlan& plan, const fs::path& dir) {
  Collected c;
  c.dir = dir;
  c.timestamp = recorded.timestamp;
  c.gpu_name = recorded.device.name;
  c.clocks = recorded.clocks;
  // Runs recorded before ncu mode had a tracer pass have no trace file: no tracer pass then.
  for (CollectorKind k : plan.collectors)
    if (k != CollectorKind::Clocks && (k != CollectorKind::Tracer || fs::exists(dir / "trace.kptrace")))
      c.passes.push_back(PassRecord{k});
  return c;
}

// The stages as assembly makes them: without the analysis, and without the counters status, which the recorded
// artifacts (from before the status existed) do not hold (the note beside it, which they hold, is compared).
json without_analysis(std::vector<Stage> stages) {
  for (auto& s : stages) {
    // The stage's range instances and bound come from the analysis of the trace, as each group's analysis does.
    s.range.reset();
    s.bound.reset();
    for (auto& g : s.kernels) {
      g.analysis.reset();
      g.counters_status = CountersStatus::NotJoined;
      // Derived from counters the recorded runs already hold, but added after they were written (issue 23).
      for (auto* m : {&g.metrics}) {
        m->global_load_bytes_per_sector.reset();
        m->global_store_bytes_per_sector.reset();
        m->sm_active_pct.reset();
        m->idc_pct.reset();
        for (const char* f : {"global_load_bytes_per_sector", "global_store_bytes_per_sector", "sm_active_pct", "idc_pct"})
          m->provenance.erase(f);
      }
    }
  }
  return stages;
}

}  // namespace

TEST(SessionAssemble, RawOutputsFromTheH200ReassembleIntoTheRecordedRuns) {
  const Replay replays[] = {
      {"profiles/event_probe"},
      {"profiles/event_streams"},
      {"profiles/event_triton"},
      {"profiles/event_elementwise_1"},
      {"profiles/nsys_streams"},
      {"profiles/nsys_triton"},
      {"profiles/annotation_probe"},                 // tracer durations + ncu counters once per kernel
      {"profiles/annotation_probe_all_launches"},
      {"profiles/annotation_streams"},
      {"profiles/annotation_triton"},
      {"profiles/annotation_probe_ncutiming", CounterSource::Ncu, TimingSource::Counters},
      {"profiles/annotation_probe_cupti_counters", CounterSource::Cupti, TimingSource::Counters},
      {"profiles/ncu_probe"},                        // --set full: raw, details, source and session pages
      {"packages/mla_v3_ncu"},                       // a package plan with declared work per stage
  };
  for (const auto& r : replays) {
    SCOPED_TRACE(r.dir);
    const fs::path dir = examples() / r.dir;
    const ProfileRun recorded = load_artifact(dir);
    const RunSpec spec = spec_of(recorded, r);
    const ModePlan plan = plan_run(spec);
    const Assembled a = assemble(spec, plan, facts_of(recorded, plan, dir));
    EXPECT_EQ(a.run.mode, recorded.mode);
    EXPECT_EQ(a.run.kernel, recorded.kernel);
    EXPECT_EQ(a.run.clock_control, recorded.clock_control);
    EXPECT_EQ(a.run.device.name, recorded.device.name);
    EXPECT_EQ(a.trace.has_value(), plan.has(CollectorKind::Tracer) && fs::exists(dir / "trace.kptrace"));
    // The analysis completes each group's metrics from the device spec (occupancy limits, DRAM against the
    // measured bandwidth): do the same to the reassembled run before comparing.
    // profile.json keeps the raw counters of each group's representative launch only (publish does the same).
    ProfileRun thinned = a.run;
    keep_representative_metrics(thinned);
    auto stages = thinned.stages;
    for (auto& s : stages)
      for (auto& g : s.kernels) analyze::complete_metrics(g.metrics, recorded.device_spec ? &*recorded.device_spec : nullptr);
    // Runs recorded before the counter merge refused one instantiation's counters to another (annotation_triton:
    // torch's randn and elementwise kernels of one launch shape shared one profiled launch) differ exactly there.
    const std::string other_instantiation = "the profiled launch of this name and shape belongs to another instantiation";
    auto recorded_stages = recorded.stages;
    std::set<std::string> refused;
    for (std::size_t si = 0; si < stages.size() && si < recorded_stages.size(); ++si)
      for (std::size_t gi = 0; gi < stages[si].kernels.size() && gi < recorded_stages[si].kernels.size(); ++gi)
        if (stages[si].kernels[gi].counters_note == other_instantiation) {
          recorded_stages[si].kernels[gi] = stages[si].kernels[gi];
          refused.insert(stages[si].kernels[gi].label);
        }
    const json got = without_analysis(stages), want = without_analysis(recorded_stages);
    EXPECT_TRUE(got == want) << "JSON patch from the recorded stages to the reassembled ones (first 2000 chars): "
                             << json::diff(want, got).dump().substr(0, 2000);
    // Every warning assembly gives was in the recorded run's (which also holds the analysis's own).
    for (const auto& w : a.run.warnings) {
      bool new_refusal = false;
      for (const auto& label : refused)
        new_refusal = new_refusal || w.text.rfind("no counters for " + label + ":", 0) == 0;
      // Recorded artifacts from before the codes hold the sentences only: the text is what must match.
      const bool recorded_before = std::any_of(recorded.warnings.begin(), recorded.warnings.end(),
                                               [&](const Warning& r) { return r.text == w.text; });
      if (!new_refusal) {
        EXPECT_TRUE(recorded_before) << w.text;
      }
    }
    if (r.dir == std::string("profiles/annotation_triton")) {
      EXPECT_FALSE(refused.empty());
    }
  }
}

TEST(SessionAssemble, MissingOrBrokenRawFilesBecomeWarningsNotCrashes) {
  const fs::path dir = fs::temp_directory_path() / "kprof_session_assemble_empty";
  fs::remove_all(dir);
  fs::create_directories(dir);
  RunSpec spec;
  spec.mode = Mode::Annotation;
  spec.counters = CounterSource::Cupti;
  spec.command = {"./app"};
  const ModePlan plan = plan_run(spec);
  Collected c;
  c.dir = dir;
  for (CollectorKind k : plan.collectors) c.passes.push_back(PassRecord{k});
  auto a = assemble(spec, plan, c);
  EXPECT_TRUE(a.run.stages.empty());
  ASSERT_EQ(a.run.warnings.size(), 2u);
  EXPECT_NE(a.run.warnings[0].text.find("wrote no trace"), std::string::npos);
  EXPECT_NE(a.run.warnings[1].text.find("wrote no counters"), std::string::npos);
  std::ofstream(dir / "counters.json") << "{broken";
  a = assemble(spec, plan, c);
  EXPECT_NE(a.run.warnings.back().text.find("counters not read"), std::string::npos) << a.run.warnings.back().text;
  // An ncu counter pass stopped by SIGTERM left an empty table (on the H200): a warning, and what the tracer pass
  // measured stays; a re-analysis, which reads only finished runs, refuses it.
  spec.counters = CounterSource::Ncu;
  const ModePlan ncu_plan = plan_run(spec);
  c.passes.clear();
  for (CollectorKind k : ncu_plan.collectors) c.passes.push_back(PassRecord{k});
  fs::create_directories(dir / "ncu");
  std::ofstream(dir / "ncu" / "ncu_raw.csv") << "==PROF== Connected to process 1 (/app)\n";
  a = assemble(spec, ncu_plan, c);
  EXPECT_NE(a.run.warnings.back().text.find("ncu's output not read: "), std::string::npos) << a.run.warnings.back().text;
  for (auto& p : c.passes)
    if (p.kind == CollectorKind::NcuMetrics) {
      p.process = ProcessResult{};
      p.process->interrupted = true;
    }
  a = assemble(spec, ncu_plan, c);
  EXPECT_NE(a.run.warnings.back().text.find("ncu was interrupted before its output was complete"), std::string::npos)
      << a.run.warnings.back().text;
  c.reanalysis = true;
  EXPECT_THROW(assemble(spec, ncu_plan, c), ParseError);
  fs::remove_all(dir);
}

// Event mode without --counters-from takes FLOPs and bytes per kernel from the latest complete annotation artifact
// of the same kernel and parameters under the output root, skips hidden (partial) directories, and names it.
TEST(SessionAssemble, EventModeFindsTheLatestAnnotationArtifactForItsRoofline) {
  const fs::path corpus = fs::path(KPROF_SOURCE_DIR) / "tests/fixtures/h200-corpus/corpus";
  const fs::path root = fs::temp_directory_path() / ("kprof-event-lookup-" + std::to_string(::getpid()));
  fs::remove_all(root);
  // An annotation artifact of diag_corpus, assembled from the corpus capture and written where kprof puts it.
  RunSpec a;
  a.mode = Mode::Annotation;
  a.kernel = "diag_corpus";
  a.command = {"diag_corpus"};
  a.counters = CounterSource::Ncu;
  auto aplan = plan_run(a);
  Collected ac;
  ac.dir = corpus / "annotation-ncu";
  ac.timestamp = "2026-12-01T05:00:00Z";
  for (CollectorKind k : aplan.collectors)
    if (k != CollectorKind::Clocks && k != CollectorKind::CompiledCode) ac.passes.push_back(PassRecord{k});
  ProfileRun annotated = assemble(a, aplan, ac).run;
  const fs::path dir = artifact_dir(annotated, root.string(), "");
  write_artifact(dir, annotated, nullptr);
  // A newer directory that is hidden (a partial write) and one without report.md must both be passed over.
  fs::create_directories(dir.parent_path() / ".99999999-999999.partial");
  fs::copy_file(dir / "profile.json", dir.parent_path() / ".99999999-999999.partial" / "profile.json");
  fs::create_directories(dir.parent_path() / "99999999-999999");
  fs::copy_file(dir / "profile.json", dir.parent_path() / "99999999-999999" / "profile.json");

  RunSpec e;
  e.mode = Mode::Event;
  e.kernel = "diag_corpus";
  e.command = {"diag_corpus"};
  e.output.out_root = root.string();
  auto eplan = plan_run(e);
  Collected ec;
  ec.dir = corpus / "ncu";  // its trace.kptrace: the same program's launches
  for (CollectorKind k : eplan.collectors)
    if (k == CollectorKind::Tracer) ec.passes.push_back(PassRecord{k});
  ProfileRun run = assemble(e, eplan, ec).run;
  ASSERT_FALSE(run.sources.empty());
  EXPECT_EQ(run.sources.back(), "FLOPs/bytes per kernel: " + dir.string());
  int declared = 0;
  for (const auto& st : run.stages)
    for (const auto& g : st.kernels) declared += g.declared.flops.has_value();
  EXPECT_GE(declared, 15) << "kernel groups with FLOPs from the annotation artifact";

  // Without an output root (a re-analysis) nothing is looked up.
  e.output.out_root.clear();
  ProfileRun bare = assemble(e, eplan, ec).run;
  for (const auto& src : bare.sources) EXPECT_EQ(src.find("FLOPs/bytes per kernel"), std::string::npos);
  fs::remove_all(root);
}

// kprof.profile(mode="ncu") from Python re-runs the whole script under `kprof run --prof-type=ncu --nvtx-include
// kprof.profile/`: ncu profiled only the launches inside that range, but the tracer pass saw the whole script
// (random init, the autotuning, torch's reference softmax). The report keeps the range's launches only, and the
// plan's declared work reaches its stage. Real capture: examples/python/softmax_versions.py v1 on the H200.
TEST(SessionAssemble, NvtxIncludeKeepsOnlyTheRangesTracedLaunches) {
  const fs::path dir = fs::path(KPROF_SOURCE_DIR) / "tests/fixtures/h200-python/softmax_ncu_v1";
  RunSpec spec;
  spec.mode = Mode::Ncu;
  spec.kernel = "softmax";
  spec.command = {"python3", "softmax_versions.py"};
  spec.output.out_root.clear();
  spec.declared_stages["row_softmax"] = DeclaredWork{5.0 * 16384 * 4096, 2.0 * 16384 * 4096 * 4, "fp32"};
  auto plan = plan_run(spec);
  Collected c;
  c.dir = dir;
  for (CollectorKind k : plan.collectors)
    if (k != CollectorKind::Clocks && k != CollectorKind::CompiledCode) c.passes.push_back(PassRecord{k});

  auto count = [](const ProfileRun& run) {
    std::size_t groups = 0, launches = 0;
    for (const auto& s : run.stages)
      for (const auto& g : s.kernels) ++groups, launches += g.launches.size();
    return std::pair{groups, launches};
  };
  // Unfiltered (what kprof did before): every kernel of the script, most of them without counters.
  spec.filters.nvtx_include.clear();
  const ProfileRun all = assemble(spec, plan_run(spec), c).run;
  EXPECT_GT(count(all).first, 5u);

  spec.filters.nvtx_include = "kprof.profile/";
  const ProfileRun run = assemble(spec, plan_run(spec), c).run;
  ASSERT_EQ(run.stages.size(), 1u);
  const Stage& s = run.stages[0];
  EXPECT_EQ(s.name, "row_softmax");
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_NE(s.kernels[0].kernel.find("softmax_two_pass"), std::string::npos) << s.kernels[0].kernel;
  EXPECT_EQ(s.kernels[0].duration_ns.count, 2u) << "bench_runs=2 traced inside the range (the check's run is not)";
  EXPECT_TRUE(s.kernels[0].counters_note.empty()) << "ncu's counters joined to the range's launch: "
                                                  << s.kernels[0].counters_note;
  ASSERT_TRUE(s.declared.flops.has_value());
  EXPECT_EQ(run.nvtx_include, "kprof.profile/");
  EXPECT_TRUE(std::any_of(run.warnings.begin(), run.warnings.end(), [](const Warning& w) {
    return w.text.find("ran outside that range and are left out") != std::string::npos;
  }));
  for (const auto& w : run.warnings) EXPECT_EQ(w.text.find("no counters for"), std::string::npos) << w.text;

  // A form the counters do not read (a domain, a regex) restricts nothing and says so, rather than dropping
  // every launch.
  spec.filters.nvtx_include = "Domain@kprof.profile/";
  const ProfileRun domain = assemble(spec, plan_run(spec), c).run;
  EXPECT_EQ(count(domain), count(all));
  EXPECT_TRUE(std::any_of(domain.warnings.begin(), domain.warnings.end(), [](const Warning& w) {
    return w.text.find("only push/pop range paths") != std::string::npos && w.code == WarningCode::Filter;
  }));
  // The counters' match: the ranges adjacent on the stack; a path that is not there keeps nothing.
  spec.filters.nvtx_include = "row_softmax/kprof.profile/";
  EXPECT_EQ(count(assemble(spec, plan_run(spec), c).run).first, 0u);
}

// A counter run that broke the program (it exited 1 at a CUDA-graph capture on the H200) measured only the kernels
// before that point: the run says so instead of listing the rest as merely not profiled.
TEST(SessionAssemble, ALaterPassWhoseProgramFailedIsAWarning) {
  const fs::path dir = fs::path(KPROF_SOURCE_DIR) / "tests/fixtures/h200-corpus/corpus/annotation-cupti";
  RunSpec spec;
  spec.mode = Mode::Annotation;
  spec.kernel = "diag_corpus";
  spec.command = {"diag_corpus"};
  spec.counters = CounterSource::Cupti;
  spec.output.out_root.clear();
  auto plan = plan_run(spec);
  Collected c;
  c.dir = dir;
  for (CollectorKind k : plan.collectors) {
    if (k == CollectorKind::Clocks || k == CollectorKind::CompiledCode) continue;
    PassRecord p{k};
    p.process = ProcessResult{};
    p.process->exit_code = k == CollectorKind::CuptiCounters ? 1 : 0;
    c.passes.push_back(p);
  }
  const ProfileRun failed = assemble(spec, plan, c).run;
  EXPECT_TRUE(std::any_of(failed.warnings.begin(), failed.warnings.end(), [](const Warning& w) {
    return w.text.find("the cupti-counters run of the program exited with code 1") != std::string::npos &&
           w.code == WarningCode::ProgramRun;
  }));
  for (auto& p : c.passes) p.process->exit_code = 0;
  const ProfileRun ok = assemble(spec, plan, c).run;
  for (const auto& w : ok.warnings) EXPECT_EQ(w.text.find("run of the program"), std::string::npos) << w.text;
}

// A live run's parsers name the pages in the staging directory (".<name>.partial-<pid>/ncu/ncu_raw.csv:4: ..."),
// which is renamed when the artifact is complete: the published warnings name them relative to the artifact
// (seen on the H200 with a faulting kernel, scripts/device/reliability.sh).
TEST(SessionAssemble, PublishedWarningsNameFilesInTheArtifactNotTheStagingDirectory) {
  const fs::path root = fs::temp_directory_path() / ("kprof_publish_paths_" + std::to_string(::getpid()));
  fs::remove_all(root);
  ProfileResult r;
  r.dir = root / "art";
  r.stage = std::make_shared<ArtifactStage>(r.dir, /*exact=*/true, /*replace=*/false);
  r.context = AnalysisContext::load({});
  r.run.mode = Mode::Ncu;
  r.run.kernel = "misbehave";
  const std::string staged = (r.stage->dir() / "ncu" / "ncu_raw.csv").string();
  ASSERT_NE(staged.find(".partial-"), std::string::npos) << staged;
  r.run.warnings.push_back({WarningCode::Implausible, staged + ":4: \"x\" = \"nan\": not a finite number; value left out"});
  OutputSpec out;
  out.out_dir = r.dir.string();
  Published p = publish(r, out);
  ASSERT_FALSE(p.warnings.empty());  // the analysis may add its own (no stages here)
  EXPECT_EQ(p.warnings[0].text, "ncu/ncu_raw.csv:4: \"x\" = \"nan\": not a finite number; value left out");
  std::ifstream report(r.dir / "report.md");
  std::string text((std::istreambuf_iterator<char>(report)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find(".partial-"), std::string::npos);
  EXPECT_NE(text.find("ncu/ncu_raw.csv:4"), std::string::npos) << text.substr(0, 2000);
  fs::remove_all(root);
}
