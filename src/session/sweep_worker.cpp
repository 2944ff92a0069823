#include "session/sweep_worker.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <thread>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/clock/clock_saved_state.hpp"
#include "collect/clock/gpu_lock.hpp"
#include "collect/clock/nvidia_smi.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/interrupt.hpp"
#include "util/process.hpp"

namespace kprof::session {

namespace fs = std::filesystem;
using plan::SweepTask;
using plan::TaskResult;

namespace {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string env_or(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v ? std::string(v) : fallback;
}

// The GPU this process sees and its clocks, for params.json: nvidia-smi's view of the first visible GPU (its
// physical index, util visible_gpu()); "unavailable" with the reason when nvidia-smi cannot say.
json gpu_record(const SweepTask& t, TaskResult& r) {
  json g{{"cuda_visible_devices", r.gpu}};
  if (!t.needs_gpu) {
    g["note"] = "CPU-only task";
    return g;
  }
  const int index = visible_gpu();
  g["index"] = index;
  try {
    ClockState c = query_clocks(index);
    r.gpu_name = c.name;
    g["name"] = c.name;
    json clock{{"sm_mhz", c.sm_mhz}, {"mem_mhz", c.mem_mhz}, {"app_sm_mhz", c.app_sm_mhz},
               {"default_app_sm_mhz", c.default_app_sm_mhz}, {"max_sm_mhz", c.max_sm_mhz}};
    if (c.event_reasons) clock["event_reasons"] = decode_event_reasons(*c.event_reasons);
    try {
      auto saved = load_clock_state(index);
      clock["locked_by_kprof"] = saved.has_value();
    } catch (const Error&) {
      clock["locked_by_kprof"] = nullptr;
    }
    g["clock"] = clock;
  } catch (const Error& e) {
    g["clock"] = nullptr;
    g["clock_note"] = std::string("unavailable: ") + e.what();
  }
  return g;
}

// A new hidden folder beside `final_dir` for the task to write into.
fs::path make_staging(const fs::path& final_dir) {
  const fs::path parent = final_dir.has_parent_path() ? final_dir.parent_path() : fs::path(".");
  ensure_dir(parent);
  std::string name = final_dir.filename().string();
  if (name.size() > 64) name.resize(64);
  // mkdir with a random suffix (not mkdtemp, whose 0700 would need the umask read back by changing it for the
  // whole process): the folder gets the mode any folder kprof makes gets, 0777 less the umask.
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path p = parent / fmt::format(".{}.partial-{:08x}", name, rd());
    if (::mkdir(p.c_str(), 0777) == 0) return p;
    if (errno != EEXIST) break;
  }
  throw CannotWrite(parent, std::string("cannot make a staging folder: ") + std::strerror(errno));
}

void remove_quietly(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
}

}  // namespace

bool device_failure(const SweepTask& t, const TaskResult& r) {
  if (r.status != "failed") return false;
  if (r.signal != 0) return r.signal != SIGINT && r.signal != SIGTERM;
  return std::find(t.device_failure_codes.begin(), t.device_failure_codes.end(), r.exit_code) !=
         t.device_failure_codes.end();
}

TaskResult run_task(const SweepTask& t, const WorkerIdentity& who) {
  TaskResult r;
  r.id = t.id;
  r.worker = who.name;
  r.attempt = who.attempt;
  r.host = host_name();
  r.gpu = env_or("CUDA_VISIBLE_DEVICES");
  r.started = utc_timestamp();
  const fs::path final_dir = t.out_dir;
  const fs::path staging = make_staging(final_dir);

  ProcessSpec spec;
  spec.argv = plan::task_argv(t, staging.string());
  spec.env_set = t.env;
  spec.die_with_parent = true;
  if (!t.log.empty()) {
    spec.stdout_file = (staging / t.log).string();
    spec.stderr_file = t.stderr_to_log ? "=stdout" : "";
  }
  ProcessResult p;
  try {
    p = run_process(spec);
  } catch (const Error& e) {  // the command cannot be started: the task failed, the sweep goes on
    p.exit_code = 127;
    r.message = e.what();
    if (!t.log.empty()) write_file_atomic(staging / t.log, std::string("kprof: ") + e.what() + "\n");
  }
  r.wall_s = p.wall_seconds;
  r.finished = utc_timestamp();
  // Interrupted: this worker was (Ctrl-C, scancel), or the command was killed by SIGINT/SIGTERM, which Slurm sends
  // every process of a cancelled job, maybe before this one: either way not a result of the task.
  if (p.interrupted || interrupt_signal() || (p.signaled && (p.signal == SIGINT || p.signal == SIGTERM))) {
    remove_quietly(staging);
    r.status = "cancelled";
    r.message = "interrupted";
    return r;
  }
  r.exit_code = p.exit_code;
  r.signal = p.signaled ? p.signal : 0;
  if (p.signaled || p.exit_code != 0) {
    r.status = "failed";
    if (r.message.empty()) r.message = "the command " + p.describe();
  }

  json params = json(t.params);
  params["schema"] = "kprof.sweep.params/1";
  params["task"] = t.id;
  params["package"] = t.package;
  params["version"] = t.version;
  params["mode"] = t.mode;
  params["executor"] = who.executor;
  params["worker"] = who.name;
  params["attempt"] = who.attempt;
  params["host"] = r.host;
  params["gpu"] = gpu_record(t, r);
  params["started"] = r.started;
  params["finished"] = r.finished;
  params["status"] = r.status;
  params["exit_code"] = r.exit_code;
  params["argv"] = plan::task_argv(t, final_dir.string());
  if (!env_or("SLURM_JOB_ID").empty())
    params["slurm"] = {{"job_id", env_or("SLURM_JOB_ID")}, {"array_job_id", env_or("SLURM_ARRAY_JOB_ID")},
                       {"array_task_id", env_or("SLURM_ARRAY_TASK_ID")}, {"node", env_or("SLURMD_NODENAME")}};
  write_file_atomic(staging / "params.json", params.dump(2, ' ', false, json::error_handler_t::replace) + "\n");

  // Into place: an earlier attempt's folder (a worker killed after its rename, before its result) goes first.
  std::error_code ec;
  if (fs::exists(fs::symlink_status(final_dir, ec))) remove_quietly(final_dir);
  if (::rename(staging.c_str(), final_dir.c_str()) != 0) {
    const int err = errno;
    remove_quietly(staging);
    throw CannotWrite(final_dir, std::string("cannot move the task's output into place: ") + std::strerror(err));
  }
  r.out_dir = final_dir.string();
  return r;
}

