// Sweeps beyond one GPU (issue 28), end to end through `kprof bench --executor=...` against the fake kprof-kernels
// (support/fake_kernels.hpp), so they run on CPU:
//   - the gpus executor with stand-in devices ($KPROF_SWEEP_GPUS) gives the table a local run gives, rows in sweep
//     order, every run directory with a params.json saying where it ran;
//   - a worker killed mid-sweep is reported, and the task it held is finished by another worker;
//   - versions timed on two GPU models are not compared (no verdict), and the table says why.
// The slurm executor's test with a real single-node Slurm is tests/test_slurm_sweep.cpp.
#include <gtest/gtest.h>

#include <csignal>
#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "model/bench_table.hpp"
#include "plan/sweep_task.hpp"
#include "support/fake_kernels.hpp"
#include "support/shell.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using namespace kprof;

namespace {

fs::path scratch() { return test::scratch_dir("sweep_cli"); }

test::ShellResult sh(const std::string& cmd) { return test::run_shell(cmd, scratch()); }

using kprof::testing::spread;

using kprof::testing::kGemm;

using kprof::testing::gemm_plan;

// gemm v1 slow, v2 clearly faster, v3 the same as v2; `v3_device` names the GPU v3's timings report.
kprof::testing::FakeKernels make_fake(const std::string& name, const std::string& v3_device = "NVIDIA H200") {
  kprof::testing::FakeKernels f(scratch() / name);
  f.set_packages({kGemm});
  f.set_plan(gemm_plan(), true);
  auto v2 = spread(5.0, 5.2, 10), v3 = v2;
  std::reverse(v3.begin(), v3.end());
  f.set_run("gemm", "v1", 0, kprof::testing::FakeKernels::timings(gemm_plan(), spread(10.0, 10.5, 10)));
  f.set_run("gemm", "v2", 0, kprof::testing::FakeKernels::timings(gemm_plan(), v2));
  f.set_run("gemm", "v3", 0, kprof::testing::FakeKernels::timings(gemm_plan(), v3, v3_device));
  return f;
}

// Three points × three versions = nine runs.
fs::path sweep_file() {
  auto p = scratch() / "sweep.toml";
  write_file_atomic(p, R"(schema = "kprof.bench.sweeps/1"
runs = 10
[packages.gemm]
points = [ { m = 1024, n = 1024, k = 1024 }, { m = 2048 }, { k = 512 } ]
)");
  return p;
}

// kprof bench with this build's kprof; stand-in GPUs and a private lock folder (the workers lock "GPU" 0, 1, 2).
std::string bench_cmd(const kprof::testing::FakeKernels& f, const fs::path& out, const std::string& extra) {
  const fs::path locks = scratch() / "locks";
  fs::create_directories(locks);
  return "KPROF_ASSUME_GPU=1 KPROF_LOCK_DIR=" + locks.string() + " " + std::string(KPROF_BINARY) + " bench --kernels " +
         f.path() + " --sweep " + sweep_file().string() + " --out " + out.string() + " " + extra;
}

BenchTable table_of(const fs::path& out) { return json::parse(read_file(out / "bench.json")).get<BenchTable>(); }

// What must not depend on the executor: every row's identity, status, samples, figures and verdict.
json comparable(const BenchTable& t) {
  json rows = json::array();
  for (const auto& r : t.rows)
    rows.push_back({r.package, r.version, r.point, r.status, r.samples_ms, r.time_ms ? r.time_ms->median : -1.0, r.vs,
                    r.verdict, r.p_value.value_or(-1.0), r.speedup.value_or(-1.0), r.pct_of_roof.value_or(-1.0),
                    r.test, r.device});
  return rows;
}

std::size_t staging_left(const fs::path& out) {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(out / "runs"))
    n += e.path().filename().string().find(".partial-") != std::string::npos;
  return n;
}

}  // namespace

