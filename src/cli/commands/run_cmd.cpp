// kprof run --prof_type=<mode> -- <command>: a mode is a choice of collectors.
//   event:      CUPTI tracer (injected)              → durations of every launch, NVTX spans
//   nsys:       CUPTI tracer with API + NVTX records → timeline, overlap, launch overhead, Perfetto trace
//   annotation: tracer pass + counters for a compact metric list, each distinct kernel once → analysis;
//               counters from ncu (--counters ncu) or the CUPTI range profiler in the program (--counters cupti)
//   ncu:        ncu --set full with source           → every section, rules, annotated source, SASS
// Whatever was measured is written even when the program fails or is interrupted.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "analyze/data_files.hpp"
#include "analyze/event_stats.hpp"
#include "analyze/timeline.hpp"
#include "cli/commands/analysis_context.hpp"
#include "cli/commands/artifact.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/publish.hpp"
#include "collect/clock/clock_commands.hpp"
#include "collect/clock/clock_guard.hpp"
#include "collect/clock/clock_state.hpp"
#include "collect/clock/gpu_lock.hpp"
#include "collect/clock/nvidia_smi.hpp"
#include "collect/counters/counters_import.hpp"
#include "collect/merge_counters.hpp"
#include "collect/ncu/ncu_driver.hpp"
#include "collect/ncu/ncu_import.hpp"
#include "collect/stage_grouping.hpp"
#include "collect/trace/trace_launches.hpp"
#include "collect/trace/trace_reader.hpp"
#include "render/chrome_trace.hpp"
#include "render/source_markdown.hpp"
#include "render/timeline_report.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"