void write_result(const fs::path& spool, const TaskResult& r) {
  write_file_atomic(spool / "results" / (r.id + ".json"), json(r).dump(1) + "\n");
}

std::vector<TaskResult> read_results(const fs::path& spool, const std::function<bool(const std::string&)>& skip) {
  std::vector<TaskResult> out;
  std::error_code ec;
  for (fs::directory_iterator it(spool / "results", ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || it->path().extension() != ".json") continue;
    if (skip && skip(it->path().stem().string())) continue;
    try {
      if (auto r = plan::parse_task_result(read_file(it->path()))) out.push_back(*r);
    } catch (const Error&) {
    }
  }
  std::sort(out.begin(), out.end(), [](const TaskResult& a, const TaskResult& b) { return a.id < b.id; });
  return out;
}

fs::path queue_file(const fs::path& spool, const std::string& id) { return spool / "queue" / id; }

QueueEntry read_queue_entry(const fs::path& file) {
  try {
    return json::parse(read_file(file)).get<QueueEntry>();
  } catch (const std::exception&) {
    return {};
  }
}

namespace {

// Does the GPU still answer? nvidia-smi naming it; a machine without nvidia-smi (stand-in devices) counts as yes.
bool gpu_answers() {
  if (!find_executable(nvidia_smi_program())) return true;
  auto c = run_command({nvidia_smi_program(), "-i", std::to_string(visible_gpu()), "--query-gpu=name",
                        "--format=csv,noheader"});
  return c.exit_code == 0;
}

bool any_claimed(const fs::path& spool) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(spool / "claimed", ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) return true;
  return false;
}

// The next task this worker may take, moved into claimed/<name>/ (a rename: two workers never take the same one).
std::optional<std::pair<std::string, QueueEntry>> claim(const fs::path& spool, const std::string& name) {
  std::vector<std::string> ids;
  std::error_code ec;
  for (fs::directory_iterator it(spool / "queue", ec), end; !ec && it != end; it.increment(ec)) {
    const auto id = it->path().filename().string();
    if (!id.empty() && id[0] != '.') ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  const fs::path mine = spool / "claimed" / name;
  for (const auto& id : ids) {
    if (fs::exists(spool / "results" / (id + ".json"), ec)) {  // done by a worker that died before its cleanup
      fs::remove(queue_file(spool, id), ec);
      continue;
    }
    QueueEntry q = read_queue_entry(queue_file(spool, id));
    if (std::find(q.failed_on.begin(), q.failed_on.end(), name) != q.failed_on.end()) continue;
    if (::rename(queue_file(spool, id).c_str(), (mine / id).c_str()) == 0) return std::make_pair(id, q);
  }
  return std::nullopt;
}

const SweepTask* find_task(const plan::SweepFile& f, const std::string& id) {
  for (const auto& t : f.tasks)
    if (t.id == id) return &t;
  return nullptr;
}

void say(const WorkerOptions& o, const std::string& line) {
  if (o.log) o.log(LogLevel::progress, line);
}

}  // namespace

