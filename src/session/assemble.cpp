#include "session/assemble.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "collect/merge_counters.hpp"
#include "collect/ncu/canonical.hpp"
#include "collect/stage_grouping.hpp"
#include "session/artifact.hpp"
#include "session/min_share.hpp"
#include "session/mode_table.hpp"
#include "util/errors.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

void use_counter_launches(Assembled& a, std::vector<KernelLaunch> launches) {
  if (a.trace) {
    for (auto& w : attach_counters(a.run.stages, launches)) a.run.warnings.push_back(w);
  } else {
    a.run.stages = group_into_stages(std::move(launches));
  }
}

namespace {

// Event mode's roofline: FLOPs and bytes of each kernel from an earlier annotation/ncu artifact.
void declare_from_counters(ProfileRun& run, const std::string& counters_from) {
  ProfileRun prev = load_artifact(counters_from);
  for (auto& s : run.stages)
    for (auto& g : s.kernels)
      for (const auto& ps : prev.stages)
        for (const auto& pg : ps.kernels)
          if (pg.kernel == g.kernel && pg.launch.grid == g.launch.grid && pg.launch.block == g.launch.block) {
            g.declared.flops = pg.metrics.total_flops();
            g.declared.min_bytes = pg.metrics.dram_bytes;
            g.declared.precision = pg.metrics.dominant_precision();
          }
}

// Event mode without --counters-from: the latest complete annotation (else ncu) artifact of the same kernel and
// parameters under the output root, or "" when there is none. Partial and interrupted artifacts are skipped.
std::string latest_counter_artifact(const ProfileRun& run, const std::string& out_root) {
  for (Mode mode : {Mode::Annotation, Mode::Ncu}) {
    fs::path d = fs::path(out_root) / std::string(mode_name(mode)) / safe_name(run.kernel.empty() ? "unnamed" : run.kernel) /
                 safe_name(run.params.dir_name());
    std::error_code ec;
    if (!fs::is_directory(d, ec)) continue;
    std::string best;
    for (const auto& e : fs::directory_iterator(d, ec)) {
      std::string name = e.path().filename().string();
      if (name.empty() || name[0] == '.' || !fs::exists(e.path() / "profile.json", ec) ||
          !fs::exists(e.path() / "report.md", ec) || fs::exists(e.path() / kPartialMarker, ec))
        continue;
      best = std::max(best, name);
    }
    if (!best.empty()) return (d / best).string();
  }
  return "";
}

}  // namespace

void apply_declared_stages(ProfileRun& run, const std::map<std::string, DeclaredWork>& declared) {
  for (const auto& [name, work] : declared) {
    bool seen = false;
    for (auto& s : run.stages)
      if (s.name == name) {
        s.declared = work;
        seen = true;
      }
    if (!seen)
      run.warnings.push_back(
          {WarningCode::Declared, "the plan declares stage '" + name + "' but no kernel ran inside that NVTX range"});
  }
}

Assembled assemble(const RunSpec& spec, const ModePlan& plan, const Collected& c) {
  Assembled a;
  ProfileRun& run = a.run;
  run.mode = plan.mode;
  run.kernel = kernel_name(spec);
  run.version = spec.version;
  run.params = spec.params;
  run.timestamp = c.timestamp;
  run.command = command_line(spec.command);
  run.nvtx_include = spec.filters.nvtx_include;
  run.clock_control = plan.clock_control;
  run.device.name = c.gpu_name;
  for (const auto& w : c.warnings_before) run.warnings.push_back({WarningCode::Clocks, w});
  const ProcessResult* first_run = c.program();  // its failure is the run's exit code (7); later ones are warnings
  for (const auto& pass : c.passes) {
    for (const auto& w : pass.warnings) run.warnings.push_back({collector_row(pass.kind).warnings, w});
    // A later pass whose program run failed (a counter run that broke the program, say) measured only what ran
    // before the failure: say so, or its missing kernels read as merely "not profiled".
    // (ncu passes are left out: their process is ncu, whose failure its own warning already explains.)
    const CollectorRow& row = collector_row(pass.kind);
    if (row.runs_program && pass.process && &*pass.process != first_run &&
        (pass.process->signaled || pass.process->exit_code != 0))
      run.warnings.push_back({WarningCode::ProgramRun,
                              fmt::format("the {} run of the program {}: kernels it did not reach have no data from it",
                                          collector_name(pass.kind), pass.process->describe())});
    if (row.read) row.read(a, PassReading{spec, c, pass});
  }
  for (const auto& w : c.warnings_after) run.warnings.push_back({WarningCode::Clocks, w});
  run.clocks = c.clocks;
  // Power, thermal or hardware slowdowns lower the clocks under the measurement: say so next to the numbers.
  if (run.clocks)
    for (const auto& r : run.clocks->throttle_reasons)
      if (r.find("power") != std::string::npos || r.find("thermal") != std::string::npos || r == "hw_slowdown")
        run.warnings.push_back(
            {WarningCode::Clocks, "GPU clocks were throttled (" + r + ") when the run ended: timings may be low"});
  // Groups the counter pass left out for their small share of GPU time say so (the pass filtered by that share).
  if (a.trace && min_share_applies(spec)) {
    const auto left_out = split_by_min_share(run.stages, spec.counters_min_share_pct).left_out;
    std::set<std::string> small;  // the labels of the groups left out for their share
    for (auto& s : run.stages)
      for (auto& g : s.kernels)
        if (g.counters_status == CountersStatus::NotProfiled &&
            std::binary_search(left_out.begin(), left_out.end(), g.kernel)) {
          g.counters_status = CountersStatus::BelowMinShare;
          g.counters_note = fmt::format("under {:g}% of GPU time, not profiled", spec.counters_min_share_pct);
          small.insert(g.label);
        }
    // One line for them all instead of one counters warning each (the warnings name their group).
    if (!small.empty()) {
      std::erase_if(run.warnings,
                    [&](const Warning& w) { return w.code == WarningCode::Counters && small.count(w.group); });
      run.warnings.push_back({WarningCode::Filter,
                              fmt::format("{} kernel group(s) under {:g}% of GPU time were not profiled for counters "
                                          "(their timings stand; --counters-min-share=0 profiles them)",
                                          small.size(), spec.counters_min_share_pct)});
    }
  }
  std::string counters_from = spec.counters_from;
  if (counters_from.empty() && spec.mode == Mode::Event && spec.declared_stages.empty() &&
      !spec.output.out_root.empty())
    counters_from = latest_counter_artifact(run, spec.output.out_root);
  if (!counters_from.empty()) {
    declare_from_counters(run, counters_from);
    run.sources.push_back("FLOPs/bytes per kernel: " + counters_from);
  }
  apply_declared_stages(run, spec.declared_stages);
  return a;
}

}  // namespace kprof::session

