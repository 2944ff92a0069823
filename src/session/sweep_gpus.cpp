// The gpus executor: one `kprof sweep-worker` per visible GPU, pulling tasks from <spool>/queue (sweep_worker.hpp).
// This process only starts the workers, watches them and the results folder, and puts the tasks of a worker that
// died back into the queue.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <map>
#include <memory>
#include <set>
#include <thread>

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

struct Worker {
  std::string name, gpu;
  std::unique_ptr<ChildProcess> process;
  bool alive = true;
};

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto name = it->path().filename().string();
    if (!name.empty() && name[0] != '.') out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<TaskResult> run_gpus(const std::vector<SweepTask>& tasks, const ExecutorOptions& o, const TaskDone& on_done) {
  const auto gpus = sweep_gpus();
  if (gpus.empty())
    throw Error("--executor=gpus: no GPU is visible (CUDA_VISIBLE_DEVICES, nvidia-smi; $KPROF_SWEEP_GPUS lists them "
                "by hand)", kExitNoGpu);
  const std::string kprof = worker_binary(o);
  prepare_spool(tasks, o);
  for (const auto& t : tasks) write_file_atomic(queue_file(o.spool, t.id), json(QueueEntry{}).dump() + "\n");
  ensure_dir(o.spool / "claimed");

  InterruptScope interrupts;
  std::vector<Worker> workers;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    Worker w;
    w.name = "gpu" + std::to_string(i);
    w.gpu = gpus[i];
    ProcessSpec spec;
    spec.argv = {kprof, "sweep-worker", "--spool", o.spool.string(), "--name", w.name, "--executor", "gpus"};
    if (o.no_wait) spec.argv.push_back("--no-wait");
    spec.env_set["CUDA_VISIBLE_DEVICES"] = w.gpu;
    spec.stdout_file = (o.spool / "logs" / (w.name + ".log")).string();
    spec.stderr_file = "=stdout";
    w.process = std::make_unique<ChildProcess>(spec);
    workers.push_back(std::move(w));
  }
  notice(o, fmt::format("{} task(s) on {} GPU worker(s) (CUDA_VISIBLE_DEVICES {}); logs in {}", tasks.size(),
                        workers.size(), fmt::format("{}", fmt::join(gpus, ", ")), (o.spool / "logs").string()));

  std::map<std::string, TaskResult> seen;
  std::set<std::string> ids;  // a result file for anything else in the folder is not this sweep's
  for (const auto& t : tasks) ids.insert(t.id);
  auto collect = [&] {
    auto known = [&](const std::string& id) { return seen.count(id) > 0 || !ids.count(id); };
    for (const auto& r : read_results(o.spool, known)) {
      if (seen.count(r.id)) continue;
      seen[r.id] = r;
      if (on_done) on_done(r);
    }
  };
  auto finish_task = [&](const std::string& id, TaskResult r) {  // a result this process decides
    r.id = id;
    write_result(o.spool, r);
    std::error_code ec;
    fs::remove(queue_file(o.spool, id), ec);
  };

  bool interrupted = false;
  unsigned rounds = 0;
  while (true) {
    collect();
    if (seen.size() == tasks.size()) break;
    if (interrupt_signal()) {
      interrupted = true;
      break;
    }
    // Workers that ended: a failure is reported and its claimed tasks go back to the queue.
    bool ended_now = false;
    for (auto& w : workers) {
      if (!w.alive) continue;
      auto ended = w.process->try_wait();
      if (!ended) continue;
      w.alive = false;
      ended_now = true;
      const fs::path held = o.spool / "claimed" / w.name;
      std::vector<std::string> back;
      for (const auto& id : files_in(held)) {
        std::error_code ec;
        if (fs::exists(o.spool / "results" / (id + ".json"), ec)) {
          fs::remove(held / id, ec);
          continue;
        }
        QueueEntry q = read_queue_entry(held / id);
        q.failed_on.push_back(w.name);
        for (const auto& t : tasks)
          if (t.id == id) remove_staging(t);  // its command died with the worker (die_with_parent)
        write_file_atomic(held / id, json(q).dump() + "\n");
        fs::rename(held / id, queue_file(o.spool, id), ec);
        back.push_back(id);
      }
      if (ended->signaled || ended->exit_code != 0)
        notice(o, fmt::format("worker {} (GPU {}) failed ({}){}; see {}", w.name, w.gpu, ended->describe(),
                              back.empty() ? std::string()
                                           : fmt::format("; task(s) {} go back to the queue for the other GPUs",
                                                         fmt::join(back, ", ")),
                              (o.spool / "logs" / (w.name + ".log")).string()));
    }
    std::set<std::string> alive;
    for (const auto& w : workers)
      if (w.alive) alive.insert(w.name);
    // Queued tasks no live worker may take (every one left failed it, or none is left): their last result stands.
    // Looked at once a second (every queue file is read), and at once when a worker has ended.
    const bool look = ++rounds % 10 == 0 || ended_now;
    for (const auto& id : look ? files_in(o.spool / "queue") : std::vector<std::string>{}) {
      if (seen.count(id)) continue;
      QueueEntry q = read_queue_entry(queue_file(o.spool, id));
      const bool someone = std::any_of(alive.begin(), alive.end(), [&](const std::string& n) {
        return std::find(q.failed_on.begin(), q.failed_on.end(), n) == q.failed_on.end();
      });
      if (someone) continue;
      TaskResult r;
      if (q.last) r = *q.last;
      else {
        r.status = "lost";
        r.message = "no GPU worker was left to run it (see " + (o.spool / "logs").string() + ")";
      }
      finish_task(id, r);
    }
    if (alive.empty()) {
      collect();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  if (interrupted) {
    for (auto& w : workers) w.process->signal_group(interrupt_signal());
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    for (auto& w : workers)
      while (!w.process->try_wait() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    collect();
  }
  // Workers still running (every task done while one was between tasks): they find the queue empty and stop.
  for (auto& w : workers) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!w.process->try_wait() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::vector<TaskResult> done;
  for (const auto& [id, r] : seen) done.push_back(r);
  return in_task_order(tasks, done, interrupted ? "cancelled" : "lost",
                       interrupted ? "interrupted before it finished" : "no GPU worker was left to run it");
}

}  // namespace kprof::session::detail
