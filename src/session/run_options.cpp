#include "session/run_options.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>

#include "session/sweep_executor.hpp"
#include "util/errors.hpp"

namespace kprof::session {

namespace {

// Numbers as the command line takes them: the whole text, in range, else a usage error naming the option.
template <class T>
T number(const std::string& value, std::string_view option) {
  T out{};
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, out);
  if (value.empty() || ec != std::errc() || ptr != end)
    throw Error(fmt::format("--{}: '{}' is not {}", option, value,
                            std::is_floating_point_v<T> ? "a number" : "an integer"),
                kExitUsage);
  return out;
}

std::string text(double v) { return fmt::format("{:g}", v); }

// One row: `run`/`pkg` say which commands offer it. The lambdas are captureless (plain function pointers).
#define KPROF_SET [](PackageSpec & s, const std::string& v)
#define KPROF_DEFAULT [](const PackageSpec& s) -> std::string

const std::array<RunOption, 35> kOptions{{
    {"prof-type", "prof_type", "mode", "annotation | event | ncu | nsys (kprof run --dry-run shows what each collects)",
     false, true, true, KPROF_SET { s.run.mode = parse_mode(v, "--prof-type"); },
     KPROF_DEFAULT { return std::string(mode_name(s.run.mode)); }},
    {"kernel", "", "kernel", "Kernel/package name for the artifacts (default: program or script name)", false, true,
     false, KPROF_SET { s.run.kernel = v; }, nullptr},
    {"version", "", "version", "Version label (default: -)", false, true, false, KPROF_SET { s.run.version = v; },
     nullptr},
    {"bench-runs", "bench_runs", "bench_runs", "Timed runs of the plan", false, false, true,
     KPROF_SET {
       s.bench_runs = number<int>(v, "bench-runs");
     },
     KPROF_DEFAULT { return std::to_string(s.bench_runs); }},
    {"retune", "", "retune", "Measure every tile config again, ignoring the autotune cache", true, false, true,
     KPROF_SET { s.retune = true; }, nullptr},
    {"cache-dir", "", "cache_dir", "Autotune cache root (default .cache/kernel-autotune)", false, false, true,
     KPROF_SET { s.cache_dir = v; }, nullptr},
    {"autotune", "", "autotune", "Only check and autotune (fill the autotune cache); profile nothing", true, false,
     true, KPROF_SET { s.autotune_only = true; }, nullptr},
    {"executor", "", "executor",
     "Where the autotuning runs: local (this process), gpus (a worker per visible GPU), slurm (an sbatch --array "
     "job; docs/scale.md); the profiled run is always local",
     false, false, true,
     KPROF_SET {
       (void)parse_executor(v, "--executor");
       s.executor = v;
     },
     KPROF_DEFAULT { return s.executor; }},
    {"chunk", "", "chunk", "slurm: tuning tasks per array task", false, false, true,
     KPROF_SET {
       s.chunk = number<int>(v, "chunk");
       if (s.chunk < 1) throw Error("--chunk must be at least 1", kExitUsage);
     },
     KPROF_DEFAULT { return std::to_string(s.chunk); }},
    {"sbatch-args", "", "sbatch_args", "slurm: more sbatch options, space-separated ('--partition=gpu --time=30')",
     false, false, true,
     KPROF_SET {
       s.sbatch_args.clear();
       std::string word;
       for (char c : v + " ") {
         if (c != ' ') word += c;
         else if (!word.empty()) s.sbatch_args.push_back(word), word.clear();
       }
     },
     nullptr},
    {"baseline", "", "baseline", "Artifact directory (or profile.json) to compare with", false, true, true,
     KPROF_SET { s.run.output.baseline = v; }, nullptr},
    {"out-root", "", "out_root", "Root of the artifact tree", false, true, true,
     KPROF_SET { s.run.output.out_root = v; }, KPROF_DEFAULT { return s.run.output.out_root; }},
    {"out", "", "out_dir", "Exact artifact directory to write (an existing artifact: only with --replace)", false,
     true, true, KPROF_SET { s.run.output.out_dir = v; }, nullptr},
    {"replace", "", "replace", "Replace the artifact --out names (no file of the old one stays)", true, true, true,
     KPROF_SET { s.run.output.replace = true; }, nullptr},
    {"devlog", "", "devlog", "Append a devlog entry to <docs>/<kernel>.md", true, true, true,
     KPROF_SET { s.run.output.devlog = true; }, nullptr},
    {"docs", "", "docs_dir", "Devlog folder", false, true, true, KPROF_SET { s.run.output.docs_dir = v; },
     KPROF_DEFAULT { return s.run.output.docs_dir; }},
    {"kernel-regex", "", "kernel_regex", "Only kernels whose name matches this regex (the counter runs: CUPTI and ncu)", false, true, false,
     KPROF_SET { s.run.filters.kernel_regex = v; }, nullptr},
    {"nvtx-include", "", "nvtx_include",
     "Only kernels inside this NVTX push/pop range, e.g. 'stage_gemm/' (ncu's syntax; counters and the traced "
     "timings alike)",
     false, true, false, KPROF_SET { s.run.filters.nvtx_include = v; }, nullptr},
    {"declared", "", "declared",
     "JSON file of the work each stage (NVTX range) declares: {\"stage\": {\"flops\": ..., \"min_bytes\": ..., "
     "\"precision\": \"fp32\"}} (the roofline uses it)",
     false, true, false, KPROF_SET { s.run.declared_stages = declared_stages_from_file(v); }, nullptr},
    {"launch-skip", "", "launch_skip", "ncu: skip this many matching launches", false, true, false,
     KPROF_SET { s.run.filters.launch_skip = number<int>(v, "launch-skip"); }, nullptr},
    {"launch-count", "", "launch_count", "ncu: profile at most this many launches", false, true, false,
     KPROF_SET { s.run.filters.launch_count = number<int>(v, "launch-count"); }, nullptr},
    {"all-launches", "", "all_launches", "annotation: collect counters for every launch, not once per kernel", true,
     true, false, KPROF_SET { s.run.filters.all_launches = true; }, nullptr},
    {"timing", "", "timing",
     "annotation: durations of every launch from a tracer pass (trace), or only those of the counter run "
     "(counters; 'ncu' is the same)",
     false, true, false, KPROF_SET { s.run.timing = parse_timing_source(v, "--timing"); },
     KPROF_DEFAULT { return std::string(timing_source_name(s.run.timing)); }},
    {"counters", "", "counters",
     "annotation: hardware counters from Nsight Compute (ncu) or from the CUPTI range profiler inside the program "
     "(cupti: no ncu start-up, no ncu needed); default: $KPROF_COUNTERS, else cupti",
     false, true, true, KPROF_SET { s.run.counters = parse_counter_source(v, "--counters"); }, nullptr},
    {"counters-min-share", "", "counters_min_share",
     "annotation after a tracer pass: counters only for kernels with at least this percentage of the traced GPU "
     "time (0: every kernel)",
     false, true, false,
     KPROF_SET {
       double pct = number<double>(v, "counters-min-share");
       if (!(pct >= 0 && pct <= 100))
         throw Error(fmt::format("--counters-min-share: {} is not in [0, 100]", v), kExitUsage);
       s.run.counters_min_share_pct = pct;
     },
     KPROF_DEFAULT { return text(s.run.counters_min_share_pct); }},
    {"clock-control", "", "clock_control", "ncu --clock-control (none leaves GPU clocks alone)", false, true, false,
     KPROF_SET { s.run.clock_control = v; }, KPROF_DEFAULT { return s.run.clock_control; }},
    {"ncu", "", "ncu", "Nsight Compute executable", false, true, true, KPROF_SET { s.run.ncu = v; },
     KPROF_DEFAULT { return s.run.ncu; }},
    {"counters-from", "", "counters_from", "event: FLOPs/bytes per kernel from an earlier artifact", false, true,
     false, KPROF_SET { s.run.counters_from = v; }, nullptr},
    {"no-wait", "", "no_wait", "Fail (exit 8) instead of waiting when another kprof run holds the GPU", true, true,
     true, KPROF_SET { s.run.no_wait = true; }, nullptr},
    {"dry-run", "", "dry_run", "Print the mode's collectors, what they run and the outputs", true, true, true,
     KPROF_SET { s.run.dry_run = true; }, nullptr},
    {"lock-clocks", "", "lock_clocks",
     "Lock the SM clock to its default application clock for the run and restore it afterwards (needs --yes or "
     "KPROF_ALLOW_CLOCK_CHANGE=1; never on shared GPUs)",
     true, true, false, KPROF_SET { s.run.lock_clocks = true; }, nullptr},
    {"yes", "", "yes", "Consent to the clock change --lock-clocks makes", true, true, false,
     KPROF_SET { s.run.yes = true; }, nullptr},
    {"devices", "", "devices", "Extra devices.json; its entries override the shipped ones", false, true, true,
     KPROF_SET { s.run.data.devices_file = v; }, nullptr},
    {"thresholds", "", "thresholds", "thresholds.toml overriding the shipped healthy thresholds", false, true, true,
     KPROF_SET { s.run.data.thresholds_file = v; }, nullptr},
    {"kernels", "", "kernels", "kprof-kernels binary (default: $KPROF_KERNELS, else next to kprof or in ../libexec, else PATH)", false, false,
     false, KPROF_SET { s.kernels = v; }, nullptr},
}};

#undef KPROF_SET
#undef KPROF_DEFAULT

}  // namespace

std::span<const RunOption> run_options() { return kOptions; }

const RunOption* find_run_option(std::string_view name) {
  for (const auto& o : kOptions)
    if (o.name == name || (!o.alias.empty() && o.alias == name) || o.key == name) return &o;
  return nullptr;
}

}  // namespace kprof::session
