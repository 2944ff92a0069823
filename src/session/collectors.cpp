// The collectors of session/collector.hpp: clock recorder, tracer pass, CUPTI counter pass, ncu passes, compiled
// code. Each pass removes its earlier raw files first (never read an earlier run's output as this one's), runs the
// program and records what is not in its files.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <fstream>
#include <sstream>

#include "analyze/data_files.hpp"
#include "collect/clock/clock_commands.hpp"
#include "collect/clock/clock_guard.hpp"
#include "collect/clock/clock_state.hpp"
#include "collect/clock/nvidia_smi.hpp"
#include "collect/counters/counters_format.hpp"
#include "collect/stage_grouping.hpp"
#include "collect/trace/trace_launches.hpp"
#include "collect/trace/trace_reader.hpp"
#include "collect/ncu/ncu_driver.hpp"
#include "collect/trace/tracer_env.hpp"
#include "session/collector.hpp"
#include "session/injection.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

bool Collected::interrupted() const {
  return std::any_of(passes.begin(), passes.end(),
                     [](const PassRecord& p) { return p.process && p.process->interrupted; });
}

const ProcessResult* Collected::program() const {
  for (const auto& p : passes)
    if (p.process) return &*p.process;
  return nullptr;
}

std::vector<std::string> annotation_metrics() {
  std::vector<std::string> metrics;
  std::istringstream in(read_file(analyze::find_data_file("ncu-annotation-metrics.txt")));
  for (std::string line; std::getline(in, line);) {
    auto hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (!line.empty()) metrics.push_back(line);
  }
  return metrics;
}

std::vector<std::string> cupti_metrics(const std::vector<std::string>& annotation) {
  // Thread-level instruction counts by opcode (the FP32/FP64/FP16 FLOPs) come from Nsight Compute's SASS
  // patching; the range profiler has no such counters (it returns zeros or unrelated values for them).
  std::vector<std::string> out;
  for (const auto& m : annotation)
    if (m.rfind("smsp__sass_", 0) != 0) out.push_back(m);
  return out;
}

namespace {

std::string env_line(const std::map<std::string, std::string>& env) {
  std::string s;
  for (const auto& [k, v] : env) s += k + "=" + v + " ";
  return s;
}

// --- clocks ----------------------------------------------------------------------------------------------------

std::optional<ClockState> read_clocks(int gpu, std::vector<std::string>& warnings) {
  try {
    return query_clocks(gpu);
  } catch (const std::exception& e) {
    warnings.push_back(std::string("GPU clocks not recorded: ") + e.what());
    return std::nullopt;
  }
}

// GPU clocks before and after the passes (nvidia-smi), and with --lock-clocks the lock itself: taken before the
// first pass and restored on every exit path (return, exception, Ctrl-C, SIGTERM) by the guard.
class ClockRecorder : public Collector {
 public:
  CollectorKind kind() const override { return CollectorKind::Clocks; }
  std::vector<std::string> describe(const CollectorContext& ctx) const override {
    return {ctx.spec.lock_clocks
                ? "clocks: SM clock locked to its default application clock for the run (--lock-clocks), restored "
                  "afterwards; clocks read before and after"
                : "clocks: read before and after the run with nvidia-smi, left as found"};
  }
  void begin(CollectorContext& ctx, Collected& c) override {
    if (ctx.spec.lock_clocks) {
      guard_.emplace(ctx.gpu, true);
      if (ctx.plan.runs_ncu() && ctx.spec.clock_control != "none")
        c.warnings_before.push_back("--lock-clocks with ncu --clock-control " + ctx.spec.clock_control +
                                    ": ncu may override the lock");
    }
    before_ = read_clocks(ctx.gpu, c.warnings_before);
    if (before_) c.gpu_name = before_->name;  // trace-only modes learn the GPU from here
  }
  void end(CollectorContext& ctx, Collected& c) override {
    if (guard_) {
      c.clocks = guard_->finish();
      guard_->restore();
    } else if (auto after = before_ ? read_clocks(ctx.gpu, c.warnings_after) : std::nullopt) {
      ClockRecord rec;
      rec.sm_mhz_before = before_->sm_mhz.value_or(0);
      rec.mem_mhz_before = before_->mem_mhz.value_or(0);
      rec.sm_mhz_after = after->sm_mhz.value_or(0);
      rec.mem_mhz_after = after->mem_mhz.value_or(0);
      if (after->event_reasons) rec.throttle_reasons = decode_event_reasons(*after->event_reasons);
      c.clocks = rec;
    }
  }