namespace kprof::session {

std::optional<Reassembled> reassemble_artifact(const fs::path& dir) {
  std::set<CollectorKind> found;  // the collectors whose raw files are in `dir`
  for (const auto& row : collector_rows())
    if (row.probe && row.probe(dir)) found.insert(row.kind);
  if (found.empty()) return std::nullopt;
  const ProfileRun recorded = load_artifact(dir);
  for (const auto& row : collector_rows())
    if (row.lost_without && !found.count(row.kind) && row.lost_without(recorded)) return std::nullopt;
  Reassembled r;
  RunSpec& spec = r.spec;
  spec.mode = recorded.mode;
  spec.kernel = recorded.kernel;
  spec.version = recorded.version;
  spec.params = recorded.params;
  spec.filters.nvtx_include = recorded.nvtx_include;
  spec.output.out_root.clear();  // a re-analysis looks up no other artifact
  // The command as recorded (arguments with spaces were quoted): only its first word matters here (Python or not).
  std::string word;
  for (char c : recorded.command + " ") {
    if (c != ' ') word += c;
    else if (!word.empty()) spec.command.push_back(word), word.clear();
  }
  for (const auto& row : collector_rows())
    if (row.recorded_choice) row.recorded_choice(spec, found.count(row.kind) > 0);
  for (const auto& s : recorded.stages)
    if (s.declared.flops || s.declared.min_bytes) spec.declared_stages[s.name] = s.declared;
  r.plan = plan_run(spec);
  Collected c;
  c.dir = dir;
  c.reanalysis = true;
  c.timestamp = recorded.timestamp;
  c.gpu_name = recorded.device.name;
  c.clocks = recorded.clocks;
  for (CollectorKind k : r.plan.collectors) {
    const CollectorRow& row = collector_row(k);
    if (row.read && (found.count(k) || row.replay_when_absent)) c.passes.push_back(PassRecord{k});
  }
  r.assembled = assemble(spec, r.plan, c);
  // The recorded inputs, then what the files themselves name (ncu mode's report) when not recorded already.
  std::vector<std::string> sources = recorded.sources;
  for (const auto& f : r.assembled.run.sources)
    if (std::find(sources.begin(), sources.end(), f) == sources.end()) sources.push_back(f);
  r.assembled.run.sources = std::move(sources);
  return r;
}

}  // namespace kprof::session

namespace kprof::session {

void rederive_metrics(ProfileRun& run) {
  for (auto& s : run.stages)
    for (auto& g : s.kernels) {
      if (g.representative < 0 || static_cast<std::size_t>(g.representative) >= g.launches.size()) continue;
      const KernelLaunch& rep = g.launches[static_cast<std::size_t>(g.representative)];
      if (rep.metrics.empty() && rep.sections.empty()) continue;
      CanonicalMetrics m = ncu::derive_canonical(rep);
      if (!m.duration_ns && g.duration_ns.count > 0) {
        m.duration_ns = g.duration_ns.median;
        m.provenance["duration_ns"] = "median of the group's launches (the profiled launch has no duration)";
      }
      g.metrics = std::move(m);
    }
}

}  // namespace kprof::session
