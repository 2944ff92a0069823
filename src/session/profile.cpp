#include "session/profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <regex>

#include "collect/clock/clock_commands.hpp"
#include "collect/clock/gpu_lock.hpp"
#include "collect/gpu_presence.hpp"
#include "session/artifact.hpp"
#include "session/assemble.hpp"
#include "session/collector.hpp"
#include "session/mode_table.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/interrupt.hpp"
#include "util/process.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

namespace {

void validate(const RunSpec& spec, const ModePlan& plan) {
  if (spec.command.empty()) throw Error("nothing to profile: give the command after `--`", kExitUsage);
  if (plan.has(CollectorKind::CuptiCounters) && !spec.filters.kernel_regex.empty()) {
    try {
      std::regex check(spec.filters.kernel_regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw Error("--kernel-regex '" + spec.filters.kernel_regex + "' is not an ECMAScript regular expression (" +
                      e.what() + "); --counters cupti matches it against each kernel's base name",
                  kExitUsage);
    }
  }
  if (!spec.dry_run && !find_executable(spec.command[0]))
    throw Error("cannot run '" + spec.command[0] + "': not found on PATH or not executable", kExitUsage);
}

std::vector<std::string> dry_run_lines(const CollectorContext& ctx,
                                       const std::vector<std::unique_ptr<Collector>>& collectors) {
  std::vector<std::string> lines{"mode: " + std::string(mode_name(ctx.plan.mode)) + " — " +
                                 std::string(mode_entry(ctx.plan.mode).purpose)};
  for (const auto& c : collectors)
    for (auto& l : c->describe(ctx)) lines.push_back(std::move(l));
  std::string outputs;
  for (const auto& n : ctx.plan.outputs.names()) outputs += (outputs.empty() ? "" : ", ") + n;
  lines.push_back("outputs: " + outputs);
  lines.push_back("artifacts: " + ctx.dir.string());
  return lines;
}

}  // namespace

std::string ProfileResult::outcome() const {
  if (exit_code == kExitInterrupted || exit_code == kExitTerminated)
    return std::string("kprof: ") + (exit_code == kExitTerminated ? "terminated" : "interrupted") +
           "; what was measured is in " + dir.string() + " (a partial artifact)";
  if (exit_code == kExitProgramFailed)
    return "kprof: the profiled program " + program_status + "; partial results are in " + dir.string();
  return "";
}

fs::path artifact_dir_for(const RunSpec& spec, const std::string& timestamp) {
  ProfileRun shape;
  shape.mode = spec.mode;
  shape.kernel = kernel_name(spec);
  shape.params = spec.params;
  shape.timestamp = timestamp;
  return artifact_dir(shape, spec.output.out_root, spec.output.out_dir);
}

ProfileResult profile(const RunSpec& spec, std::shared_ptr<ArtifactStage> stage) {
  ProfileResult r;
  r.plan = plan_run(spec);
  validate(spec, r.plan);
  Collected collected;
  collected.timestamp = utc_timestamp();
  r.dir = artifact_dir_for(spec, collected.timestamp);
  collected.dir = r.dir;
  CollectorContext ctx{spec, r.plan, r.dir};
  auto collectors = make_collectors(r.plan);
  if (spec.dry_run) {
    r.dry_run = true;
    r.dry_run_lines = dry_run_lines(ctx, collectors);
    return r;
  }

  if (spec.lock_clocks && !clock_change_allowed(spec.yes))
    throw Error("--lock-clocks changes the GPU's clocks: add --yes (or set KPROF_ALLOW_CLOCK_CHANGE=1) to confirm; "
                "`kprof clock lock` shows the commands it would run",
                kExitUsage);
  require_gpu("kprof run");
  r.context = AnalysisContext::load(spec.data);  // a bad devices or thresholds file fails before the program runs
  r.interrupts = std::make_shared<InterruptScope>();
  r.stage = stage ? std::move(stage)
                  : std::make_shared<ArtifactStage>(r.dir, !spec.output.out_dir.empty(), spec.output.replace);
  collected.dir = ctx.dir = r.stage->dir();  // the collectors write into the staging directory
  ctx.gpu = visible_gpu();
  auto lock = GpuLock::acquire(ctx.gpu, !spec.no_wait, [&](const std::string& m) { ctx.log(LogLevel::notice, m); });
  // Where the time goes (issue 27): each collector's begin, pass and end, then the assembly, said once at the end.
  using Clock = std::chrono::steady_clock;
  std::vector<std::pair<std::string, double>> spent;
  auto timed = [&](const std::string& what, auto&& fn) {
    const auto t0 = Clock::now();
    fn();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    for (auto& [name, total] : spent)
      if (name == what) return void(total += s);
    spent.emplace_back(what, s);
  };
  for (auto& c : collectors) timed(std::string(collector_name(c->kind())), [&] { c->begin(ctx, collected); });
  for (auto& c : collectors)
    if (!collected.interrupted()) timed(std::string(collector_name(c->kind())), [&] { c->run(ctx, collected); });
  for (auto it = collectors.rbegin(); it != collectors.rend(); ++it)
    timed(std::string(collector_name((*it)->kind())), [&] { (*it)->end(ctx, collected); });

  Assembled a;
  timed("assembly and analysis", [&] { a = assemble(spec, r.plan, collected); });
  std::vector<std::string> parts;
  for (const auto& [name, s] : spent) parts.push_back(fmt::format("{} {:.2f} s", name, s));
  ctx.log(LogLevel::progress, fmt::format("time: {}", fmt::join(parts, ", ")));
  for (const auto& note : a.cost_notes) ctx.log(LogLevel::progress, note);
  r.run = std::move(a.run);
  r.trace = std::move(a.trace);
  r.source = std::move(a.source);
  const ProcessResult* program = collected.program();
  if (collected.interrupted() || interrupt_signal()) {
    r.exit_code = interrupt_exit_code() ? interrupt_exit_code() : static_cast<int>(kExitInterrupted);
  } else if (program && (program->signaled || program->exit_code != 0)) {
    r.exit_code = kExitProgramFailed;
    r.program_status = program->describe();
  }
  return r;
}

}  // namespace kprof::session