 private:
  std::optional<ClockGuard> guard_;
  std::optional<ClockState> before_;
};

// --- tracer ------------------------------------------------------------------------------------------------------

// The program with libkprof_inject.so as an activity tracer, recording the plan's record kinds.
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

// --- what the counter passes profile ---------------------------------------------------------------------------

// The kernels worth counters: after a tracer pass, the function names of the kernel groups that take at least
// `min_share_pct` of the traced GPU time (a regex "^(a|b)$" on base names, unanchored for ncu, whose names may
// keep namespaces and template arguments; empty when every kernel qualifies or no trace is there). The user's own --kernel-regex wins. Groups left out are reported as such by assemble().
std::string significant_kernels(const CollectorContext& ctx, std::vector<std::string>* left_out, bool anchored = true) {
  if (!ctx.spec.filters.kernel_regex.empty() || ctx.spec.filters.all_launches || ctx.spec.counters_min_share_pct <= 0)
    return "";
  fs::path trace_file = ctx.dir / tracer_env::kFileName;
  if (!fs::exists(trace_file)) return "";
  std::vector<Stage> stages;
  try {
    stages = group_into_stages(kernel_launches(read_trace(trace_file)));
  } catch (const std::exception&) {
    return "";  // assemble() reports the unreadable trace
  }
  std::map<std::string, double> time;  // function → GPU time over all its groups
  double total = 0;
  for (const auto& st : stages)
    for (const auto& g : st.kernels) {
      double t = g.duration_ns.median * static_cast<double>(g.duration_ns.count);
      time[g.kernel] += t;
      total += t;
    }
  if (total <= 0) return "";
  std::string re;
  for (const auto& [fn, t] : time) {
    if (t / total * 100.0 < ctx.spec.counters_min_share_pct) {
      if (left_out) left_out->push_back(fn);
      continue;
    }
    std::string esc;
    for (char ch : fn) {
      if (std::strchr("\\^$.|?*+()[]{}", ch)) esc += '\\';
      esc += ch;
    }
    re += (re.empty() ? "" : "|") + esc;
  }
  if (left_out && left_out->empty()) return "";  // nothing to leave out: no filter at all
  if (re.empty()) return "";
  return anchored ? "^(" + re + ")$" : "(" + re + ")";
}

// --- CUPTI counters ----------------------------------------------------------------------------------------------

}  // namespace

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
  return env;
}

std::map<std::string, std::string> tracer_pass_env(const CollectorContext& ctx) {
  std::map<std::string, std::string> env;
  env[tracer_env::kFile] = fs::absolute(ctx.dir / tracer_env::kFileName).string();
  env[counters_format::kEnvFile] = "";  // a value exported in the shell would switch to counters
  for (const auto& [k, v] : ctx.plan.records.env()) env[k] = v;
  return env;
}

