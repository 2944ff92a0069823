#include "session/assemble.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "collect/counters/counters_format.hpp"
#include "collect/counters/counters_import.hpp"
#include "collect/merge_counters.hpp"
#include "collect/ncu/canonical.hpp"
#include "collect/ncu/ncu_import.hpp"
#include "collect/nvtx_path.hpp"
#include "collect/stage_grouping.hpp"
#include "collect/trace/trace_launches.hpp"
#include "collect/trace/trace_reader.hpp"
#include "collect/trace/tracer_env.hpp"
#include "session/artifact.hpp"
#include "session/mode_table.hpp"
#include "util/errors.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

namespace {

// Counters of one launch per kernel, joined to the traced launches (or standing alone without a trace).
void use_counter_launches(Assembled& a, std::vector<KernelLaunch> launches) {
  if (a.trace) {
    for (auto& w : attach_counters(a.run.stages, launches)) a.run.warnings.push_back(w);
  } else {
    a.run.stages = group_into_stages(std::move(launches));
  }
}

// The traced launches inside the NVTX range the counter pass was restricted to (--nvtx-include): the trace sees
// the whole program, the report only what the counters could see (the counter selection's match, collect/nvtx_path.hpp).
std::vector<KernelLaunch> inside_nvtx_filter(std::vector<KernelLaunch> launches, const std::string& filter,
                                             bool nvtx_recorded, std::vector<std::string>& warnings) {
  if (filter.empty()) return launches;
  const auto want = nvtx_path_supported(filter) ? parse_nvtx_path(filter) : std::vector<std::string>{};
  if (want.empty()) {
    warnings.push_back("--nvtx-include '" + filter + "': only push/pop range paths (\"a/b/\") restrict the traced "
                       "timings; they cover every kernel of the program");
    return launches;
  }
  if (!nvtx_recorded) {
    warnings.push_back("--nvtx-include '" + filter + "': the trace holds no NVTX ranges, so its timings cover every "
                       "kernel of the program, not only that range");
    return launches;
  }
  const size_t before = launches.size();
  std::erase_if(launches, [&](const KernelLaunch& l) { return !stack_has_path(want, l.nvtx_stack); });
  if (launches.size() < before)
    warnings.push_back(fmt::format("--nvtx-include '{}': {} of {} traced launches ran outside that range and are "
                                   "left out",
                                   filter, before - launches.size(), before));
  return launches;
}

void read_trace_pass(Assembled& a, const fs::path& dir, const std::string& nvtx_include) {
  fs::path file = dir / tracer_env::kFileName;
  if (!fs::exists(file)) {
    a.run.warnings.push_back("the program wrote no trace (it may not use CUDA, or the tracer could not attach)");
    return;
  }
  a.trace = read_trace(file);
  const Trace& t = *a.trace;
  if (t.info.dropped_records > 0)
    a.run.warnings.push_back(fmt::format("CUPTI dropped {} records: the trace is incomplete", t.info.dropped_records));
  for (const auto& e : t.info.errors) a.run.warnings.push_back("CUPTI: " + e);
  if (t.info.interrupted) a.run.warnings.push_back("the traced program was interrupted; the trace ends there");
  a.run.stages = group_into_stages(inside_nvtx_filter(kernel_launches(t), nvtx_include,
                                                      t.info.nvtx_traced && !t.nvtx.empty(), a.run.warnings));
}

void read_counter_pass(Assembled& a, const fs::path& dir, bool reanalysis) {
  fs::path file = dir / counters_format::kFileName;
  if (!fs::exists(file)) {
    a.run.warnings.push_back("the program wrote no counters (it may not use CUDA, or the collector could not attach)");
    return;
  }
  counters::CounterSession session;
  try {
    session = counters::import_counters(file);
  } catch (const ParseError& e) {  // what the tracer pass measured is still written
    if (reanalysis) throw;
    a.run.warnings.push_back(std::string("counters not read: ") + e.what());
    return;
  }
  const auto& d = session.device;  // the driver's view: name as nvidia-smi prints it, plus CC and SMs
  if (!d.name.empty()) {
    a.run.device.name = d.name;
    a.run.device.compute_capability = d.compute_capability;
    a.run.device.sm_count = d.sm_count;
  }
  for (const auto& w : session.warnings) a.run.warnings.push_back(w);
  if (session.launches.empty() && session.warnings.empty())
    a.run.warnings.push_back("the counter run profiled no kernel launch");
  use_counter_launches(a, std::move(session.launches));
}

// The pages ncu left in ncu/, raw first (the order the importer merges in).
std::vector<std::string> ncu_csv_files(const fs::path& dir) {
  std::vector<std::string> files;
  for (auto page : {"ncu_raw.csv", "ncu_details.csv", "ncu_source.csv", "ncu_session.csv"}) {
    fs::path p = dir / "ncu" / page;
    std::error_code ec;
    if (fs::exists(p) && fs::file_size(p, ec) > 0) files.push_back(p.string());
  }
  return files;
}

void read_ncu_pass(Assembled& a, const fs::path& dir, const PassRecord& pass, bool reanalysis) {
  auto csv = ncu_csv_files(dir);
  if (csv.empty()) {
    if (pass.failure.empty()) a.run.warnings.push_back("ncu produced no CSV output");
    return;
  }
  ncu::NcuImport imported;
  const bool stopped = pass.process && pass.process->interrupted;
  for (;;) {
    try {
      imported = ncu::import_ncu(csv);
      break;
    } catch (const ParseError& e) {
      // A page other than raw that holds no table is left out, the rest read: on the H200, ncu's source page of
      // a PyTorch program (no kernel built with -lineinfo) held only "No lineinfo available" warnings, and
      // dropping every page for it lost all the counters of the run.
      // A re-analysis reads finished runs only: it leaves out a page that holds no table (what ncu wrote for
      // kernels without -lineinfo), not one that is inconsistent with the others.
      const auto failed = std::find(csv.begin(), csv.end(), e.file());
      const bool no_table = std::string(e.what()).find("no Nsight Compute CSV table") != std::string::npos;
      if (!stopped && failed != csv.end() && fs::path(*failed).filename() != "ncu_raw.csv" &&
          (!reanalysis || no_table)) {
        a.run.warnings.push_back(fmt::format("ncu/{} left out ({}); the other pages are read",
                                             fs::path(*failed).filename().string(), e.what()));
        csv.erase(failed);
        if (!csv.empty()) continue;
      }
      // What the earlier passes measured is still written. An ncu stopped by Ctrl-C/SIGTERM (SIGTERM on the
      // H200: an empty raw page) or one that failed leaves pages it never finished; a re-analysis reads only
      // finished runs.
      if (reanalysis) throw;
      a.run.warnings.push_back(std::string(stopped ? "ncu was interrupted before its output was complete; "
                                                   : "ncu's output not read: ") +
                               e.what());
      return;
    }
  }
  a.run.device = imported.run.device;
  for (const auto& w : imported.run.warnings) a.run.warnings.push_back(w);
  if (a.trace) {
    std::vector<KernelLaunch> launches;
    for (auto& s : imported.run.stages)
      for (auto& g : s.kernels)
        for (auto& l : g.launches) launches.push_back(l);
    use_counter_launches(a, std::move(launches));
  } else {
    a.run.stages = std::move(imported.run.stages);
  }
  a.source = std::move(imported.source);
  // ncu mode keeps Nsight Compute's own report beside the CSV pages: the report names it (open it in ncu-ui).
  if (fs::exists(dir / "ncu" / "profile.ncu-rep")) a.run.sources.push_back("ncu/profile.ncu-rep");
}

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
    if (!seen) run.warnings.push_back("the plan declares stage '" + name + "' but no kernel ran inside that NVTX range");
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
  run.warnings = c.warnings_before;
  const ProcessResult* first_run = c.program();  // its failure is the run's exit code (7); later ones are warnings
  for (const auto& pass : c.passes) {
    for (const auto& w : pass.warnings) run.warnings.push_back(w);
    // A later pass whose program run failed (a counter run that broke the program, say) measured only what ran
    // before the failure: say so, or its missing kernels read as merely "not profiled".
    // (ncu passes are left out: their process is ncu, whose failure its own warning already explains.)
    const bool program_run = pass.kind == CollectorKind::Tracer || pass.kind == CollectorKind::CuptiCounters;
    if (program_run && pass.process && &*pass.process != first_run &&
        (pass.process->signaled || pass.process->exit_code != 0))
      run.warnings.push_back(fmt::format("the {} run of the program {}: kernels it did not reach have no data "
                                         "from it",
                                         collector_name(pass.kind), pass.process->describe()));
    switch (pass.kind) {
      case CollectorKind::Tracer: read_trace_pass(a, c.dir, spec.filters.nvtx_include); break;
      case CollectorKind::CuptiCounters: read_counter_pass(a, c.dir, c.reanalysis); break;
      case CollectorKind::NcuMetrics:
      case CollectorKind::NcuFull: read_ncu_pass(a, c.dir, pass, c.reanalysis); break;
      case CollectorKind::Clocks:
      case CollectorKind::CompiledCode: break;
    }
  }
  for (const auto& w : c.warnings_after) run.warnings.push_back(w);
  run.clocks = c.clocks;
  // Power, thermal or hardware slowdowns lower the clocks under the measurement: say so next to the numbers.
  if (run.clocks)
    for (const auto& r : run.clocks->throttle_reasons)
      if (r.find("power") != std::string::npos || r.find("thermal") != std::string::npos || r == "hw_slowdown")
        run.warnings.push_back("GPU clocks were throttled (" + r + ") when the run ended: timings may be low");
  // Groups the counter pass left out for their small share of GPU time say so (the pass filtered by that share).
  if (a.trace && spec.counters_min_share_pct > 0 && spec.filters.kernel_regex.empty() && !spec.filters.all_launches) {
    std::map<std::string, double> time;
    double total = 0;
    for (const auto& s : run.stages)
      for (const auto& g : s.kernels) {
        double t = g.duration_ns.median * static_cast<double>(g.duration_ns.count);
        time[g.kernel] += t;
        total += t;
      }
    std::vector<std::string> small;
    for (auto& s : run.stages)
      for (auto& g : s.kernels)
        if (g.counters_note == "not profiled" && total > 0 && time[g.kernel] / total * 100.0 < spec.counters_min_share_pct) {
          g.counters_note = fmt::format("under {:g}% of GPU time, not profiled", spec.counters_min_share_pct);
          small.push_back("no counters for " + g.label + " ");
        }
    // One line for them all instead of one warning each.
    if (!small.empty()) {
      std::erase_if(run.warnings, [&](const std::string& w) {
        return std::any_of(small.begin(), small.end(), [&](const std::string& p) { return w.rfind(p, 0) == 0; });
      });
      run.warnings.push_back(fmt::format("{} kernel group(s) under {:g}% of GPU time were not profiled for counters "
                                         "(their timings stand; --counters-min-share=0 profiles them)",
                                         small.size(), spec.counters_min_share_pct));
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
  const bool trace = fs::exists(dir / tracer_env::kFileName);
  const bool cupti = fs::exists(dir / counters_format::kFileName);
  const bool ncu = !ncu_csv_files(dir).empty();
  if (!trace && !cupti && !ncu) return std::nullopt;
  const ProfileRun recorded = load_artifact(dir);
  // A run that timed its launches with the tracer but whose trace file is gone (packed away for size) cannot be
  // rebuilt without losing the timings: its profile.json is re-read instead.
  if (!trace && recorded.mode != Mode::Ncu)
    for (const auto& s : recorded.stages)
      for (const auto& g : s.kernels)
        if (g.duration_ns.count > 1) return std::nullopt;
  Reassembled r;
  RunSpec& spec = r.spec;
  spec.mode = parse_mode(mode_name(recorded.mode), "the recorded mode");
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
  spec.counters = cupti ? CounterSource::Cupti : CounterSource::Ncu;
  spec.timing = trace ? TimingSource::Trace : TimingSource::Counters;
  for (const auto& s : recorded.stages)
    if (s.declared.flops || s.declared.min_bytes) spec.declared_stages[s.name] = s.declared;
  r.plan = plan_run(spec);
  Collected c;
  c.dir = dir;
  c.reanalysis = true;
  c.timestamp = recorded.timestamp;
  c.gpu_name = recorded.device.name;
  c.clocks = recorded.clocks;
  for (CollectorKind k : r.plan.collectors)
    if (k != CollectorKind::Clocks && (k != CollectorKind::Tracer || trace)) c.passes.push_back(PassRecord{k});
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