TEST(SweepCli, GpusExecutorGivesTheLocalTable) {
  auto f = make_fake("fake_same");
  const fs::path local = scratch() / "local", gpus = scratch() / "gpus";
  fs::remove_all(local);
  fs::remove_all(gpus);
  auto a = sh(bench_cmd(f, local, ""));
  ASSERT_EQ(a.code, 0) << a.err;
  auto b = sh("KPROF_SWEEP_GPUS=0,1,2 FAKE_RUN_SLEEP=0.2 " + bench_cmd(f, gpus, "--executor=gpus"));
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_NE(b.err.find("on 3 GPU worker(s)"), std::string::npos) << b.err;
  const BenchTable tl = table_of(local), tg = table_of(gpus);
  ASSERT_EQ(tl.rows.size(), 9u);
  EXPECT_EQ(comparable(tl), comparable(tg));
  EXPECT_EQ(tl.device, tg.device);
  // stdout is the table either way (its timestamp and folders aside).
  EXPECT_NE(b.out.find("## gemm"), std::string::npos);

  // Every run directory says where it ran; the gpus sweep used more than one worker, each with its own device.
  std::set<std::string> workers, devices;
  for (const auto& row : tg.rows) {
    const fs::path dir = row.artifacts;
    ASSERT_TRUE(fs::exists(dir / "timings.json")) << dir;
    EXPECT_FALSE(fs::exists(dir / "partial.txt") && !fs::exists(dir / "timings.json"));
    auto p = json::parse(read_file(dir / "params.json"));
    EXPECT_EQ(p["executor"], "gpus");
    EXPECT_FALSE(p["host"].get<std::string>().empty());
    EXPECT_EQ(p["package"], "gemm");
    EXPECT_EQ(p["status"], "ok");
    workers.insert(p["worker"].get<std::string>());
    devices.insert(p["gpu"]["cuda_visible_devices"].get<std::string>());
    EXPECT_EQ(p["worker"].get<std::string>(), "gpu" + p["gpu"]["cuda_visible_devices"].get<std::string>());
    EXPECT_EQ(json::parse(read_file(fs::path(local) / fs::relative(dir, gpus) / "params.json"))["executor"], "local");
  }
  EXPECT_GE(workers.size(), 2u);
  EXPECT_TRUE(std::includes(std::set<std::string>{"0", "1", "2"}.begin(), std::set<std::string>{"0", "1", "2"}.end(),
                            devices.begin(), devices.end()));
  EXPECT_EQ(staging_left(gpus), 0u);
}

TEST(SweepCli, AKilledWorkerIsReportedAndItsTaskFinishesOnAnotherGpu) {
  auto f = make_fake("fake_kill");
  const fs::path out = scratch() / "killed";
  fs::remove_all(out);
  const fs::path rc = scratch() / "killed.rc", err = scratch() / "killed.err";
  fs::remove(rc);
  // In the background: two stand-in GPUs, each run taking 1 s.
  sh("(KPROF_SWEEP_GPUS=0,1 FAKE_RUN_SLEEP=1 " + bench_cmd(f, out, "--executor=gpus") + " >/dev/null 2>" + err.string() +
     "; echo $? >" + rc.string() + ") &");
  // Wait until worker gpu1 holds a task, then kill it (SIGKILL: no chance to give anything back itself).
  const fs::path spool = out / "sweep";
  std::string held;
  for (int i = 0; i < 300 && held.empty(); ++i) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(spool / "claimed" / "gpu1", ec)) held = e.path().filename().string();
    if (held.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(held.empty()) << "worker gpu1 never took a task";
  const auto worker = json::parse(read_file(spool / "workers" / "gpu1.json"));
  ASSERT_EQ(::kill(worker["pid"].get<int>(), SIGKILL), 0);
  for (int i = 0; i < 600 && !fs::exists(rc); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(fs::exists(rc)) << "kprof bench did not finish";
  const std::string stderr_text = read_file(err);
  EXPECT_EQ(std::stoi(read_file(rc)), 0) << stderr_text;
  EXPECT_NE(stderr_text.find("worker gpu1 (GPU 1) failed (killed by signal 9"), std::string::npos) << stderr_text;
  EXPECT_NE(stderr_text.find("task(s) " + held + " go back to the queue"), std::string::npos) << stderr_text;

  // Every run timed; the task gpu1 held was finished by gpu0, from scratch, with nothing of the killed try left.
  const BenchTable t = table_of(out);
  ASSERT_EQ(t.rows.size(), 9u);
  for (const auto& row : t.rows) EXPECT_EQ(row.status, "ok") << row.version << " " << row.point << ": " << row.message;
  auto r = plan::parse_task_result(read_file(spool / "results" / (held + ".json")));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->worker, "gpu0");
  EXPECT_EQ(r->status, "ok");
  auto p = json::parse(read_file(fs::path(r->out_dir) / "params.json"));
  EXPECT_EQ(p["worker"], "gpu0");
  EXPECT_EQ(staging_left(out), 0u);
  // And the table is the one a local run gives.
  const fs::path local = scratch() / "killed_local";
  fs::remove_all(local);
  ASSERT_EQ(sh(bench_cmd(f, local, "")).code, 0);
  EXPECT_EQ(comparable(table_of(local)), comparable(t));
}