namespace {

// Annotation with --counters cupti: the same library in counter mode (range profiler, kernel replay, first launch
// of each kernel unless --all-launches), filters passed through the environment.
class CuptiCounterPass : public Collector {
 public:
  CollectorKind kind() const override { return CollectorKind::CuptiCounters; }
  std::vector<std::string> describe(const CollectorContext& ctx) const override {
    auto metrics = cupti_metrics(annotation_metrics());
    return {"cupti-counters: CUPTI range profiler in the program, kernel replay, " +
                std::string(ctx.spec.filters.all_launches ? "every launch" : "first launch of each kernel") + " → " +
                counters_format::kFileName,
            "counter run: CUDA_INJECTION64_PATH=<libkprof_inject.so> " + std::string(counters_format::kEnvMetrics) +
                "=<" + std::to_string(metrics.size()) + " metrics> " + command_line(ctx.spec.command)};
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

// --- Nsight Compute ----------------------------------------------------------------------------------------------

ncu::NcuRunOptions ncu_options(const CollectorContext& ctx, bool full) {
  ncu::NcuRunOptions o;
  o.collection = full ? ncu::NcuCollection::full_set : ncu::NcuCollection::metric_list;
  o.command = ctx.spec.command;
  o.work_dir = (ctx.dir / "ncu").string();
  o.ncu = ctx.spec.ncu;
  o.clock_control = ctx.spec.clock_control;
  o.kernel_regex = ctx.spec.filters.kernel_regex;
  // Annotation: counters for the kernels that matter only (ncu mode profiles every kernel group).
  if (!full)
    if (std::string significant = significant_kernels(ctx, nullptr, false); !significant.empty())
      o.kernel_regex = significant;
  o.nvtx_include = ctx.spec.filters.nvtx_include;
  o.launch_skip = ctx.spec.filters.launch_skip;
  o.launch_count = ctx.spec.filters.launch_count;
  o.first_launch_per_kernel = !ctx.spec.filters.all_launches;
  o.mangled_identity = ctx.spec.filters.kernel_regex.empty();
  if (!full) o.metrics = annotation_metrics();
  // --set full lacks the tensor-pipe metric without HFMA2.MMA (the diagnosis falls back to one that counts it).
  else o.metrics = {"sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active"};
  return o;
}

// ncu with the annotation metric list (annotation mode) or --set full with the source (ncu mode); its CSV pages
// land in ncu/.
class NcuPass : public Collector {
 public:
  explicit NcuPass(bool full) : full_(full) {}
  CollectorKind kind() const override { return full_ ? CollectorKind::NcuFull : CollectorKind::NcuMetrics; }
  std::vector<std::string> describe(const CollectorContext& ctx) const override {
    const std::string which = ctx.spec.filters.all_launches ? "every launch"
                                                            : "one launch per kernel and launch configuration";
    return {full_ ? "ncu-full: Nsight Compute --set full with source, " + which +
                        " → ncu/profile.ncu-rep, ncu/ncu_{raw,details,source,session}.csv"
                  : "ncu-metrics: Nsight Compute, the annotation metric list, " + which + " → ncu/ncu_raw.csv",
            "ncu run: " + command_line(ncu::ncu_collect_args(ncu_options(ctx, full_)))};
  }
  void run(CollectorContext& ctx, Collected& c) override {
    auto opt = ncu_options(ctx, full_);
    ctx.log(LogLevel::progress, "Nsight Compute run (" + std::string(mode_name(ctx.plan.mode)) + ")");
    std::error_code ec;
    for (auto f : {"ncu_raw.csv", "ncu_details.csv", "ncu_source.csv", "ncu_session.csv", "profile.ncu-rep"})
      fs::remove(fs::path(opt.work_dir) / f, ec);
    auto nr = ncu::run_ncu(opt);
    PassRecord p{kind()};
    p.process = nr.process;
    for (const auto& m : nr.messages)
      if (m.rfind("==ERROR==", 0) == 0) p.warnings.push_back("ncu: " + m);
    if (!nr.failure.empty()) p.warnings.push_back("ncu: " + nr.failure);
    p.failure = nr.failure;
    c.passes.push_back(std::move(p));
  }

 private:
  bool full_;
};

// --- compiled code -----------------------------------------------------------------------------------------------

// ncu mode: the PTX, SASS and resource usage of the program's own kernels (CUDA executables only; a Python
// program's kernels are JIT-compiled and not in the binary).
class CompiledCodeDump : public Collector {
 public:
  CollectorKind kind() const override { return CollectorKind::CompiledCode; }
  std::vector<std::string> describe(const CollectorContext&) const override {
    return {"compiled-code: cuobjdump -ptx, -sass, -res-usage of the program (CUDA executables) → compiled/"};
  }
  void run(CollectorContext& ctx, Collected& c) override {
    PassRecord p{kind()};
    dump(ctx.spec.command[0], ctx.dir, p.warnings);
    c.passes.push_back(std::move(p));
  }

 private:
  static bool holds_no_device_code(const std::string& stderr_file) {
    std::ifstream in(stderr_file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.find("does not contain device code") != std::string::npos;
  }
  static std::string program_name(const std::string& path) { return fs::path(path).filename().string(); }
  static void dump(const std::string& program, const fs::path& dir, std::vector<std::string>& warnings) {
    auto exe = find_executable(program);
    if (!exe) return;
    std::string head;
    {
      std::ifstream in(*exe, std::ios::binary);
      head.resize(4);
      if (!in.read(head.data(), 4) || head != "\x7f" "ELF") return;
    }
    auto cuobjdump = find_executable("cuobjdump");
    if (!cuobjdump) {
      if (auto cuda = find_executable("/usr/local/cuda/bin/cuobjdump")) cuobjdump = cuda;
      else {
        warnings.push_back("cuobjdump not found: no PTX/SASS dump in compiled/");
        return;
      }
    }
    for (auto [flag, file] : {std::pair{"-ptx", "ptx.txt"}, {"-sass", "sass.txt"}, {"-res-usage", "resource-usage.txt"}}) {
      ProcessSpec spec;
      spec.argv = {*cuobjdump, flag, *exe};
      spec.stdout_file = (dir / "compiled" / file).string();
      spec.stderr_file = (dir / "compiled" / (std::string(file) + ".err")).string();
      auto r = run_process(spec);
      std::error_code ec;
      if (r.exit_code != 0 && holds_no_device_code(spec.stderr_file)) {
        // An interpreter (python3): its kernels are compiled at run time (Triton, PyTorch JIT) and not in it.
        for (auto f : {"ptx.txt", "sass.txt", "resource-usage.txt"}) {
          fs::remove(dir / "compiled" / f, ec);
          fs::remove(dir / "compiled" / (std::string(f) + ".err"), ec);
        }
        fs::remove(dir / "compiled", ec);  // only when empty
        warnings.push_back(program_name(*exe) + " holds no device code (kernels compiled at run time, as Triton's "
                           "and PyTorch's, are not in it): no PTX/SASS dump in compiled/; ncu's source pages "
                           "hold the SASS of what ran");
        return;
      }
      if (r.exit_code != 0) warnings.push_back(std::string("cuobjdump ") + flag + " " + r.describe());
      if (fs::file_size(spec.stderr_file, ec) == 0) fs::remove(spec.stderr_file, ec);
    }
  }
};

}  // namespace

std::vector<std::unique_ptr<Collector>> make_collectors(const ModePlan& plan) {
  std::vector<std::unique_ptr<Collector>> out;
  for (CollectorKind k : plan.collectors) {
    switch (k) {
      case CollectorKind::Clocks: out.push_back(std::make_unique<ClockRecorder>()); break;
      case CollectorKind::Tracer: out.push_back(std::make_unique<TracerPass>()); break;
      case CollectorKind::CuptiCounters: out.push_back(std::make_unique<CuptiCounterPass>()); break;
      case CollectorKind::NcuMetrics: out.push_back(std::make_unique<NcuPass>(false)); break;
      case CollectorKind::NcuFull: out.push_back(std::make_unique<NcuPass>(true)); break;
      case CollectorKind::CompiledCode: out.push_back(std::make_unique<CompiledCodeDump>()); break;
    }
  }
  return out;
}

}  // namespace kprof::session
