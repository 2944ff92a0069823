// The tracer: the program with libkprof_inject.so as a CUPTI activity tracer, recording the plan's record kinds
// into trace.kptrace. Its trace gives the stages and every launch's duration (counters are joined to them), and
// feeds the mode's trace outputs.
#include <fmt/format.h>
#include <unistd.h>

#include "collect/counters/counters_format.hpp"
#include "collect/nvtx_path.hpp"
#include "collect/stage_grouping.hpp"
#include "collect/trace/trace_launches.hpp"
#include "collect/trace/trace_reader.hpp"
#include "collect/trace/tracer_env.hpp"
#include "session/assemble.hpp"
#include "session/collectors/collectors.hpp"
#include "session/injection.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

std::map<std::string, std::string> tracer_pass_env(const CollectorContext& ctx) {
  std::map<std::string, std::string> env;
  env[tracer_env::kFile] = fs::absolute(ctx.dir / tracer_env::kFileName).string();
  env[counters_format::kEnvFile] = "";  // a value exported in the shell would switch to counters
  for (const auto& [k, v] : ctx.plan.records.env()) env[k] = v;
  return env;
}

namespace {

std::string env_line(const std::map<std::string, std::string>& env) {
  std::string s;
  for (const auto& [k, v] : env) s += k + "=" + v + " ";
  return s;
}

class TracerPass : public Collector {
 public:
  CollectorKind kind() const override { return CollectorKind::Tracer; }
  std::vector<std::string> describe(const CollectorContext& ctx) const override {
    return {"tracer: CUPTI activity records (" + ctx.plan.records.describe() + ") → " + tracer_env::kFileName,
            "traced run: CUDA_INJECTION64_PATH=<libkprof_inject.so> " + env_line(ctx.plan.records.env()) +
                command_line(ctx.spec.command)};
  }
  void run(CollectorContext& ctx, Collected& c) override {
    ctx.log(LogLevel::progress, "traced run of " + command_line(ctx.spec.command));
    ProcessSpec spec = injected_program(ctx.spec, "no CUPTI tracer");
    fs::path trace_file = ctx.dir / tracer_env::kFileName;
    for (const auto& [k, v] : tracer_pass_env(ctx)) spec.env_set[k] = v;
    std::error_code ec;
    fs::remove(trace_file, ec);
    PassRecord p{kind()};
    p.process = run_process(spec);
    c.passes.push_back(std::move(p));
  }
};

// The traced launches inside the NVTX range the counter pass was restricted to (--nvtx-include): the trace sees
// the whole program, the report only what the counters could see (the counter selection's match, collect/nvtx_path.hpp).
std::vector<KernelLaunch> inside_nvtx_filter(std::vector<KernelLaunch> launches, const std::string& filter,
                                             bool nvtx_recorded, std::vector<Warning>& warnings) {
  if (filter.empty()) return launches;
  const auto want = nvtx_path_supported(filter) ? parse_nvtx_path(filter) : std::vector<std::string>{};
  if (want.empty()) {
    warnings.push_back({WarningCode::Filter, "--nvtx-include '" + filter + "': only push/pop range paths (\"a/b/\") "
                                             "restrict the traced timings; they cover every kernel of the program"});
    return launches;
  }
  if (!nvtx_recorded) {
    warnings.push_back({WarningCode::Filter, "--nvtx-include '" + filter + "': the trace holds no NVTX ranges, so its "
                                             "timings cover every kernel of the program, not only that range"});
    return launches;
  }
  const size_t before = launches.size();
  std::erase_if(launches, [&](const KernelLaunch& l) { return !stack_has_path(want, l.nvtx_stack); });
  if (launches.size() < before)
    warnings.push_back({WarningCode::Filter,
                        fmt::format("--nvtx-include '{}': {} of {} traced launches ran outside that range and are left "
                                    "out",
                                    filter, before - launches.size(), before)});
  return launches;
}

void read_trace_pass(Assembled& a, const PassReading& r) {
  fs::path file = r.collected.dir / tracer_env::kFileName;
  if (!fs::exists(file)) {
    a.run.warnings.push_back({WarningCode::Trace, "the program wrote no trace (it may not use CUDA, or the tracer could not attach)"});
    return;
  }
  a.trace = read_trace(file);
  const Trace& t = *a.trace;
  if (t.info.dropped_records > 0)
    a.run.warnings.push_back({WarningCode::Trace, fmt::format("CUPTI dropped {} records: the trace is incomplete", t.info.dropped_records)});
  for (const auto& e : t.info.errors) a.run.warnings.push_back({WarningCode::Trace, "CUPTI: " + e});
  if (t.info.interrupted) a.run.warnings.push_back({WarningCode::Trace, "the traced program was interrupted; the trace ends there"});
  // Stages then hold kernels that Nsight Compute's and CUPTI's NVTX filters cannot select (they see the launching
  // thread's own ranges only).
  if (!t.info.nvtx_adoption.empty()) a.run.warnings.push_back({WarningCode::Trace, t.info.nvtx_adoption});
  a.run.stages = group_into_stages(inside_nvtx_filter(kernel_launches(t), r.spec.filters.nvtx_include,
                                                      t.info.nvtx_traced && !t.nvtx.empty(), a.run.warnings));
}

// In-process (capi/): the library writes each window's trace when the window ends (kprof_inject_write_window); what
// it writes at process exit goes to a scratch file, not into an artifact.
std::map<std::string, std::string> in_process_env(const CollectorContext& ctx) {
  auto env = tracer_pass_env(ctx);
  env[tracer_env::kFile] =
      (fs::temp_directory_path() / ("kprof_inprocess." + std::to_string(::getpid()) + ".kptrace")).string();
  return env;
}

}  // namespace

CollectorRow tracer_row() {
  return {
      .kind = CollectorKind::Tracer,
      .name = "tracer",
      // With --timing counters, a mode with a counter pass takes its durations from that run: no tracer pass.
      .planned =
          [](const ModeEntry& mode, const RunSpec& spec) {
            const bool counters = mode.lists(CollectorKind::CuptiCounters) || mode.lists(CollectorKind::NcuMetrics);
            return !(counters && spec.timing == TimingSource::Counters);
          },
      .make = []() -> std::unique_ptr<Collector> { return std::make_unique<TracerPass>(); },
      .runs_program = true,
      .warnings = WarningCode::Trace,
      .raw_files = {tracer_env::kFileName},
      .read = read_trace_pass,
      .probe = [](const fs::path& dir) { return fs::exists(dir / tracer_env::kFileName); },
      .recorded_choice = [](RunSpec& spec,
                            bool found) { spec.timing = found ? TimingSource::Trace : TimingSource::Counters; },
      // A run timed by its trace whose trace is gone (packed away for size) cannot be rebuilt without losing the
      // timings of its repeated launches; ncu mode's runs are rebuilt from ncu's pages alone.
      .lost_without =
          [](const ProfileRun& recorded) {
            if (recorded.mode == Mode::Ncu) return false;
            for (const auto& s : recorded.stages)
              for (const auto& g : s.kernels)
                if (g.duration_ns.count > 1) return true;
            return false;
          },
      .feeds = {OutputInput::trace},
      .in_process_env = in_process_env,
  };
}

}  // namespace kprof::session
