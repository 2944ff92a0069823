// kprof command line: subcommands, options, and the mapping from errors to exit codes (docs/cli.md).
#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <type_traits>

#include "cli/commands/commands.hpp"
#include "session/run_options.hpp"
#include "util/errors.hpp"
#include "util/utf8.hpp"

namespace kprof::cli {

namespace {

// One of session/run_options.hpp's options (its name and help, written there once) bound straight to a field, for
// the commands whose options are not a profiling spec: the row's setter is a plain assignment for these.
template <class T>
CLI::Option* add_table_option(CLI::App* sub, std::string_view name, T& target) {
  const session::RunOption* o = session::find_run_option(name);
  const std::string flag = "--" + std::string(o->name), help(o->help);
  if constexpr (std::is_same_v<T, bool>) return sub->add_flag(flag, target, help);
  else return sub->add_option(flag, target, help)->capture_default_str();
}

// --json and -q on every command that prints a contract or a table.
void add_print(CLI::App* sub, PrintOptions& print) {
  sub->add_flag("--json", print.json, "Print machine-readable JSON instead of Markdown");
  sub->add_flag("-q,--quiet", print.quiet, "Print only errors (and the JSON --json asks for)");
}

// --devices, --thresholds (the options table's), --json and -q.
void add_common(CLI::App* sub, CommonOptions& c) {
  add_table_option(sub, "devices", c.data.devices_file);
  add_table_option(sub, "thresholds", c.data.thresholds_file);
  add_print(sub, c.print);
}

// Where results go and what they are compared with: the options table's, as kprof run and kprof <package> have them.
void add_output_options(CLI::App* sub, session::OutputSpec& o) {
  add_table_option(sub, "baseline", o.baseline);
  add_table_option(sub, "out-root", o.out_root);
  add_table_option(sub, "out", o.out_dir);
  add_table_option(sub, "replace", o.replace);
  add_table_option(sub, "devlog", o.devlog);
  add_table_option(sub, "docs", o.docs_dir);
}

// --executor, --chunk, --sbatch-arg: where a sweep's tasks run (session/sweep_executor.hpp, docs/scale.md).
void add_executor_options(CLI::App* sub, std::string& executor, int& chunk, std::vector<std::string>& sbatch_args) {
  sub->add_option("--executor", executor, "Where the runs go: local (this process, one after another), gpus (a "
                                          "worker per visible GPU), slurm (an sbatch --array job)")
      ->check(CLI::IsMember({"local", "gpus", "slurm"}))
      ->capture_default_str();
  sub->add_option("--chunk", chunk, "slurm: runs per array task")->capture_default_str();
  sub->add_option("--sbatch-arg", sbatch_args, "slurm: one more sbatch option, e.g. --sbatch-arg=--partition=gpu "
                                               "(repeatable)")
      ->allow_extra_args(false);
}

// Problem parameters are free-form `--name=value` flags (`--b=32 --s=16 --dtype=bf16`).
// `program_after`: the command takes a program after `--` (kprof run): a word that is not an option most likely is
// that program, given without the `--`.
void take_params(const std::vector<std::string>& extras, ProblemParams& params, bool program_after = false) {
  for (const auto& arg : extras) {
    if (program_after && arg.rfind("-", 0) != 0)
      throw Error("unexpected argument '" + arg + "': the program to profile goes after `--` (kprof run " +
                      "--prof-type=<mode> [options] -- " + arg + " ...)",
                  kExitUsage);
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
    // --help and --version print through here too: output that could not be written fails them as well.
    int rc = app.exit(e);
    return checked_stdout(rc == 0 ? kExitOk : kExitUsage);
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

// The help's closing lines: how packages are named, and every exit code (util/errors.hpp's table).
std::string footer() {
  std::string codes;
  for (const auto& e : kExitCodes) {
    std::string item = fmt::format("{} {}", e.code, e.meaning);
    codes += (codes.empty() ? "" : ", ") + item;
  }
  return "Kernel packages: kprof <package> [<version>] [--param=value ...] --prof-type=<mode> (kprof list).\n"
         "Exit codes: " + codes + " (docs/cli.md).";
}

// The options of session/run_options.hpp that one profiling command offers, bound as text and applied to a spec
// after parsing (each option parses its own value there, so a bad one is a usage error naming it).
class BoundRunOptions {
 public:
  BoundRunOptions(CLI::App* sub, bool package) {
    for (const auto& o : session::run_options()) {
      if (!(package ? o.on_package : o.on_run)) continue;
      std::string names = "--" + std::string(o.name) + (o.alias.empty() ? "" : ",--" + std::string(o.alias));
      auto& slot = values_[std::string(o.name)];
      CLI::Option* opt = o.flag ? sub->add_flag(names, slot.given, std::string(o.help))
                                : sub->add_option(names, slot.value, std::string(o.help));
      if (o.default_of) opt->default_str(o.default_of(session::PackageSpec{}));
      bound_.push_back({&o, opt});
    }
  }
  void apply(session::PackageSpec& spec) const {
    for (const auto& [o, opt] : bound_)
      if (opt->count() > 0) o->set(spec, values_.at(std::string(o->name)).value);
  }

 private:
  struct Slot {
    std::string value;
    bool given = false;
  };
  std::map<std::string, Slot> values_;
  std::vector<std::pair<const session::RunOption*, CLI::Option*>> bound_;
};

// One subcommand: registered on the app, run when it is the one parsed.
struct Command {
  CLI::App* app;
  std::function<int()> action;
};

Command analyze_command(CLI::App& app) {
  auto an = std::make_shared<AnalyzeOptions>();
  auto* sub = app.add_subcommand("analyze", "Analyse Nsight Compute CSV exports (or an artifact directory)");
  sub->add_option("inputs", an->inputs, "ncu --csv files (raw, details, source, session pages), .ncu-rep reports or an artifact dir")
      ->required();
  sub->add_option("--kernel", an->kernel, "Kernel/package name (default: the profiled process name)");
  sub->add_option("--version", an->version, "Version label (default: -)");
  add_output_options(sub, an->output);
  // A plain flag, negated after parsing: a "!--no-write" flag printed its default as "--no-write{false}".
  auto no_write = std::make_shared<bool>(false);
  sub->add_flag("--no-write", *no_write, "Print only; write no artifact directory");
  sub->parse_complete_callback([an, no_write] { an->write = !*no_write; });
  sub->add_option("--ncu", an->ncu, "Nsight Compute executable, to read .ncu-rep reports (ncu --import --csv)")
      ->capture_default_str();
  sub->allow_extras();
  sub->footer("Problem parameters: --name=value (e.g. --b=32 --s=16 --t=4096 --dtype=bf16).");
  add_common(sub, an->common);
  return {sub, [an, sub] {
            take_params(sub->remaining(), an->params);
            return cmd_analyze(*an);
          }};
}

Command compare_command(CLI::App& app) {
  auto cmp = std::make_shared<CompareOptions>();
  auto* sub = app.add_subcommand("compare", "Compare two artifact directories (baseline, current)");
  sub->add_option("baseline", cmp->baseline, "Baseline artifact directory or profile.json")->required();
  sub->add_option("current", cmp->current, "Current artifact directory or profile.json")->required();
  sub->add_option("--fail-on-regression", cmp->fail_on_regression,
                  "Exit 10 when a stage is slower by more than this (e.g. 5%) and the rank test says significant");
  sub->add_option("--junit", cmp->junit, "Write the regression check as JUnit XML to this file");
  sub->add_flag("--github-annotations", cmp->github_annotations,
                "Print the regression check as GitHub Actions ::error/::warning commands");
  add_common(sub, cmp->common);
  return {sub, [cmp] { return cmd_compare(*cmp); }};
}

Command devlog_command(CLI::App& app) {
  auto dl = std::make_shared<DevlogOptions>();
  auto* sub = app.add_subcommand("devlog", "Append a devlog entry for an artifact to docs/kernels/<kernel>.md");
  sub->add_option("artifact", dl->artifact, "Artifact directory or profile.json")->required();
  add_table_option(sub, "docs", dl->docs_dir);
  add_common(sub, dl->common);
  return {sub, [dl] { return cmd_devlog(*dl); }};
}

Command devices_command(CLI::App& app) {
  auto dev = std::make_shared<DevicesOptions>();
  auto* sub = app.add_subcommand("devices", "List known devices and their peaks (datasheet or measured)");
  sub->add_option("--show", dev->show, "Show every peak of one device, with sources");
  add_common(sub, dev->common);
  return {sub, [dev] { return cmd_devices(*dev); }};
}

// kprof run: its options are the table's (session/run_options.hpp), applied to a session::RunSpec after parsing;
// everything after `--` is the program.
Command run_command(CLI::App& app, const std::vector<std::string>& program) {
  auto* sub = app.add_subcommand("run", "Profile any CUDA program: kprof run --prof-type=<mode> [options] -- <command ...>");
  auto options = std::make_shared<BoundRunOptions>(sub, /*package=*/false);
  auto print = std::make_shared<PrintOptions>();
  add_print(sub, *print);
  sub->allow_extras();
  sub->footer("Problem parameters: --name=value. Everything after `--` is the program to profile.");
  return {sub, [sub, options, print, &program] {
            session::PackageSpec spec;
            options->apply(spec);
            take_params(sub->remaining(), spec.run.params, /*program_after=*/true);
            spec.run.command = program;
            spec.run.log = stderr_log(print->quiet);
            return cmd_run(spec.run, *print);
          }};
}

Command clock_command(CLI::App& app) {
  auto co = std::make_shared<ClockOptions>();
  auto* sub = app.add_subcommand("clock", "GPU clock protocol: status | lock | reset (changes need --yes)");
  sub->add_option("action", co->action, "status, lock or reset")->required()
      ->check(CLI::IsMember({"status", "lock", "reset"}));
  sub->add_option("--gpu", co->gpu, "GPU index")->capture_default_str();
  sub->add_flag("--yes", co->yes, "Really change clocks (or KPROF_ALLOW_CLOCK_CHANGE=1); default: print the commands");
  sub->add_option("--sm-mhz", co->sm_mhz, "lock: SM clock to lock to (default: the default application clock)");
  sub->add_flag("--json", co->json, "status: print JSON (schema kprof.clock-status/1)");
  return {sub, [co] { return cmd_clock(*co); }};
}

Command peaks_command(CLI::App& app) {
  auto po = std::make_shared<PeaksOptions>();
  auto* sub = app.add_subcommand("peaks", "Measure device peaks (kprof-peaks) and record them as `measured`");
  sub->add_flag("--measure", po->measure, "Run the microbenchmarks on this machine's GPU");
  sub->add_option("--import", po->import_file, "Merge a kprof-peaks JSON file instead of measuring");
  sub->add_option("--device", po->device, "Device id to attach the figures to (default: matched by name)");
  sub->add_option("--write-devices", po->write_devices, "devices.json to update (default: the shipped one)");
  sub->add_option("--docs", po->docs_dir, "Where docs/devices/<id>.md goes")->capture_default_str();
  add_common(sub, po->common);
  return {sub, [po] { return cmd_peaks(*po); }};
}

Command list_command(CLI::App& app) {
  auto lo = std::make_shared<ListOptions>();
  auto* sub = app.add_subcommand("list", "List the bundled kernel packages, their versions and parameters");
  add_common(sub, lo->common);
  return {sub, [lo] { return cmd_list(*lo); }};
}

Command bench_command(CLI::App& app) {
  auto bo = std::make_shared<BenchOptions>();
  auto* sub = app.add_subcommand("bench", "Time every version of the kernel packages over a parameter sweep "
                                          "(bench/bench_all, bench/bench_<package>)");
  sub->add_option("--packages", bo->packages, "Packages to run, comma-separated (default: all)")->delimiter(',');
  sub->add_option("--versions", bo->versions, "Only these versions, comma-separated (default: all)")->delimiter(',');
  sub->add_option("--point", bo->points, "A parameter point replacing the sweep's, e.g. m=1024,n=1024,k=512 "
                                         "(repeatable; one package)");
  sub->add_option("--sweep", bo->sweep_file, "Sweep file (default: bench/sweeps.toml)");
  sub->add_option("--runs", bo->runs, "Timed runs per version and point (default: the sweep file's)");
  sub->add_option("--out", bo->out_dir, "Output directory (default: out/bench/<timestamp>)");
  sub->add_option("--kernels", bo->kernels, "kprof-kernels binary (default: $KPROF_KERNELS, else next to kprof or in ../libexec, else PATH)");
  sub->add_option("--cache-dir", bo->cache_dir, "Autotune cache root (default .cache/kernel-autotune)");
  sub->add_option("--device", bo->device, "devices.json id whose peaks give the roof (default: the GPU the runs "
                                          "report)");
  sub->add_flag("--retune", bo->retune, "Measure every tile config again, ignoring the autotune cache");
  sub->add_flag("--dry-run", bo->dry_run, "Print the kprof-kernels commands, run nothing");
  sub->add_flag("--no-wait", bo->no_wait, "Fail (exit 8) instead of waiting when another kprof run holds the GPU");
  sub->add_flag("-v,--verbose", bo->verbose, "Show kprof-kernels' own progress (tuning, timing)");
  add_executor_options(sub, bo->executor, bo->chunk, bo->sbatch_args);
  add_common(sub, bo->common);
  return {sub, [bo] { return cmd_bench(*bo); }};
}

Command sweep_worker_command(CLI::App& app) {
  auto wo = std::make_shared<SweepWorkerOptions>();
  auto* sub = app.add_subcommand("sweep-worker", "Run the tasks of a sweep's spool folder (started by the gpus and "
                                                 "slurm executors; docs/scale.md)");
  sub->add_option("--spool", wo->spool, "The sweep's spool folder (<out>/sweep)")->required();
  sub->add_option("--name", wo->name, "Worker name in results and params.json (default: slurm <job>_<index>)");
  sub->add_option("--executor", wo->executor, "Executor recorded in params.json")->capture_default_str();
  sub->add_option("--array-index", wo->array_index, "Run this Slurm array task's chunk of tasks.json instead of "
                                                    "pulling from the queue");
  sub->add_option("--chunk", wo->chunk, "Tasks per array task")->capture_default_str();
  sub->add_flag("--no-wait", wo->no_wait, "Fail (exit 8) instead of waiting when another kprof run holds the GPU");
  sub->add_flag("-q,--quiet", wo->quiet, "Print only errors");
  return {sub, [wo] { return cmd_sweep_worker(*wo); }};
}

// `kprof <package> [<version>] --m=..`: a first word that is not a subcommand names a kernel package. Its options
// are the table's rows for packages.
int package_command(const std::string& package, int argc, char** argv) {
  CLI::App pkg_app{"kprof <package> [<version>] [--param=value ...] [options]: profile a bundled kernel package "
                   "(kprof list shows them)"};
  std::string version;
  pkg_app.add_option("version", version, "Version (default: the latest)");
  BoundRunOptions options(&pkg_app, /*package=*/true);
  PrintOptions print;
  add_print(&pkg_app, print);
  pkg_app.allow_extras();
  pkg_app.footer("Problem parameters: --name=value (kprof list shows each package's parameters and defaults).\n" + footer());
  return with_exit_codes(pkg_app, [&] {
    pkg_app.parse(argc, argv);
    session::PackageSpec pk;
    pk.package = package;
    pk.version = version;
    options.apply(pk);
    take_params(pkg_app.remaining(), pk.params);
    pk.run.log = stderr_log(print.quiet);
    return cmd_package(pk, print);
  });
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"kprof: profile GPU kernels, name the bottleneck, rank what to try next"};
  app.set_version_flag("--version", std::string("kprof ") + KPROF_VERSION);
  app.require_subcommand(1);
  app.footer(footer());

  // Everything after the first `--` is the profiled command, kept away from option parsing.
  std::vector<std::string> program;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--") {
      for (int j = i + 1; j < argc; ++j) program.emplace_back(argv[j]);
      argc = i;
      break;
    }

  const std::vector<Command> commands{analyze_command(app), compare_command(app),  devlog_command(app),
                                      devices_command(app), run_command(app, program), clock_command(app),
                                      peaks_command(app),   list_command(app),     bench_command(app),
                                      sweep_worker_command(app)};
  // Every command's help ends with the exit codes, as the top-level help does.
  for (const auto& c : commands) {
    const std::string own = c.app->get_footer();
    if (own.find("Exit codes:") == std::string::npos) c.app->footer(own.empty() ? footer() : own + "\n" + footer());
  }
  if (argc >= 2 && argv[1][0] != '-' &&
      std::none_of(commands.begin(), commands.end(), [&](const Command& c) { return c.app->get_name() == argv[1]; }))
    return package_command(argv[1], argc - 1, argv + 1);

  return with_exit_codes(app, [&] {
    app.parse(argc, argv);
    for (const auto& c : commands)
      if (*c.app) return c.action();
    return static_cast<int>(kExitOk);
  });
}

}  // namespace kprof::cli
