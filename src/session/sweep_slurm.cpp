// The slurm executor: one `sbatch --array` job whose array tasks run `kprof sweep-worker --array-index N` over
// <spool>/tasks.json, each with --gres=gpu:1; the spool folder and the artifacts are on a file system the nodes
// share (the out-root). This process polls squeue and the results folder, reads the final states from sacct
// (scontrol where accounting is off) and cancels the job (scancel) when interrupted.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "collect/clock/nvidia_smi.hpp"
#include "session/sweep_backends.hpp"
#include "session/sweep_worker.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/interrupt.hpp"
#include "util/process.hpp"

namespace kprof::session::detail {

namespace fs = std::filesystem;
using plan::SweepTask;
using plan::TaskResult;

namespace {

// Single quotes for sh: the path may hold spaces.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

double poll_seconds() {
  if (const char* s = std::getenv("KPROF_SLURM_POLL_S")) {
    char* end = nullptr;
    double v = std::strtod(s, &end);
    if (end && *end == '\0' && v > 0 && v < 3600) return v;
  }
  return 5;
}

// "1234_7 RUNNING" lines of squeue for the job; nullopt when squeue fails (the job is long gone, or slurmctld did
// not answer: the caller asks again before taking it as finished).
std::optional<std::vector<std::string>> queued(const std::string& job) {
  auto c = run_command({"squeue", "-h", "-r", "-j", job, "-o", "%i %T"});
  if (c.exit_code != 0) return std::nullopt;
  std::vector<std::string> lines;
  std::istringstream in(c.out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

// Final state per array index: sacct where accounting is on, else scontrol (which knows jobs for MinJobAge).
std::map<int, std::string> final_states(const std::string& job) {
  std::map<int, std::string> out;
  auto c = run_command({"sacct", "-n", "-P", "-X", "-j", job, "-o", "JobID,State,ExitCode"});
  if (c.exit_code == 0 && !c.out.empty()) {
    std::istringstream in(c.out);
    for (std::string line; std::getline(in, line);) {
      auto bar = line.find('|'), us = line.find('_');
      if (bar == std::string::npos || us == std::string::npos || us > bar) continue;
      try {
        out[std::stoi(line.substr(us + 1, bar - us - 1))] = line.substr(bar + 1);
      } catch (const std::exception&) {
      }
    }
    if (!out.empty()) return out;
  }
  auto s = run_command({"scontrol", "-o", "show", "job", job});
  std::istringstream in(s.out);
  for (std::string line; std::getline(in, line);) {
    auto field = [&](const std::string& key) {
      auto at = line.find(key + "=");
      if (at == std::string::npos) return std::string();
      auto end = line.find(' ', at);
      return line.substr(at + key.size() + 1, end == std::string::npos ? std::string::npos : end - at - key.size() - 1);
    };
    try {
      out[std::stoi(field("ArrayTaskId"))] = field("JobState") + " exit " + field("ExitCode");
    } catch (const std::exception&) {
    }
  }
  return out;
}

}  // namespace

std::vector<TaskResult> run_slurm(const std::vector<SweepTask>& tasks, const ExecutorOptions& o, const TaskDone& on_done) {
  if (!find_executable("sbatch"))
    throw Error("--executor=slurm: sbatch is not on PATH (run kprof on a Slurm login node)", kExitNoTool);
  const std::string kprof = worker_binary(o);
  prepare_spool(tasks, o);
  const fs::path spool = fs::absolute(o.spool);
  const std::size_t arrays = (tasks.size() + static_cast<std::size_t>(o.chunk) - 1) / static_cast<std::size_t>(o.chunk);
  bool gpu = false;
  for (const auto& t : tasks) gpu = gpu || t.needs_gpu;
  std::string script = "#!/bin/sh\n";
  script += "#SBATCH --job-name=kprof-sweep\n";
  script += fmt::format("#SBATCH --array=0-{}\n", arrays - 1);
  if (gpu) script += "#SBATCH --gres=gpu:1\n";
  script += "#SBATCH --output=" + (spool / "slurm" / "%A_%a.log").string() + "\n";
  script += fmt::format("# {} task(s), {} per array task; written by kprof, read by kprof sweep-worker\n", tasks.size(),
                        o.chunk);
  script += fmt::format("exec {} sweep-worker --spool {} --executor slurm --chunk {} --array-index \"$SLURM_ARRAY_TASK_ID\"\n",
                        quoted(kprof), quoted(spool.string()), o.chunk);
  const fs::path script_file = spool / "slurm" / "sweep.sbatch";
  write_file_atomic(script_file, script);

  std::vector<std::string> argv{"sbatch", "--parsable"};
  argv.insert(argv.end(), o.sbatch_args.begin(), o.sbatch_args.end());
  argv.push_back(script_file.string());
  auto sub = run_command(argv);
  std::string job = sub.out.substr(0, sub.out.find_first_of(";\n"));
  if (sub.exit_code != 0 || job.empty() || job.find_first_not_of("0123456789") != std::string::npos)
    throw Error(fmt::format("sbatch failed ({}): {}", sub.exit_code, sub.err.empty() ? sub.out : sub.err),
                kExitProgramFailed);
  notice(o, fmt::format("submitted Slurm job {}: {} array task(s) for {} task(s) (squeue -j {}; logs {})", job,
                        arrays, tasks.size(), job, (spool / "slurm").string()));
  write_file_atomic(spool / "slurm" / "job_id", job + "\n");

  InterruptScope interrupts;
  std::map<std::string, TaskResult> seen;
  std::set<std::string> ids;  // a result file for anything else in the folder is not this sweep's
  for (const auto& t : tasks) ids.insert(t.id);
  auto collect = [&] {
    auto known = [&](const std::string& id) { return seen.count(id) > 0 || !ids.count(id); };
    for (const auto& r : read_results(spool, known)) {
      if (seen.count(r.id)) continue;
      seen[r.id] = r;
      if (on_done) on_done(r);
    }
  };
  const double poll = poll_seconds();
  bool interrupted = false;
  std::string last_states;
  int failures = 0;
  while (true) {
    collect();
    if (interrupt_signal()) {
      interrupted = true;
      break;
    }
    auto q = queued(job);
    // One failed squeue (slurmctld busy or restarting) is not the job's end: three in a row are.
    failures = q ? 0 : failures + 1;
    if (!q && failures < 3) {
      for (double waited = 0; waited < poll && !interrupt_signal(); waited += 0.1)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    if (!q || q->empty()) break;
    std::map<std::string, int> counts;
    for (const auto& line : *q) ++counts[line.substr(line.find(' ') + 1)];
    std::string states;
    for (const auto& [state, n] : counts) states += fmt::format("{}{} {}", states.empty() ? "" : ", ", n, state);
    if (states != last_states) progress(o, fmt::format("job {}: {} ({} of {} task(s) done)", job, states,
                                                       seen.size(), tasks.size()));
    last_states = states;
    // Short sleeps: Ctrl-C is seen at once.
    for (double waited = 0; waited < poll && !interrupt_signal(); waited += 0.1)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (interrupted) {
    notice(o, "interrupted: cancelling Slurm job " + job + " (scancel)");
    run_command({"scancel", job});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      auto q = queued(job);
      if (!q || q->empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  collect();
  for (const auto& t : tasks)
    if (!seen.count(t.id)) remove_staging(t);

  std::vector<TaskResult> done;
  for (const auto& [id, r] : seen) done.push_back(r);
  auto out = in_task_order(tasks, done, interrupted ? "cancelled" : "lost", "");
  const auto states = seen.size() == tasks.size() ? std::map<int, std::string>{} : final_states(job);
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto& r = out[i];
    if (r.status != "cancelled" && r.status != "lost") continue;
    const int index = static_cast<int>(i / static_cast<std::size_t>(o.chunk));
    auto st = states.find(index);
    r.worker = fmt::format("slurm {}_{}", job, index);
    r.message = fmt::format("{}array task {}_{} ended {}without a result (log {})",
                            interrupted ? "interrupted: " : "", job, index,
                            st == states.end() ? std::string() : st->second + " ",
                            (spool / "slurm" / fmt::format("{}_{}.log", job, index)).string());
  }
  return out;
}

}  // namespace kprof::session::detail