namespace kprof::cli {

namespace fs = std::filesystem;

namespace {

fs::path exe_dir() { return executable_dir().value_or(fs::current_path()); }

// libkprof_inject.so: next to kprof, in ../lib, or where the build tree puts it.
std::optional<fs::path> find_injection_library() {
  if (const char* e = std::getenv("KPROF_INJECT_LIB")) return fs::path(e);
  for (auto p : {exe_dir() / "libkprof_inject.so", exe_dir() / "../lib/libkprof_inject.so",
                 exe_dir() / "src/collect/cupti/libkprof_inject.so"})
    if (fs::exists(p)) return fs::weakly_canonical(p);
  return std::nullopt;
}

// libcupti for NVTX_INJECTION64_PATH (NVTX ranges reach CUPTI only through it).
std::optional<fs::path> find_cupti_library() {
  if (const char* e = std::getenv("KPROF_CUPTI_LIB")) return fs::path(e);
  std::vector<fs::path> roots;
  if (const char* h = std::getenv("CUDA_HOME")) roots.emplace_back(h);
  roots.emplace_back("/usr/local/cuda");
  for (const auto& r : roots)
    for (auto sub : {"lib64/libcupti.so", "extras/CUPTI/lib64/libcupti.so", "lib/libcupti.so",
                     "targets/x86_64-linux/lib/libcupti.so"})
      if (fs::exists(r / sub)) return r / sub;
  return std::nullopt;
}

std::optional<ClockState> read_clocks(int gpu, std::vector<std::string>& warnings) {
  try {
    return query_clocks(gpu);
  } catch (const std::exception& e) {
    warnings.push_back(std::string("GPU clocks not recorded: ") + e.what());
    return std::nullopt;
  }
}

std::string default_kernel_name(const std::vector<std::string>& cmd) {
  std::string prog = fs::path(cmd[0]).filename().string();
  if (prog.rfind("python", 0) == 0)
    for (std::size_t i = 1; i < cmd.size(); ++i)
      if (cmd[i].size() > 3 && cmd[i].substr(cmd[i].size() - 3) == ".py") return fs::path(cmd[i]).stem().string();
  return prog;
}

std::string join_command(const std::vector<std::string>& cmd) {
  std::string s;
  for (const auto& a : cmd) s += (s.empty() ? "" : " ") + (a.find(' ') != std::string::npos ? "'" + a + "'" : a);
  return s;
}

struct TracePass {
  std::optional<Trace> trace;
  ProcessResult process;
  std::string problem;  // why there is no trace
};

// The program with libkprof_inject.so injected (tracer or counter mode, chosen by the caller's environment) and
// NVTX pointed at libcupti. `missing` says what cannot be done without the library.
ProcessSpec injected_program(const RunOptions& o, const std::string& missing) {
  auto inject = find_injection_library();
  if (!inject)
    throw Error(missing + ": libkprof_inject.so was not found next to kprof (build kprof with the CUDA toolkit "
                "present, or set KPROF_INJECT_LIB)", kExitNoTool);
  ProcessSpec spec;
  spec.argv = o.command;
  spec.env_set["CUDA_INJECTION64_PATH"] = inject->string();
  if (auto cupti = find_cupti_library()) spec.env_set["NVTX_INJECTION64_PATH"] = cupti->string();
  return spec;
}

TracePass run_traced(const RunOptions& o, const fs::path& dir) {
  TracePass tp;
  ProcessSpec spec = injected_program(o, "no CUPTI tracer");
  fs::path trace_file = dir / "trace.kptrace";
  spec.env_set["KPROF_TRACE_FILE"] = fs::absolute(trace_file).string();
  spec.env_set["KPROF_COUNTERS_FILE"] = "";  // a value exported in the shell would switch the library to counters
  std::error_code ec;
  fs::remove(trace_file, ec);  // never read an earlier run's trace as this one's
  // Python kernels (Triton, PyTorch) are often launched through the driver API: record it there.
  if (fs::path(o.command[0]).filename().string().rfind("python", 0) == 0) spec.env_set["KPROF_TRACE_DRIVER"] = "1";
  tp.process = run_process(spec);
  if (fs::exists(trace_file)) tp.trace = read_trace(trace_file);
  else tp.problem = "the program wrote no trace (it may not use CUDA, or the tracer could not attach)";
  return tp;
}

struct CounterPass {
  std::optional<counters::CounterSession> session;
  ProcessResult process;
  std::string problem;
};

// Annotation mode with --counters cupti: the same injection library, in counter mode (range profiler, kernel
// replay, first launch of each kernel unless --all-launches), filters passed through the environment.
CounterPass run_counter_pass(const RunOptions& o, const std::vector<std::string>& metrics, const fs::path& dir) {
  CounterPass cp;
  ProcessSpec spec = injected_program(o, "no in-process counters (--counters ncu uses Nsight Compute instead)");
  fs::path file = dir / "counters.json";
  std::error_code ec;
  fs::remove(file, ec);  // never read an earlier run's counters as this one's
  spec.env_set["KPROF_COUNTERS_FILE"] = fs::absolute(file).string();
  std::string list;
  for (const auto& m : metrics) list += (list.empty() ? "" : ",") + m;
  spec.env_set["KPROF_COUNTERS_METRICS"] = list;
  // Every knob set, empty meaning the default, so that nothing exported in the shell applies unseen.
  spec.env_set["KPROF_COUNTERS_KERNEL"] = o.kernel_regex;
  std::string range = o.nvtx_include;
  while (!range.empty() && range.back() == '/') range.pop_back();  // ncu's "a/b/" push/pop syntax
  spec.env_set["KPROF_COUNTERS_NVTX"] = range;
  spec.env_set["KPROF_COUNTERS_ALL"] = o.all_launches ? "1" : "0";
  spec.env_set["KPROF_COUNTERS_SKIP"] = std::to_string(std::max(0, o.launch_skip));
  spec.env_set["KPROF_COUNTERS_COUNT"] = std::to_string(std::max(0, o.launch_count));
  spec.env_set["KPROF_COUNTERS_MAX"] = "";
  cp.process = run_process(spec);
  if (!fs::exists(file)) {
    cp.problem = "the program wrote no counters (it may not use CUDA, or the collector could not attach)";
    return cp;
  }
  try {
    cp.session = counters::import_counters(file);
  } catch (const ParseError& e) {  // what the tracer pass measured is still written
    cp.problem = std::string("counters not read: ") + e.what();
  }
  return cp;
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

namespace {

void add_trace_outputs(const Trace& trace, std::map<std::string, std::string>& files, std::string& body) {
  auto stats = analyze::compute_event_stats(trace);
  auto tl = analyze::analyze_timeline(trace);
  body += render::render_timeline_report(trace, tl, stats);
  files["kernels.csv"] = render::render_kernels_csv(trace);
  files["memcpy.csv"] = render::render_memcpy_csv(trace);
  files["api.csv"] = render::render_api_csv(trace);
  files["overlap.csv"] = render::render_overlap_csv(tl);
  files["trace.json"] = render::render_chrome_trace(trace);
}

// ncu mode: the PTX, SASS and resource usage of the program's own kernels (CUDA executables only; a Python
// program's kernels are JIT-compiled and not in the binary).
void dump_compiled(const std::string& program, const fs::path& dir, std::vector<std::string>& warnings) {
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
    else { warnings.push_back("cuobjdump not found: no PTX/SASS dump in compiled/"); return; }
  }
  for (auto [flag, file] : {std::pair{"-ptx", "ptx.txt"}, {"-sass", "sass.txt"}, {"-res-usage", "resource-usage.txt"}}) {
    ProcessSpec spec;
    spec.argv = {*cuobjdump, flag, *exe};
    spec.stdout_file = (dir / "compiled" / file).string();
    spec.stderr_file = (dir / "compiled" / (std::string(file) + ".err")).string();
    auto r = run_process(spec);
    if (r.exit_code != 0) warnings.push_back(std::string("cuobjdump ") + flag + " " + r.describe());
    std::error_code ec;
    if (fs::file_size(spec.stderr_file, ec) == 0) fs::remove(spec.stderr_file, ec);
  }
}

}  // namespace

int cmd_run(const RunOptions& o) {
  static const std::vector<std::string> modes{"annotation", "event", "ncu", "nsys"};
  if (std::find(modes.begin(), modes.end(), o.prof_type) == modes.end())
    throw Error("--prof_type must be one of annotation, event, ncu, nsys (got '" + o.prof_type + "')", kExitUsage);
  if (o.command.empty()) throw Error("nothing to profile: give the command after `--`", kExitUsage);
  if (o.timing != "trace" && o.timing != "ncu" && o.timing != "counters")
    throw Error("--timing must be trace or counters (ncu is accepted for counters)", kExitUsage);
  std::string counter_source = o.counters;
  if (counter_source.empty()) {
    const char* e = std::getenv("KPROF_COUNTERS");
    counter_source = e && *e ? e : "ncu";
  }
  if (counter_source != "ncu" && counter_source != "cupti")
    throw Error("--counters (or KPROF_COUNTERS) must be ncu or cupti (got '" + counter_source + "')", kExitUsage);
  if (counter_source == "cupti" && !o.kernel_regex.empty()) {
    try {
      std::regex check(o.kernel_regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw Error("--kernel-regex '" + o.kernel_regex + "' is not an ECMAScript regular expression (" + e.what() +
                      "); --counters cupti matches it against each kernel's base name",
                  kExitUsage);
    }
  }
  if (!o.dry_run && !find_executable(o.command[0]))
    throw Error("cannot run '" + o.command[0] + "': not found on PATH or not executable", kExitUsage);

  ProfileRun run;
  run.mode = o.prof_type;
  run.kernel = o.kernel.empty() ? default_kernel_name(o.command) : o.kernel;
  run.version = o.version;
  run.params = o.params;
  run.timestamp = utc_timestamp();
  run.command = join_command(o.command);
  fs::path dir = artifact_dir(run, o.out_root, o.out_dir);

  ncu::NcuRunOptions nopt;
  nopt.mode = o.prof_type == "ncu" ? "ncu" : "annotation";
  nopt.command = o.command;
  nopt.work_dir = (dir / "ncu").string();
  nopt.ncu = o.ncu;
  nopt.clock_control = o.clock_control;
  nopt.kernel_regex = o.kernel_regex;
  nopt.nvtx_include = o.nvtx_include;
  nopt.launch_skip = o.launch_skip;
  nopt.launch_count = o.launch_count;
  nopt.first_launch_per_kernel = !o.all_launches;
  if (nopt.mode == "annotation") {
    std::string list = read_file(analyze::find_data_file("ncu-annotation-metrics.txt"));
    std::istringstream in(list);
    for (std::string line; std::getline(in, line);) {
      auto hash = line.find('#');
      if (hash != std::string::npos) line = line.substr(0, hash);
      while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
      if (!line.empty()) nopt.metrics.push_back(line);
    }
  }
  bool use_cupti_counters = o.prof_type == "annotation" && counter_source == "cupti";
  // Thread-level instruction counts by opcode (the FP32/FP64/FP16 FLOPs) come from Nsight Compute's SASS
  // patching; the range profiler has no such counters (it returns zeros or unrelated values for them).
  std::vector<std::string> cupti_metrics;
  for (const auto& m : nopt.metrics)
    if (m.rfind("smsp__sass_", 0) != 0) cupti_metrics.push_back(m);
  bool use_ncu = (o.prof_type == "annotation" && !use_cupti_counters) || o.prof_type == "ncu";
  bool use_trace = o.prof_type == "event" || o.prof_type == "nsys" || (o.prof_type == "annotation" && o.timing == "trace");
  if (o.dry_run) {
    if (use_trace) std::cout << "traced run: CUDA_INJECTION64_PATH=<libkprof_inject.so> " << run.command << "\n";
    if (use_cupti_counters)
      std::cout << "counter run: CUDA_INJECTION64_PATH=<libkprof_inject.so> KPROF_COUNTERS_METRICS=<"
                << cupti_metrics.size() << " metrics> " << run.command << "\n";
    if (use_ncu) std::cout << "ncu run: " << join_command(ncu::ncu_collect_args(nopt)) << "\n";
    std::cout << "artifacts: " << dir.string() << "\n";
    return kExitOk;
  }

  if (o.lock_clocks && !clock_change_allowed(o.yes))
    throw Error("--lock-clocks changes the GPU's clocks: add --yes (or set KPROF_ALLOW_CLOCK_CHANGE=1) to confirm; "
                "`kprof clock lock` shows the commands it would run",
                kExitUsage);
  auto ctx = AnalysisContext::load(o.common);
  fs::create_directories(dir);
  int gpu = visible_gpu();
  auto lock = GpuLock::acquire(gpu, !o.no_wait, [&](const std::string& m) { std::cerr << "kprof: " << m << "\n"; });
  run.clock_control = use_ncu ? o.clock_control
                     : use_cupti_counters ? "none (CUPTI range profiler; clocks left as found)"
                                          : "not applicable (CUPTI timestamps; clocks left as found)";
  // With --lock-clocks the guard locks now and restores on every exit path (return, exception, Ctrl-C, SIGTERM).
  std::optional<ClockGuard> clock_guard;
  if (o.lock_clocks) {
    clock_guard.emplace(gpu, true);
    if (use_ncu && o.clock_control != "none")
      run.warnings.push_back("--lock-clocks with ncu --clock-control " + o.clock_control + ": ncu may override the lock");
  }
  auto clocks_before = read_clocks(gpu, run.warnings);
  if (clocks_before) run.device.name = clocks_before->name;  // trace-only modes learn the GPU from here

  std::map<std::string, std::string> files;
  std::string extra_body;
  ProcessResult program;
  bool interrupted = false;
  std::optional<Trace> trace;
  if (use_trace) {
    if (!o.common.quiet) std::cerr << "kprof: traced run of " << run.command << "\n";
    auto tp = run_traced(o, dir);
    program = tp.process;
    interrupted = tp.process.interrupted;
    if (!tp.problem.empty()) run.warnings.push_back(tp.problem);
    if (tp.trace) {
      trace = std::move(tp.trace);
      if (trace->info.dropped_records > 0)
        run.warnings.push_back(fmt::format("CUPTI dropped {} records: the trace is incomplete",
                                           trace->info.dropped_records));
      for (const auto& e : trace->info.errors) run.warnings.push_back("CUPTI: " + e);
      if (trace->info.interrupted) run.warnings.push_back("the traced program was interrupted; the trace ends there");
      run.stages = group_into_stages(kernel_launches(*trace));
      if (o.prof_type == "nsys" || o.prof_type == "event") add_trace_outputs(*trace, files, extra_body);
    }
  }
  // Counters of one launch per kernel, joined to the traced launches (or standing alone with --timing counters).
  auto use_counter_launches = [&](std::vector<KernelLaunch> launches) {
    if (trace) {
      for (auto& w : attach_counters(run.stages, launches)) run.warnings.push_back(w);
    } else {
      run.stages = group_into_stages(std::move(launches));
    }
  };
  if (use_cupti_counters && !interrupted) {
    if (!o.common.quiet) std::cerr << "kprof: counter run (CUPTI range profiler, kernel replay)\n";
    if (cupti_metrics.size() != nopt.metrics.size())
      run.warnings.push_back("--counters cupti: FP32/FP64/FP16 FLOP counts need Nsight Compute's SASS "
                             "instrumentation and are not measured (tensor-core FLOPs are); the roofline uses the "
                             "plan's declared FLOPs where there are some, --counters ncu measures them");
    auto cp = run_counter_pass(o, cupti_metrics, dir);
    if (!use_trace) program = cp.process;
    interrupted = interrupted || cp.process.interrupted;
    if (!cp.problem.empty()) run.warnings.push_back(cp.problem);
    if (cp.session) {
      const auto& d = cp.session->device;  // the driver's view: name as nvidia-smi prints it, plus CC and SMs
      if (!d.name.empty()) {
        run.device.name = d.name;
        run.device.compute_capability = d.compute_capability;
        run.device.sm_count = d.sm_count;
      }
      for (const auto& w : cp.session->warnings) run.warnings.push_back(w);
      if (cp.session->launches.empty() && cp.session->warnings.empty())
        run.warnings.push_back("the counter run profiled no kernel launch");
      use_counter_launches(std::move(cp.session->launches));
    }
  }
  if (use_ncu && !interrupted) {
    if (!o.common.quiet) std::cerr << "kprof: Nsight Compute run (" << nopt.mode << ")\n";
    auto nr = ncu::run_ncu(nopt);
    if (!use_trace) program = nr.process;
    interrupted = interrupted || nr.process.interrupted;
    for (const auto& m : nr.messages)
      if (m.rfind("==ERROR==", 0) == 0) run.warnings.push_back("ncu: " + m);
    if (!nr.failure.empty()) run.warnings.push_back("ncu: " + nr.failure);
    if (!nr.csv_files.empty()) {
      auto imported = ncu::import_ncu(nr.csv_files);
      run.device = imported.run.device;
      for (const auto& w : imported.run.warnings) run.warnings.push_back(w);
      if (trace) {
        std::vector<KernelLaunch> ncu_launches;
        for (auto& s : imported.run.stages)
          for (auto& g : s.kernels)
            for (auto& l : g.launches) ncu_launches.push_back(l);
        use_counter_launches(std::move(ncu_launches));
      } else {
        run.stages = std::move(imported.run.stages);
      }
      for (const auto& k : imported.source.kernels) {
        std::string name = safe_name(k.function.empty() ? k.name : k.function);
        files["source/" + name + ".md"] = render::render_annotated_source(k);
        files["source/" + name + "_sass.csv"] = render::render_sass_csv(k);
      }
    } else if (nr.failure.empty()) {
      run.warnings.push_back("ncu produced no CSV output");
    }
    if (o.prof_type == "ncu") dump_compiled(o.command[0], dir, run.warnings);
  }
  if (clock_guard) {
    run.clocks = clock_guard->finish();
    clock_guard->restore();
  } else if (auto after = clocks_before ? read_clocks(gpu, run.warnings) : std::nullopt) {
    ClockRecord rec;
    rec.sm_mhz_before = clocks_before->sm_mhz.value_or(0);
    rec.mem_mhz_before = clocks_before->mem_mhz.value_or(0);
    rec.sm_mhz_after = after->sm_mhz.value_or(0);
    rec.mem_mhz_after = after->mem_mhz.value_or(0);
    if (after->event_reasons) rec.throttle_reasons = decode_event_reasons(*after->event_reasons);
    run.clocks = rec;
  }
  // Power, thermal or hardware slowdowns lower the clocks under the measurement: say so next to the numbers.
  if (run.clocks)
    for (const auto& r : run.clocks->throttle_reasons)
      if (r.find("power") != std::string::npos || r.find("thermal") != std::string::npos || r == "hw_slowdown")
        run.warnings.push_back("GPU clocks were throttled (" + r + ") when the run ended: timings may be low");
  if (!o.counters_from.empty()) declare_from_counters(run, o.counters_from);
  apply_declared_stages(run, o.declared_stages);
  if (!extra_body.empty()) files["timeline.md"] = extra_body;
  PublishOptions po;
  po.common = &o.common;
  po.baseline = o.baseline;
  po.dir = dir;
  po.devlog = o.devlog;
  po.docs_dir = o.docs_dir;
  publish_run(run, ctx, po, files);
  if (interrupted) {
    std::cerr << "kprof: interrupted; what was measured is in " << dir.string() << "\n";
    return kExitInterrupted;
  }
  if (program.signaled || program.exit_code != 0) {
    std::cerr << "kprof: the profiled program " << program.describe() << "; partial results are in "
              << dir.string() << "\n";
    return kExitProgramFailed;
  }
  return kExitOk;
}

}  // namespace kprof::cli
