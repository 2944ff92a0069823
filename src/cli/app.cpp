// kprof command line: subcommands, options, and the mapping from errors to exit codes (docs/cli.md).
#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli/commands/commands.hpp"
#include "session/mode.hpp"
#include "util/errors.hpp"
#include "util/utf8.hpp"

namespace kprof::cli {

namespace {

void add_common(CLI::App* sub, session::DataFiles& data, PrintOptions& print) {
  sub->add_option("--devices", data.devices_file, "Extra devices.json; its entries override the shipped ones");
  sub->add_option("--thresholds", data.thresholds_file, "thresholds.toml overriding the shipped healthy thresholds");
  sub->add_flag("--json", print.json, "Print machine-readable JSON instead of Markdown");
  sub->add_flag("-q,--quiet", print.quiet, "Print only errors");
}
void add_common(CLI::App* sub, CommonOptions& c) { add_common(sub, c.data, c.print); }

// Where results go and what they are compared with: the same flags on analyze, run and package commands.
void add_output_options(CLI::App* sub, session::OutputSpec& o) {
  sub->add_option("--baseline", o.baseline, "Artifact directory (or profile.json) to compare with");
  sub->add_option("--out-root", o.out_root, "Root of the artifact tree")->capture_default_str();
  sub->add_option("--out", o.out_dir, "Exact artifact directory to write (an existing artifact: only with --replace)");
  sub->add_flag("--replace", o.replace, "Replace the artifact --out names (no file of the old one stays)");
  sub->add_flag("--devlog", o.devlog, "Append a devlog entry to <docs>/<kernel>.md");
  sub->add_option("--docs", o.docs_dir, "Devlog folder")->capture_default_str();
}

// The mode flag: kebab-case, with the seed's --prof_type kept as an alias. Parsed by session::parse_mode.
void add_mode_option(CLI::App* sub, std::string& mode) {
  sub->add_option("--prof-type,--prof_type", mode, "annotation | event | ncu | nsys (kprof run --dry-run shows "
                                                   "what each collects)")
      ->capture_default_str();
}

// Problem parameters are free-form `--name=value` flags (`--b=32 --s=16 --dtype=bf16`).
void take_params(const std::vector<std::string>& extras, ProblemParams& params) {
  for (const auto& arg : extras) {
    if (arg.rfind("--", 0) != 0 || arg.find('=') == std::string::npos)
      throw Error("unexpected argument '" + arg + "' (problem parameters are written --name=value)", kExitUsage);
    auto eq = arg.find('=');
    try {
      params.set(arg.substr(2, eq - 2), arg.substr(eq + 1));
    } catch (const std::invalid_argument& e) {
      throw Error(e.what(), kExitUsage);
    }
  }
}

// Standard output that could not be written (a full disk, a closed pipe, /dev/full) fails the command.
int checked_stdout(int rc) {
  errno = 0;
  std::cout.flush();
  int err = errno;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) {
    if (!err) err = errno;
    std::cerr << "kprof: error: cannot write standard output: " << (err ? std::strerror(err) : "write error") << "\n";
    return rc == kExitOk ? static_cast<int>(kExitCannotWrite) : rc;
  }
  return rc;
}

// Runs a parsed command and maps what it throws to the documented exit codes (docs/cli.md).
template <class F>
int with_exit_codes(CLI::App& app, F&& body) {
  try {
    return checked_stdout(body());
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  } catch (const Error& e) {
    // Messages quote input (a CSV cell, a path, a name): never raw bytes or escape sequences on the terminal.
    std::cerr << "kprof: error: " << terminal_text(e.what()) << "\n";
    return e.exit_code();
  } catch (const std::filesystem::filesystem_error& e) {
    // The file system refused (a path under a file, no space, no permission): not a bug in kprof.
    std::cerr << "kprof: error: " << terminal_text(e.what()) << "\n";
    return kExitCannotWrite;
  } catch (const std::exception& e) {
    std::cerr << "kprof: internal error: " << terminal_text(e.what()) << "\n";
    return kExitFailure;
  }
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"kprof: profile GPU kernels, name the bottleneck, rank what to try next"};
  app.set_version_flag("--version", std::string("kprof ") + KPROF_VERSION);
  app.require_subcommand(1);
  app.footer("Kernel packages: kprof <package> [<version>] [--param=value ...] --prof-type=<mode> (kprof list).\n"
             "Exit codes: 0 ok, 1 internal error, 2 usage, 3 bad input, 4 no GPU, 5 tool missing,\n"
             "6 no counter permission, 7 profiled program failed, 8 GPU busy, 9 cannot write output, 10 regression (compare --fail-on-regression),\n"
             "130 interrupted (SIGINT), 143 terminated (SIGTERM) (docs/cli.md).");