TEST(SweepCli, RunsOnDifferentGpuModelsAreNotCompared) {
  auto f = make_fake("fake_models", "NVIDIA H100 80GB HBM3");
  const fs::path out = scratch() / "models";
  fs::remove_all(out);
  auto r = sh(bench_cmd(f, out, ""));
  ASSERT_EQ(r.code, 0) << r.err;
  const BenchTable t = table_of(out);
  bool seen = false;
  for (const auto& row : t.rows) {
    if (row.version != "v3") continue;
    seen = true;
    EXPECT_EQ(row.verdict, "not compared");
    EXPECT_FALSE(row.speedup);
    EXPECT_FALSE(row.p_value);
    EXPECT_NE(row.test.find("v2 ran on NVIDIA H200 sm9.0, v3 on NVIDIA H100 80GB HBM3 sm9.0"), std::string::npos)
        << row.test;
  }
  EXPECT_TRUE(seen);
  bool noted = false;
  for (const auto& n : t.notes) noted = noted || n.find("different GPU models") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_NE(r.out.find("not compared (other GPU model)"), std::string::npos) << r.out;
}

TEST(SweepCli, ExecutorMistakesAreUsageErrors) {
  auto f = make_fake("fake_usage");
  auto bad = sh(bench_cmd(f, scratch() / "usage", "--executor=cloud"));
  EXPECT_EQ(bad.code, 2) << bad.err;
  auto none = sh("KPROF_SWEEP_GPUS=, " + bench_cmd(f, scratch() / "usage2", "--executor=gpus"));
  EXPECT_EQ(none.code, 4) << none.err;
  EXPECT_NE(none.err.find("no GPU is visible"), std::string::npos) << none.err;
  // A PATH with the fake's tools but no sbatch.
  const fs::path bin = scratch() / "bin_without_sbatch";
  fs::create_directories(bin);
  for (const char* tool : {"sh", "cat", "mkdir", "cp", "sleep", "echo"}) {
    std::error_code ec;
    fs::create_symlink(fs::path("/bin") / tool, bin / tool, ec);
  }
  auto nosbatch = sh("PATH=" + bin.string() + " " + bench_cmd(f, scratch() / "usage3", "--executor=slurm"));
  EXPECT_EQ(nosbatch.code, 5) << nosbatch.err;
  EXPECT_NE(nosbatch.err.find("sbatch is not on PATH"), std::string::npos) << nosbatch.err;
}

