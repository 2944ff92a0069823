// The executors' bodies (sweep_executor.cpp dispatches; one file each), for run_sweep only.
#pragma once
#include <vector>

#include "session/sweep_executor.hpp"

namespace kprof::session::detail {

std::vector<plan::TaskResult> run_local(const std::vector<plan::SweepTask>& tasks, const ExecutorOptions& o,
                                        const TaskDone& on_done);
std::vector<plan::TaskResult> run_gpus(const std::vector<plan::SweepTask>& tasks, const ExecutorOptions& o,
                                       const TaskDone& on_done);
std::vector<plan::TaskResult> run_slurm(const std::vector<plan::SweepTask>& tasks, const ExecutorOptions& o,
                                        const TaskDone& on_done);

// The kprof binary workers run: o.kprof, else this process's own executable.
std::string worker_binary(const ExecutorOptions& o);
// Empties the spool folder and writes tasks.json (a sweep into a reused --out never reads an older sweep's results).
void prepare_spool(const std::vector<plan::SweepTask>& tasks, const ExecutorOptions& o);
// `results` (by id) in task order; a task without one gets `status` and `message` ("{id}" replaced).
std::vector<plan::TaskResult> in_task_order(const std::vector<plan::SweepTask>& tasks,
                                            const std::vector<plan::TaskResult>& results, const std::string& status,
                                            const std::string& message);
// What a killed worker left of a task: the hidden staging folders beside its artifact (never an artifact).
void remove_staging(const plan::SweepTask& t);
void notice(const ExecutorOptions& o, const std::string& line);
void progress(const ExecutorOptions& o, const std::string& line);

}  // namespace kprof::session::detail