  AnalyzeOptions an;
  auto* analyze = app.add_subcommand("analyze", "Analyse Nsight Compute CSV exports (or an artifact directory)");
  analyze->add_option("inputs", an.inputs, "ncu --csv files (raw, details, source, session pages), .ncu-rep reports or an artifact dir")
      ->required();
  analyze->add_option("--kernel", an.kernel, "Kernel/package name (default: the profiled process name)");
  analyze->add_option("--version", an.version, "Version label (default: -)");
  add_output_options(analyze, an.output);
  analyze->add_flag("!--no-write", an.write, "Print only; write no artifact directory");
  analyze->add_option("--ncu", an.ncu, "Nsight Compute executable, to read .ncu-rep reports (ncu --import --csv)")
      ->capture_default_str();
  analyze->allow_extras();
  analyze->footer("Problem parameters: --name=value (e.g. --b=32 --s=16 --t=4096 --dtype=bf16).");
  add_common(analyze, an.common);

  CompareOptions cmp;
  auto* compare = app.add_subcommand("compare", "Compare two artifact directories (baseline, current)");
  compare->add_option("baseline", cmp.baseline, "Baseline artifact directory or profile.json")->required();
  compare->add_option("current", cmp.current, "Current artifact directory or profile.json")->required();
  compare->add_option("--fail-on-regression", cmp.fail_on_regression,
                      "Exit 10 when a stage is slower by more than this (e.g. 5%) and the rank test says significant");
  compare->add_option("--junit", cmp.junit, "Write the regression check as JUnit XML to this file");
  compare->add_flag("--github-annotations", cmp.github_annotations,
                    "Print the regression check as GitHub Actions ::error/::warning commands");
  add_common(compare, cmp.common);

  DevlogOptions dl;
  auto* devlog = app.add_subcommand("devlog", "Append a devlog entry for an artifact to docs/kernels/<kernel>.md");
  devlog->add_option("artifact", dl.artifact, "Artifact directory or profile.json")->required();
  devlog->add_option("--docs", dl.docs_dir, "Devlog folder")->capture_default_str();
  add_common(devlog, dl.common);

  DevicesOptions dev;
  auto* devices = app.add_subcommand("devices", "List known devices and their peaks (datasheet or measured)");
  devices->add_option("--show", dev.show, "Show every peak of one device, with sources");
  add_common(devices, dev.common);

