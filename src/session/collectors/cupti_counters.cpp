// CUPTI counters (annotation with --counters cupti): libkprof_inject.so in counter mode in the program (range
// profiler, kernel replay, the first launch of each kernel unless --all-launches), filters passed through the
// environment, its counters in counters.json.
#include <fmt/format.h>

#include <algorithm>

#include "collect/counters/counters_format.hpp"
#include "collect/counters/counters_import.hpp"
#include "session/assemble.hpp"
#include "session/collectors/collectors.hpp"
#include "session/injection.hpp"
#include "util/errors.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

std::map<std::string, std::string> counter_pass_env(const CollectorContext& ctx) {
  namespace cf = counters_format;
  std::map<std::string, std::string> env;
  env[cf::kEnvFile] = fs::absolute(ctx.dir / cf::kFileName).string();
  std::string list;
  for (const auto& m : cupti_metrics(annotation_metrics())) list += (list.empty() ? "" : ",") + m;
  env[cf::kEnvMetrics] = list;
  // Every knob set, empty meaning the default, so that nothing exported in the shell applies unseen.
  const auto& f = ctx.spec.filters;
  std::vector<std::string> left_out;
  const std::string significant = significant_kernels(ctx, &left_out);
  env[cf::kEnvKernel] = significant.empty() ? f.kernel_regex : significant;
  if (!left_out.empty())
    ctx.log(LogLevel::progress, std::to_string(left_out.size()) + " kernel(s) under " +
                                    fmt::format("{:g}", ctx.spec.counters_min_share_pct) +
                                    "% of GPU time get no counters");
  std::string range = f.nvtx_include;
  while (!range.empty() && range.back() == '/') range.pop_back();  // ncu's "a/b/" push/pop syntax
  env[cf::kEnvNvtx] = range;
  env[cf::kEnvAll] = f.all_launches ? "1" : "0";
  env[cf::kEnvSkip] = std::to_string(std::max(0, f.launch_skip));
  env[cf::kEnvCount] = std::to_string(std::max(0, f.launch_count));
  env[cf::kEnvMax] = "";
  env[cf::kEnvImage] = "";
  return env;
}

namespace {

// The filters the counter run gets, as it gets them (set ones only): a dry run shows what will be filtered.
std::string filter_text(const CollectorContext& ctx) {
  namespace cf = counters_format;
  const auto& f = ctx.spec.filters;
  std::string out;
  auto add = [&](const char* var, const std::string& value) { out += std::string(var) + "='" + value + "' "; };
  if (!f.kernel_regex.empty()) add(cf::kEnvKernel, f.kernel_regex);
  std::string range = f.nvtx_include;
  while (!range.empty() && range.back() == '/') range.pop_back();
  if (!range.empty()) add(cf::kEnvNvtx, range);
  if (f.all_launches) add(cf::kEnvAll, "1");
  if (f.launch_skip > 0) add(cf::kEnvSkip, std::to_string(f.launch_skip));
  if (f.launch_count > 0) add(cf::kEnvCount, std::to_string(f.launch_count));
  if (ctx.spec.counters_min_share_pct > 0)
    out += fmt::format("<{}: kernels under {:g}% of the traced GPU time left out> ", cf::kEnvKernel,
                       ctx.spec.counters_min_share_pct);
  return out;
}

class CuptiCounterPass : public Collector {
 public:
  CollectorKind kind() const override { return CollectorKind::CuptiCounters; }
  std::vector<std::string> describe(const CollectorContext& ctx) const override {
    auto metrics = cupti_metrics(annotation_metrics());
    return {"cupti-counters: CUPTI range profiler in the program, kernel replay, " +
                std::string(ctx.spec.filters.all_launches ? "every launch" : "first launch of each kernel") + " → " +
                counters_format::kFileName,
            "counter run: CUDA_INJECTION64_PATH=<libkprof_inject.so> " + std::string(counters_format::kEnvMetrics) +
                "=<" + std::to_string(metrics.size()) + " metrics> " + filter_text(ctx) + command_line(ctx.spec.command)};
  }
  void run(CollectorContext& ctx, Collected& c) override {
    ctx.log(LogLevel::progress, "counter run (CUPTI range profiler, kernel replay)");
    const auto all = annotation_metrics();
    const auto metrics = cupti_metrics(all);
    PassRecord p{kind()};
    if (metrics.size() != all.size())
      p.warnings.push_back("--counters cupti: FP32/FP64/FP16 FLOP counts need Nsight Compute's SASS "
                           "instrumentation and are not measured (tensor-core FLOPs are); the roofline uses the "
                           "plan's declared FLOPs where there are some, --counters ncu measures them");
    ProcessSpec spec = injected_program(ctx.spec, "no in-process counters (--counters ncu uses Nsight Compute instead)");
    fs::path file = ctx.dir / counters_format::kFileName;
    std::error_code ec;
    fs::remove(file, ec);
    for (const auto& [k, v] : counter_pass_env(ctx)) spec.env_set[k] = v;
    p.process = run_process(spec);
    c.passes.push_back(std::move(p));
  }
};

void read_counter_pass(Assembled& a, const PassReading& r) {
  fs::path file = r.collected.dir / counters_format::kFileName;
  if (!fs::exists(file)) {
    a.run.warnings.push_back({WarningCode::Counters, "the program wrote no counters (it may not use CUDA, or the collector could not attach)"});
    return;
  }
  counters::CounterSession session;
  try {
    session = counters::import_counters(file);
  } catch (const ParseError& e) {  // what the tracer pass measured is still written
    if (r.collected.reanalysis) throw;
    a.run.warnings.push_back({WarningCode::Counters, std::string("counters not read: ") + e.what()});
    return;
  }
  const auto& d = session.device;  // the driver's view: name as nvidia-smi prints it, plus CC and SMs
  if (!d.name.empty()) {
    a.run.device.name = d.name;
    a.run.device.compute_capability = d.compute_capability;
    a.run.device.sm_count = d.sm_count;
  }
  for (const auto& w : session.warnings) a.run.warnings.push_back({WarningCode::Counters, w});
  if (!r.collected.reanalysis)
    a.cost_notes.push_back(counters::describe_cost(session, r.pass.process ? r.pass.process->wall_seconds : 0.0));
  if (session.launches.empty() && session.warnings.empty())
    a.run.warnings.push_back({WarningCode::Counters, "the counter run profiled no kernel launch"});
  use_counter_launches(a, std::move(session.launches));
}

}  // namespace

CollectorRow cupti_counters_row() {
  return {
      .kind = CollectorKind::CuptiCounters,
      .name = "cupti-counters",
      .planned = [](const ModeEntry&, const RunSpec& spec) { return counter_source(spec) == CounterSource::Cupti; },
      .make = []() -> std::unique_ptr<Collector> { return std::make_unique<CuptiCounterPass>(); },
      .runs_program = true,
      .warnings = WarningCode::Counters,
      .raw_files = {counters_format::kFileName},
      .read = read_counter_pass,
      .probe = [](const fs::path& dir) { return fs::exists(dir / counters_format::kFileName); },
      .replay_when_absent = true,
      .recorded_choice = [](RunSpec& spec,
                            bool found) { spec.counters = found ? CounterSource::Cupti : CounterSource::Ncu; },
      .in_process_env = counter_pass_env,
      .in_process_warning = "in-process annotation: counters and timings from the CUPTI range profiler (kernel "
                            "replay); FP32/FP64/FP16 FLOP counts need Nsight Compute and are not measured",
      .one_window_per_process = true,
  };
}

}  // namespace kprof::session
