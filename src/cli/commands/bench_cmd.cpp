// kprof bench (bench/bench_all, bench/bench_<package>): every version of every package over a parameter sweep.
//   1. `kprof-kernels list` / `describe` (no GPU): packages, versions and every point's plan (declared work), so a
//      bad sweep or option fails before any GPU time is spent.
//   2. per package → point → version (oldest first) one sweep task (plan/sweep_task.hpp): `kprof-kernels run <pkg>
//      <ver> --params --runs N --out DIR` (reference check, autotuning with the cache, then N timed runs of the
//      plan), run by the chosen executor (--executor local|gpus|slurm, session/sweep_executor.hpp) into DIR with a
//      params.json saying where it ran; exit 3 = wrong result, not timed; any other failure is recorded and the
//      sweep goes on.
//   3. after every run, in whatever order the executor finishes them, the table (analyze/bench_table: TFLOP/s,
//      GB/s, % of roof, speedup and the rank-test verdict against the previous version; rows in sweep order) is
//      rewritten to bench.md and bench.json, so an interrupted sweep keeps what it measured.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "analyze/bench_figures.hpp"
#include "analyze/data_files.hpp"
#include "cli/commands/commands.hpp"
#include "collect/gpu_presence.hpp"
#include "plan/bench_sweep.hpp"
#include "plan/plan_json.hpp"
#include "plan/sweep_task.hpp"
#include "render/bench_markdown.hpp"
#include "render/number_format.hpp"
#include "session/analysis_context.hpp"
#include "session/kernels_binary.hpp"
#include "session/sweep_executor.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"