TEST(SweepCli, PackageAutotuneSpreadsOneTaskPerConfigThenChecksAndTunesHere) {
  // kprof gemm v2 --autotune --executor=gpus: one kprof-kernels run per tile config (--configs C:C+1) on the
  // workers, into the cache as an absolute path; then the usual check-and-tune here; no profiled run.
  kprof::testing::FakeKernels f(scratch() / "fake_tune");
  f.set_packages({kGemm});
  plan::KernelPlan p = gemm_plan();
  p.version = "v2";
  p.stages[0].tile_space = {{{"bm", 64}}, {{"bm", 128}}, {{"bm", 256}}};
  f.set_plan(p, true);
  f.set_run("gemm", "v2", 0);
  const fs::path root = scratch() / "tune_root", locks = scratch() / "locks";
  fs::remove_all(root);
  fs::create_directories(locks);
  auto r = sh("cd " + scratch().string() + " && KPROF_ASSUME_GPU=1 KPROF_SWEEP_GPUS=0,1 KPROF_LOCK_DIR=" + locks.string() +
              " KPROF_KERNELS=" + f.path() + " " + KPROF_BINARY + " gemm v2 --m=1024 --n=1024 --k=1024 --autotune " +
              "--executor=gpus --cache-dir tune_cache --out-root " + root.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("nothing profiled (--autotune)"), std::string::npos) << r.err;
  const auto runs = f.calls_starting("run gemm v2");
  ASSERT_EQ(runs.size(), 4u);
  std::set<std::string> ranges;
  const std::string cache = (scratch() / "tune_cache").string();
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NE(runs[i].find("--runs 0 --tune --no-check --configs "), std::string::npos) << runs[i];
    EXPECT_NE(runs[i].find("--cache-dir " + cache + " "), std::string::npos) << runs[i];
    ranges.insert(runs[i].substr(runs[i].find("--configs ") + 10, 3));
  }
  EXPECT_EQ(ranges, (std::set<std::string>{"0:1", "1:2", "2:3"}));
  EXPECT_EQ(runs[3].find("--configs"), std::string::npos) << runs[3];
  EXPECT_NE(runs[3].find("--runs 0 --tune"), std::string::npos) << runs[3];
  for (const auto& c : runs) EXPECT_EQ(c.find("--no-tune"), std::string::npos) << c;
  // The tasks' folders: one per config, each with its params.json.
  std::size_t tasks = 0;
  for (const auto& e : fs::recursive_directory_iterator(root / "tune"))
    tasks += e.path().filename() == "params.json" && json::parse(read_file(e.path()))["mode"] == "tune";
  EXPECT_EQ(tasks, 3u);
}

TEST(SweepCli, ARunThatMayHaveHitAGpuFaultIsTriedOnceMoreOnAnotherGpu) {
  // v2 exits 1 (kprof-kernels: a CUDA error): maybe its GPU, maybe v2. It runs again on the other worker, fails
  // there too, and is recorded as failed after its second attempt; the other runs are unaffected.
  auto f = make_fake("fake_fault");
  f.set_run("gemm", "v2", 1);
  const fs::path out = scratch() / "fault";
  fs::remove_all(out);
  auto r = sh("KPROF_SWEEP_GPUS=0,1 " + bench_cmd(f, out, "--executor=gpus --point m=1024,n=1024,k=1024 --packages gemm"));
  EXPECT_EQ(r.code, 7) << r.err;
  const BenchTable t = table_of(out);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0].status, "ok");
  EXPECT_EQ(t.rows[1].status, "failed");
  EXPECT_NE(t.rows[1].message.find("exited with code 1"), std::string::npos) << t.rows[1].message;
  EXPECT_EQ(t.rows[2].status, "ok");
  auto res = plan::parse_task_result(read_file(out / "sweep" / "results" / "0001.json"));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->attempt, 2);
  EXPECT_EQ(f.calls_starting("run gemm v2").size(), 2u);
  auto p = json::parse(read_file(fs::path(t.rows[1].artifacts) / "params.json"));
  EXPECT_EQ(p["attempt"], 2);
}

// A task list names where each task's artifact and log go: the worker replaces out_dir and writes the log inside
// it, so out_dir must be absolute and the log a plain file name other than the params.json the worker writes.
TEST(SweepFile, OutputPlacesThatWouldLeaveTheArtifactAreRefused) {
  auto list = [](const std::string& out_dir, const std::string& log) {
    return R"({"schema": "kprof.sweep/1", "tasks": [{"id": "0000", "argv": ["true"], "out_dir": ")" + out_dir +
           R"(", "log": ")" + log + R"("}]})";
  };
  EXPECT_NO_THROW(plan::parse_sweep_file(list("/tmp/out/0000", "log.txt"), "tasks.json"));
  EXPECT_THROW(plan::parse_sweep_file(list("out/0000", "log.txt"), "tasks.json"), Error);
  for (const char* log : {"../../etc/x", "/tmp/elsewhere", "params.json", ".hidden"})
    EXPECT_THROW(plan::parse_sweep_file(list("/tmp/out/0000", log), "tasks.json"), Error) << log;
}
