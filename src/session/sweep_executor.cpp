#include "session/sweep_executor.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <sstream>

#include "collect/clock/gpu_lock.hpp"
#include "collect/clock/nvidia_smi.hpp"
#include "session/sweep_backends.hpp"
#include "session/sweep_worker.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/interrupt.hpp"

namespace kprof::session {

namespace fs = std::filesystem;
using plan::SweepTask;
using plan::TaskResult;

ExecutorKind parse_executor(const std::string& name, const std::string& option) {
  if (name == "local") return ExecutorKind::local;
  if (name == "gpus") return ExecutorKind::gpus;
  if (name == "slurm") return ExecutorKind::slurm;
  throw Error(option + ": '" + name + "' is not an executor (local, gpus or slurm)", kExitUsage);
}

std::string_view executor_name(ExecutorKind k) {
  switch (k) {
    case ExecutorKind::local: return "local";
    case ExecutorKind::gpus: return "gpus";
    case ExecutorKind::slurm: return "slurm";
  }
  return "local";
}

fs::path spool_dir(const fs::path& out) { return out / "sweep"; }

std::vector<std::string> sweep_gpus() {
  auto split = [](const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');) {
      while (!item.empty() && item.front() == ' ') item.erase(item.begin());
      while (!item.empty() && item.back() == ' ') item.pop_back();
      if (!item.empty()) out.push_back(item);
    }
    return out;
  };
  if (const char* s = std::getenv("KPROF_SWEEP_GPUS")) return split(s);
  if (const char* s = std::getenv("CUDA_VISIBLE_DEVICES")) return split(s);
  auto c = run_command({nvidia_smi_program(), "--query-gpu=index", "--format=csv,noheader"});
  if (c.exit_code != 0) return {};
  std::vector<std::string> out;
  std::istringstream in(c.out);
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of("0123456789 ") == std::string::npos)
      if (auto ids = split(line); !ids.empty()) out.push_back(ids.front());
  return out;
}

std::vector<TaskResult> run_sweep(const std::vector<SweepTask>& tasks, const ExecutorOptions& o, const TaskDone& on_done) {
  if (o.chunk < 1) throw Error("--chunk must be at least 1", kExitUsage);
  if (tasks.empty()) return {};
  switch (o.kind) {
    case ExecutorKind::local: return detail::run_local(tasks, o, on_done);
    case ExecutorKind::gpus: return detail::run_gpus(tasks, o, on_done);
    case ExecutorKind::slurm: return detail::run_slurm(tasks, o, on_done);
  }
  return {};
}

namespace detail {

void notice(const ExecutorOptions& o, const std::string& line) {
  if (o.log) o.log(LogLevel::notice, line);
}
void progress(const ExecutorOptions& o, const std::string& line) {
  if (o.log) o.log(LogLevel::progress, line);
}

void remove_staging(const SweepTask& t) {
  const fs::path final_dir = t.out_dir;
  std::string prefix = "." + final_dir.filename().string();
  if (prefix.size() > 65) prefix.resize(65);  // run_task cuts the name at 64 bytes
  prefix += ".partial-";
  std::error_code ec;
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(final_dir.parent_path(), ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind(prefix, 0) == 0) stale.push_back(it->path());
  for (const auto& p : stale) fs::remove_all(p, ec);
}

std::string worker_binary(const ExecutorOptions& o) {
  if (!o.kprof.empty()) return fs::absolute(o.kprof).string();
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find the kprof binary for the workers (/proc/self/exe): " + ec.message());
  return self.string();
}

void prepare_spool(const std::vector<SweepTask>& tasks, const ExecutorOptions& o) {
  if (o.spool.empty()) throw Error("the sweep has no spool folder", kExitUsage);
  for (const char* sub : {"queue", "claimed", "results", "workers"}) {
    std::error_code ec;
    fs::remove_all(o.spool / sub, ec);
  }
  ensure_dir(o.spool / "results");
  plan::SweepFile f;
  f.tasks = tasks;
  write_file_atomic(o.spool / "tasks.json", json(f).dump(1) + "\n");
}

std::vector<TaskResult> in_task_order(const std::vector<SweepTask>& tasks, const std::vector<TaskResult>& results,
                                      const std::string& status, const std::string& message) {
  std::map<std::string, TaskResult> by_id;
  for (const auto& r : results) by_id[r.id] = r;
  std::vector<TaskResult> out;
  for (const auto& t : tasks) {
    if (auto it = by_id.find(t.id); it != by_id.end()) {
      out.push_back(it->second);
      continue;
    }
    TaskResult r;
    r.id = t.id;
    r.status = status;
    r.message = message;
    for (auto at = r.message.find("{id}"); at != std::string::npos; at = r.message.find("{id}", at + t.id.size()))
      r.message.replace(at, 4, t.id);
    out.push_back(r);
  }
  return out;
}

// Today's behaviour: one task after another in this process, under this GPU's lock.
std::vector<TaskResult> run_local(const std::vector<SweepTask>& tasks, const ExecutorOptions& o, const TaskDone& on_done) {
  InterruptScope interrupts;
  std::optional<GpuLock> lock;
  std::vector<TaskResult> done;
  for (const auto& t : tasks) {
    if (interrupt_signal()) break;
    if (t.needs_gpu && !lock)
      lock.emplace(GpuLock::acquire(visible_gpu(), !o.no_wait, [&](const std::string& m) { notice(o, m); }));
    TaskResult r = run_task(t, WorkerIdentity{});
    if (r.status == "cancelled") break;
    done.push_back(r);
    if (on_done) on_done(r);
  }
  return in_task_order(tasks, done, "cancelled", "interrupted before it ran");
}

}  // namespace detail

}  // namespace kprof::session