int run_worker(const WorkerOptions& o) {
  const fs::path tasks_file = o.spool / "tasks.json";
  const plan::SweepFile sweep = plan::parse_sweep_file(read_file(tasks_file), tasks_file.string());
  InterruptScope interrupts;
  WorkerIdentity who;
  who.executor = o.executor;
  who.name = o.name;
  if (who.name.empty())
    who.name = o.array_index ? "slurm " + env_or("SLURM_ARRAY_JOB_ID", env_or("SLURM_JOB_ID", "?")) + "_" +
                                   std::to_string(*o.array_index)
                             : host_name();
  const std::string safe_worker = [&] {
    std::string s = who.name;
    for (char& c : s)
      if (c == '/' || c == ' ') c = '_';
    return s;
  }();
  write_file_atomic(o.spool / "workers" / (safe_worker + ".json"),
                    json{{"name", who.name}, {"pid", ::getpid()}, {"host", host_name()},
                         {"cuda_visible_devices", env_or("CUDA_VISIBLE_DEVICES")}, {"started", utc_timestamp()}}
                        .dump() + "\n");

  // The GPU's lock, for as long as this worker runs GPU tasks: one kprof run per GPU, as everywhere else.
  std::optional<GpuLock> lock;
  auto take_lock = [&](const SweepTask& t) {
    if (!t.needs_gpu || lock) return;
    lock.emplace(GpuLock::acquire(visible_gpu(), !o.no_wait, [&](const std::string& m) { say(o, who.name + ": " + m); }));
  };

  if (o.array_index) {  // Slurm: this array task's chunk, in order; a task with a result already is skipped
    const int chunk = std::max(1, o.chunk);
    const std::size_t first = static_cast<std::size_t>(*o.array_index) * static_cast<std::size_t>(chunk);
    if (*o.array_index < 0 || first >= sweep.tasks.size())
      throw Error(fmt::format("--array-index {}: the sweep has {} task(s) in chunks of {}", *o.array_index,
                              sweep.tasks.size(), chunk), kExitUsage);
    for (std::size_t i = first; i < std::min(sweep.tasks.size(), first + chunk); ++i) {
      const SweepTask& t = sweep.tasks[i];
      std::error_code ec;
      if (fs::exists(o.spool / "results" / (t.id + ".json"), ec)) continue;
      take_lock(t);
      say(o, fmt::format("{}: task {} ({} {})", who.name, t.id, t.package, t.version));
      TaskResult r = run_task(t, who);
      if (r.status == "cancelled") return interrupt_exit_code() ? interrupt_exit_code() : kExitTerminated;
      write_result(o.spool, r);
    }
    return kExitOk;
  }

  // gpus: pull from the queue until it is empty and no other worker holds a task (one that dies gives its tasks
  // back to the queue, and this worker may take them).
  ensure_dir(o.spool / "claimed" / safe_worker);
  while (!interrupt_signal()) {
    auto got = claim(o.spool, safe_worker);
    if (!got) {
      // The coordinator may empty the spool meanwhile (or NFS may hiccup): a queue that cannot be read is gone.
      std::error_code ec;
      if (!fs::exists(o.spool / "queue", ec) || ec) break;
      // Claimed first, then the queue: a task another worker gives back moves from claimed/ to queue/ in one
      // rename, so looking in that order never misses it (the other order could see an empty queue before the
      // rename and no claimed task after it, and stop while the task waits for this worker's GPU).
      const bool held_elsewhere = any_claimed(o.spool);
      const bool empty = fs::is_empty(o.spool / "queue", ec);
      if (ec || (empty && !held_elsewhere)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    const auto& [id, entry] = *got;
    const fs::path held = o.spool / "claimed" / safe_worker / id;
    const SweepTask* t = find_task(sweep, id);
    if (!t) {  // not a task of this sweep: dropped
      remove_quietly(held);
      continue;
    }
    take_lock(*t);
    who.attempt = entry.attempt;
    say(o, fmt::format("{}: task {} ({} {}), attempt {}", who.name, t->id, t->package, t->version, entry.attempt));
    TaskResult r = run_task(*t, who);
    if (r.status == "cancelled") {  // back to the queue as it was; this worker stops only when it was interrupted
      ::rename(held.c_str(), queue_file(o.spool, id).c_str());
      if (interrupt_signal()) break;
      continue;
    }
    if (device_failure(*t, r) && entry.attempt < 2) {
      // Maybe the GPU, maybe the task: once more on another GPU; this worker stops if its GPU no longer answers.
      QueueEntry again = entry;
      again.attempt += 1;
      again.failed_on.push_back(safe_worker);
      again.last = r;
      write_file_atomic(held, json(again).dump() + "\n");
      const bool answers = gpu_answers();
      ::rename(held.c_str(), queue_file(o.spool, id).c_str());
      if (!answers) {
        say(o, fmt::format("{}: GPU {} no longer answers after task {} ({}); stopping this worker", who.name,
                           r.gpu, id, r.message));
        return kWorkerGpuFailed;
      }
      continue;
    }
    write_result(o.spool, r);
    remove_quietly(held);
  }
  return interrupt_signal() ? interrupt_exit_code() : kExitOk;
}

}  // namespace kprof::session