namespace kprof::cli {

namespace fs = std::filesystem;

namespace {

struct Job {
  const plan::PackageInfo* pkg = nullptr;
  std::string version;
  std::string point;  // label
  ProblemParams params;
  plan::KernelPlan plan;
  int runs = 0;
  fs::path dir;
  std::vector<std::string> argv;
};

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// bench/sweeps.toml beside the data directory kprof uses (the repository's, in a build tree or a carried copy).
std::optional<fs::path> find_sweep_file() {
  for (const auto& d : analyze::data_search_dirs())
    if (auto p = d.parent_path() / "bench" / "sweeps.toml"; fs::exists(p)) return p;
  return std::nullopt;
}

std::vector<BenchStage> stages_of(const plan::KernelPlan& p) {
  std::vector<BenchStage> out;
  for (const auto& st : p.stages) out.push_back({st.name, DeclaredWork{st.flops, st.min_bytes, st.precision}, st.stream});
  return out;
}

// The line of kprof-kernels' log that says what went wrong: its WRONG RESULT line, else its last own message.
std::string log_reason(const fs::path& log, const std::string& fallback) {
  if (!fs::exists(log)) return fallback;
  std::istringstream in(read_file(log));
  std::string last;
  for (std::string line; std::getline(in, line);) {
    if (auto w = line.find("WRONG RESULT: "); w != std::string::npos) return line.substr(w + 14);
    if (line.rfind("kprof-kernels: ", 0) == 0) last = line.substr(15);
  }
  return last.empty() ? fallback : last + " (" + fallback + ")";
}

struct Timings {
  std::vector<double> samples_ms;
  std::optional<DeviceInfo> device;
};

Timings read_timings(const fs::path& file) {
  Timings t;
  json j;
  try {
    j = json::parse(read_file(file));
  } catch (const json::exception& e) {
    throw ParseError(file.string(), 0, e.what());
  }
  const auto schema = j.is_object() ? j.find("schema") : j.end();  // not value(): it throws for a non-string
  if (schema == j.end() || !schema->is_string() || schema->get_ref<const std::string&>() != "kprof.kernels.timings/1")
    throw ParseError(file.string(), 0, "not a kprof.kernels.timings/1 document");
  try {
    t.samples_ms = j.at("plan").at("samples_ms").get<std::vector<double>>();
    if (j.contains("device") && j["device"].is_object()) {
      DeviceInfo d;
      d.name = j["device"].value("name", "");
      d.compute_capability = j["device"].value("compute_capability", "");
      d.sm_count = j["device"].value("sm_count", 0);
      t.device = d;
    }
  } catch (const json::exception& e) {
    throw ParseError(file.string(), 0, std::string("plan.samples_ms: ") + e.what());
  }
  return t;
}

// The sweep task of one job: kprof-kernels run into the task's output folder (sweep_task.hpp's {out}).
plan::SweepTask task_of(const Job& job, std::size_t index, bool verbose) {
  plan::SweepTask t;
  t.id = plan::task_id(index);
  t.package = job.pkg->name;
  t.version = job.version;
  t.params = job.params;
  t.mode = plan::TaskMode::bench;
  t.runs = job.runs;
  t.argv = job.argv;
  t.out_dir = fs::absolute(job.dir).string();
  t.log = "kprof-kernels.log";
  t.device_failure_codes = {1};  // kprof-kernels: a CUDA error
  t.stderr_to_log = !verbose;
  return t;
}

// The table's row input for a finished task: its timings.json, or why there is none.
BenchRun run_of(const Job& job, const plan::TaskResult& res) {
  BenchRun r;
  r.package = job.pkg->name;
  r.version = job.version;
  r.point = job.point;
  r.params = job.params;
  r.plan_kind = plan::plan_kind_name(job.plan.kind);
  r.stages = stages_of(job.plan);
  r.artifacts = job.dir.string();
  r.host = res.host;
  const fs::path log = job.dir / "kprof-kernels.log";
  if (res.status == "cancelled" || res.status == "lost") {
    r.status = "failed";
    r.message = res.status == "cancelled" ? "interrupted" : res.message;
  } else if (res.signal == 0 && res.exit_code == session::kKernelsWrongResultExit) {
    r.status = "wrong";
    r.message = log_reason(log, "failed its reference check");
  } else if (res.status != "ok") {
    r.status = "failed";
    r.message = log_reason(log, "kprof-kernels " + res.message.substr(res.message.rfind("the command ", 0) == 0 ? 12 : 0));
  } else {
    try {
      auto t = read_timings(job.dir / "timings.json");
      r.samples_ms = t.samples_ms;
      if (t.device) r.device = t.device->name + (t.device->compute_capability.empty() ? "" : " sm" + t.device->compute_capability);
    } catch (const Error& e) {
      r.status = "failed";
      r.message = e.what();
    }
  }
  return r;
}

}  // namespace

int cmd_bench(const BenchOptions& o) {
  if (o.runs < 0) throw Error("--runs must be at least 1", kExitUsage);
  auto ctx = session::AnalysisContext::load(o.common.data);
  const DeviceSpec* forced = nullptr;
  if (!o.device.empty()) {
    forced = ctx.devices.find(o.device);
    if (!forced) {
      std::string ids;
      for (const auto& d : ctx.devices.devices()) ids += (ids.empty() ? "" : ", ") + d.id;
      throw Error("--device " + o.device + ": no such entry in the devices file (ids: " + ids + ")", kExitUsage);
    }
  }
  const std::string bin = session::find_kernels_binary(o.kernels);
  const auto pkgs = session::list_packages(bin);

  plan::Sweep sweep;
  std::vector<std::string> notes;
  if (!o.sweep_file.empty()) {
    sweep = plan::load_sweep(o.sweep_file);
  } else if (auto found = find_sweep_file()) {
    sweep = plan::load_sweep(*found);
  } else if (o.points.empty()) {
    notes.push_back("no bench/sweeps.toml found: every package at its default parameters");
  }

  std::vector<const plan::PackageInfo*> selected;
  if (o.packages.empty()) {
    for (const auto& p : pkgs) selected.push_back(&p);
  } else {
    for (const auto& name : o.packages) selected.push_back(&session::require_package(pkgs, name));
  }
  if (!o.points.empty() && selected.size() != 1)
    throw Error("--point gives one package's parameters: choose that package (--packages NAME or bench/bench_NAME)",
                kExitUsage);
  for (const auto& v : o.versions) {
    bool found = false;
    for (const auto* p : selected) found = found || plan::find_version(*p, v) != nullptr;
    if (!found) throw Error("--versions: no selected package has a version '" + v + "'", kExitUsage);
  }
  for (const auto& [name, ps] : sweep.packages)
    if (!plan::find_package(pkgs, name))
      notes.push_back(fmt::format("{} names package '{}', which kprof-kernels does not have", sweep.origin, name));

  const fs::path out = o.out_dir.empty() ? fs::path("out/bench") / utc_timestamp_dir() : fs::path(o.out_dir);
  // Everything is resolved and described before the first GPU run: a typo costs no GPU time.
  std::vector<Job> jobs;
  for (const auto* pkg : selected) {
    std::vector<ProblemParams> points;
    int runs = o.runs > 0 ? o.runs : sweep.runs;
    if (!o.points.empty()) {
      for (const auto& text : o.points) {
        try {
          points.push_back(plan::parse_point(text));
        } catch (const plan::PlanError& e) {
          throw Error(std::string("--point: ") + e.what(), kExitUsage);
        }
      }
    } else if (auto it = sweep.packages.find(pkg->name); it != sweep.packages.end()) {
      points = it->second.points;
      if (o.runs == 0 && it->second.runs) runs = *it->second.runs;
    }
    if (points.empty()) {
      points.push_back({});
      if (o.points.empty() && !sweep.origin.empty())
        notes.push_back(fmt::format("{} has no points for {}: its default parameters", sweep.origin, pkg->name));
    }
    for (const auto& point : points) {
      ProblemParams resolved;
      const std::string label = plan::point_label(point, *pkg);
      try {
        resolved = plan::resolve_params(*pkg, point);
      } catch (const plan::PlanError& e) {
        throw Error(fmt::format("{} at {}: {}", pkg->name, label, e.what()), kExitUsage);
      }
      for (const auto& v : pkg->versions) {
        if (!o.versions.empty() && std::find(o.versions.begin(), o.versions.end(), v.name) == o.versions.end())
          continue;
        Job job;
        job.pkg = pkg;
        job.version = v.name;
        job.point = label;
        job.params = resolved;
        job.plan = session::describe_plan(bin, pkg->name, v.name, resolved);
        job.runs = runs;
        job.dir = out / "runs" / pkg->name / resolved.dir_name() / v.name;
        job.argv = {bin, "run", pkg->name, v.name};
        for (auto& a : session::param_args(resolved)) job.argv.push_back(a);
        job.argv.insert(job.argv.end(), {"--runs", std::to_string(runs), "--out", plan::kTaskOutToken});
        if (!o.cache_dir.empty()) job.argv.insert(job.argv.end(), {"--cache-dir", o.cache_dir});
        if (o.retune) job.argv.push_back("--retune");
        jobs.push_back(std::move(job));
      }
    }
  }

  if (!o.common.print.quiet || o.dry_run) {
    std::set<std::string> points;
    for (const auto& j : jobs) points.insert(j.pkg->name + "/" + j.point);
    std::cerr << fmt::format("kprof bench: {} package(s), {} point(s), {} version run(s) of {} → {}\n",
                             selected.size(), points.size(), jobs.size(), bin, out.string());
  }
  if (o.dry_run) {
    for (const auto& j : jobs) {
      plan::SweepTask t;
      t.argv = j.argv;
      std::cout << join(plan::task_argv(t, j.dir.string()), " ") << "\n";
    }
    return kExitOk;
  }

  const auto kind = session::parse_executor(o.executor);
  // The local executor runs here: this machine needs the GPU. The others run where their workers are.
  if (kind != session::ExecutorKind::slurm) require_gpu("kprof bench");
  std::vector<plan::SweepTask> tasks;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    tasks.push_back(task_of(jobs[i], i, o.verbose));
    jobs[i].argv = tasks.back().argv;
  }
  std::vector<std::optional<BenchRun>> finished(jobs.size());
  std::vector<BenchRun> done;
  std::optional<DeviceInfo> device;
  BenchTable table;
  auto rebuild = [&] {
    const DeviceSpec* spec = forced;
    std::string why;
    if (!spec && device) spec = ctx.devices.match(*device, &why);
    // Rows in sweep order, whichever order the executor finished them in: the same table as a local run.
    done.clear();
    for (const auto& f : finished)
      if (f) done.push_back(*f);
    table = analyze::build_bench_table(done, spec, ctx.thresholds);
    table.timestamp = utc_timestamp();
    for (const auto& n : notes) table.notes.push_back(n);
    if (!spec && device) table.notes.push_back("GPU \"" + device->name + "\": " + why + " (--device ID picks one)");
    write_file_atomic(out / "bench.md", render::render_bench_markdown(table));
    write_file_atomic(out / "bench.json", render::render_bench_json(table));
  };
  std::size_t count = 0;
  auto on_done = [&](const plan::TaskResult& res) {
    const std::size_t i = static_cast<std::size_t>(std::stoul(res.id));
    const Job& j = jobs.at(i);
    BenchRun run = run_of(j, res);
    if (!device && run.status == "ok") {
      try {
        device = read_timings(j.dir / "timings.json").device;
      } catch (const Error&) {
      }
    }
    finished[i] = run;
    rebuild();
    ++count;
    if (o.common.print.quiet) return;
    const std::string where = kind == session::ExecutorKind::local ? "" : fmt::format(" [{} on {}]", res.worker, res.host);
    const BenchRow* row = nullptr;
    for (const auto& r : table.rows)
      if (r.artifacts == j.dir.string()) row = &r;
    if (!row) return;
    if (row->status != "ok") {
      std::cerr << fmt::format("[bench {}/{}] {} {} {}: {}: {} (log: {}){}\n", count, jobs.size(), j.pkg->name,
                               j.version, j.point, row->status == "wrong" ? "WRONG RESULT" : "FAILED", row->message,
                               (j.dir / "kprof-kernels.log").string(), where);
      return;
    }
    std::string vs = row->vs.empty() || !row->speedup ? ""
                                    : fmt::format(", {:.2f}x vs {} ({}{})", row->speedup.value_or(0), row->vs,
                                                  row->verdict, row->p_value ? fmt::format(", p={:.2g}", *row->p_value) : "");
    std::cerr << fmt::format("[bench {}/{}] {} {} {}: {} ms median, {} TFLOP/s, {} GB/s, {}% of roof{}{}\n", count,
                             jobs.size(), j.pkg->name, j.version, j.point, render::fmt_ms(row->time_ms->median),
                             render::fmt_number(row->tflops), render::fmt_number(row->gbps),
                             render::fmt_pct(row->pct_of_roof), vs, where);
  };
  session::ExecutorOptions eo;
  eo.kind = kind;
  eo.spool = session::spool_dir(fs::absolute(out));
  eo.no_wait = o.no_wait;
  eo.chunk = o.chunk;
  eo.sbatch_args = o.sbatch_args;
  eo.log = stderr_log(o.common.print.quiet);
  const auto results = session::run_sweep(tasks, eo, on_done);
  bool interrupted = false;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].status == "cancelled") interrupted = true;
    if (!finished[i]) finished[i] = run_of(jobs[i], results[i]);  // cancelled or lost: a failed row saying so
  }
  rebuild();


  if (o.common.print.json) std::cout << render::render_bench_json(table);
  else std::cout << render::render_bench_markdown(table);
  if (!o.common.print.quiet) std::cerr << "kprof bench: wrote " << (out / "bench.md").string() << " and bench.json\n";
  if (interrupted) return kExitInterrupted;
  for (const auto& r : table.rows)
    if (r.status != "ok") return kExitProgramFailed;
  return kExitOk;
}

}  // namespace kprof::cli