  // kprof run fills a session::RunSpec directly; mode, timing and counter source are bound as text and parsed once,
  // by session/mode.hpp, after the command line is parsed.
  session::RunSpec rs;
  PrintOptions run_print;
  std::string run_mode = "annotation", run_timing = "trace", run_counters;
  auto* runc = app.add_subcommand("run", "Profile any CUDA program: kprof run --prof-type=<mode> [options] -- <command ...>");
  add_mode_option(runc, run_mode);
  runc->add_option("--kernel", rs.kernel, "Kernel/package name for the artifacts (default: program or script name)");
  runc->add_option("--version", rs.version, "Version label (default: -)");
  add_output_options(runc, rs.output);
  runc->add_option("--kernel-regex", rs.filters.kernel_regex, "Only kernels whose name matches this regex (ncu modes)");
  runc->add_option("--nvtx-include", rs.filters.nvtx_include,
                   "Only kernels inside this NVTX push/pop range, e.g. 'stage_gemm/' (ncu's syntax; counters and "
                   "the traced timings alike)");
  std::string run_declared;
  runc->add_option("--declared", run_declared,
                   "JSON file of the work each stage (NVTX range) declares: {\"stage\": {\"flops\": ..., "
                   "\"min_bytes\": ..., \"precision\": \"fp32\"}} (the roofline uses it)");
  runc->add_option("--launch-skip", rs.filters.launch_skip, "ncu: skip this many matching launches");
  runc->add_option("--launch-count", rs.filters.launch_count, "ncu: profile at most this many launches");
  runc->add_flag("--all-launches", rs.filters.all_launches,
                 "annotation: collect counters for every launch, not once per kernel");
  runc->add_option("--timing", run_timing,
                   "annotation: durations of every launch from a tracer pass (trace), or only those of the counter "
                   "run (counters; 'ncu' is the same)")
      ->capture_default_str();
  runc->add_option("--counters", run_counters,
                   "annotation: hardware counters from Nsight Compute (ncu) or from the CUPTI range profiler inside "
                   "the program (cupti: no ncu start-up, no ncu needed); default: $KPROF_COUNTERS, else cupti");
  runc->add_option("--counters-min-share", rs.counters_min_share_pct,
                   "annotation after a tracer pass: counters only for kernels with at least this percentage of the "
                   "traced GPU time (0: every kernel)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  runc->add_option("--clock-control", rs.clock_control, "ncu --clock-control (none leaves GPU clocks alone)")
      ->capture_default_str();
  runc->add_option("--ncu", rs.ncu, "Nsight Compute executable")->capture_default_str();
  runc->add_option("--counters-from", rs.counters_from, "event: FLOPs/bytes per kernel from an earlier artifact");
  runc->add_flag("--no-wait", rs.no_wait, "Fail (exit 8) instead of waiting when another kprof run holds the GPU");
  runc->add_flag("--dry-run", rs.dry_run, "Print the mode's collectors, what they run and the outputs");
  runc->add_flag("--lock-clocks", rs.lock_clocks,
                 "Lock the SM clock to its default application clock for the run and restore it afterwards "
                 "(needs --yes or KPROF_ALLOW_CLOCK_CHANGE=1; never on shared GPUs)");
  runc->add_flag("--yes", rs.yes, "Consent to the clock change --lock-clocks makes");
  runc->allow_extras();
  runc->footer("Problem parameters: --name=value. Everything after `--` is the program to profile.");
  add_common(runc, rs.data, run_print);

  ClockOptions co;
  auto* clock = app.add_subcommand("clock", "GPU clock protocol: status | lock | reset (changes need --yes)");
  clock->add_option("action", co.action, "status, lock or reset")->required()
      ->check(CLI::IsMember({"status", "lock", "reset"}));
  clock->add_option("--gpu", co.gpu, "GPU index")->capture_default_str();
  clock->add_flag("--yes", co.yes, "Really change clocks (or KPROF_ALLOW_CLOCK_CHANGE=1); default: print the commands");
  clock->add_option("--sm-mhz", co.sm_mhz, "lock: SM clock to lock to (default: the default application clock)");

  PeaksOptions po;
  auto* peaks = app.add_subcommand("peaks", "Measure device peaks (kprof-peaks) and record them as `measured`");
  peaks->add_flag("--measure", po.measure, "Run the microbenchmarks on this machine's GPU");
  peaks->add_option("--import", po.import_file, "Merge a kprof-peaks JSON file instead of measuring");
  peaks->add_option("--device", po.device, "Device id to attach the figures to (default: matched by name)");
  peaks->add_option("--write-devices", po.write_devices, "devices.json to update (default: the shipped one)");
  peaks->add_option("--docs", po.docs_dir, "Where docs/devices/<id>.md goes")->capture_default_str();
  add_common(peaks, po.common);

  ListOptions lo;
  auto* list = app.add_subcommand("list", "List the bundled kernel packages, their versions and parameters");
  add_common(list, lo.common);

  BenchOptions bo;
  auto* bench = app.add_subcommand("bench", "Time every version of the kernel packages over a parameter sweep "
                                            "(bench/bench_all, bench/bench_<package>)");
  bench->add_option("--packages", bo.packages, "Packages to run, comma-separated (default: all)")->delimiter(',');
  bench->add_option("--versions", bo.versions, "Only these versions, comma-separated (default: all)")->delimiter(',');
  bench->add_option("--point", bo.points, "A parameter point replacing the sweep's, e.g. m=1024,n=1024,k=512 "
                                          "(repeatable; one package)");
  bench->add_option("--sweep", bo.sweep_file, "Sweep file (default: bench/sweeps.toml)");
  bench->add_option("--runs", bo.runs, "Timed runs per version and point (default: the sweep file's)");
  bench->add_option("--out", bo.out_dir, "Output directory (default: out/bench/<timestamp>)");
  bench->add_option("--kernels", bo.kernels, "kprof-kernels binary (default: next to kprof, $KPROF_KERNELS, PATH)");
  bench->add_option("--cache-dir", bo.cache_dir, "Autotune cache root (default .cache/kernel-autotune)");
  bench->add_option("--device", bo.device, "devices.json id whose peaks give the roof (default: the GPU the runs "
                                           "report)");
  bench->add_flag("--retune", bo.retune, "Measure every tile config again, ignoring the autotune cache");
  bench->add_flag("--dry-run", bo.dry_run, "Print the kprof-kernels commands, run nothing");
  bench->add_flag("--no-wait", bo.no_wait, "Fail (exit 8) instead of waiting when another kprof run holds the GPU");
  bench->add_flag("-v,--verbose", bo.verbose, "Show kprof-kernels' own progress (tuning, timing)");
  add_common(bench, bo.common);

  // `kprof <package> [<version>] --m=..`: a first word that is not a subcommand names a kernel package.
  session::PackageSpec pk;
  PrintOptions pkg_print;
  std::string pkg_mode = "annotation", pkg_counters;
  CLI::App pkg_app{"kprof <package> [<version>] [--param=value ...] [options]: profile a bundled kernel package "
                   "(kprof list shows them)"};
  pkg_app.add_option("version", pk.version, "Version (default: the latest)");
  add_mode_option(&pkg_app, pkg_mode);
  pkg_app.add_option("--bench-runs,--bench_runs", pk.bench_runs, "Timed runs of the plan")->capture_default_str();
  pkg_app.add_flag("--retune", pk.retune, "Measure every tile config again, ignoring the autotune cache");
  pkg_app.add_option("--cache-dir", pk.cache_dir, "Autotune cache root (default .cache/kernel-autotune)");
  add_output_options(&pkg_app, pk.run.output);
  pkg_app.add_option("--ncu", pk.run.ncu, "Nsight Compute executable")->capture_default_str();
  pkg_app.add_option("--counters", pkg_counters,
                     "annotation: counters from Nsight Compute (ncu) or the CUPTI range profiler in-process (cupti); "
                     "default: $KPROF_COUNTERS, else cupti");
  pkg_app.add_flag("--no-wait", pk.run.no_wait, "Fail (exit 8) instead of waiting when another kprof run holds the GPU");
  pkg_app.add_flag("--dry-run", pk.run.dry_run, "Print the plan, the mode's collectors and what would run");
  pkg_app.allow_extras();
  pkg_app.footer("Problem parameters: --name=value (kprof list shows each package's parameters and defaults).");
  add_common(&pkg_app, pk.run.data, pkg_print);
  bool package_cmd = false;
  if (argc >= 2 && argv[1][0] != '-') {
    package_cmd = true;
    for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
      if (sub->get_name() == argv[1]) package_cmd = false;
  }
  if (package_cmd) {
    pk.package = argv[1];
    return with_exit_codes(pkg_app, [&] {
      pkg_app.parse(argc - 1, argv + 1);
      take_params(pkg_app.remaining(), pk.params);
      pk.run.mode = session::parse_mode(pkg_mode, "--prof-type");
      if (!pkg_counters.empty()) pk.run.counters = session::parse_counter_source(pkg_counters, "--counters");
      pk.run.log = stderr_log(pkg_print.quiet);
      return cmd_package(pk, pkg_print);
    });
  }

  // Everything after the first `--` is the profiled command, kept away from option parsing.
  std::vector<std::string> tail;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--") {
      for (int j = i + 1; j < argc; ++j) tail.emplace_back(argv[j]);
      argc = i;
      break;
    }

  return with_exit_codes(app, [&] {
    app.parse(argc, argv);
    if (*runc) {
      take_params(runc->remaining(), rs.params);
      if (!run_declared.empty()) rs.declared_stages = session::declared_stages_from_file(run_declared);
      rs.command = tail;
      rs.mode = session::parse_mode(run_mode, "--prof-type");
      rs.timing = session::parse_timing_source(run_timing, "--timing");
      if (!run_counters.empty()) rs.counters = session::parse_counter_source(run_counters, "--counters");
      rs.log = stderr_log(run_print.quiet);
      return cmd_run(rs, run_print);
    }
    if (*clock) return cmd_clock(co);
    if (*peaks) return cmd_peaks(po);
    if (*analyze) {
      take_params(analyze->remaining(), an.params);
      return cmd_analyze(an);
    }
    if (*compare) return cmd_compare(cmp);
    if (*devlog) return cmd_devlog(dl);
    if (*devices) return cmd_devices(dev);
    if (*list) return cmd_list(lo);
    if (*bench) return cmd_bench(bo);
    return static_cast<int>(kExitOk);
  });
}

}  // namespace kprof::cli
