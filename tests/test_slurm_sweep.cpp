// The slurm executor against a real single-node Slurm (issue 28): tests/slurm/cluster.sh starts munged, slurmctld
// and slurmd in a scratch folder with a fake `gpu` gres, and `kprof bench --executor=slurm` runs a sweep of CPU-only
// tasks (the fake kprof-kernels, support/fake_kernels.hpp) through `sbatch --array`:
//   - every task's artifact arrives, with params.json naming the job, and the table is the local run's;
//   - Ctrl-C cancels the job (scancel) and leaves no half-written result: each run folder is whole or absent.
// Skipped, saying why, when the Slurm or munge binaries are absent (scripts/setup.sh installs them) and in the
// sanitizer build (the release suite runs it; a second cluster would only cost CI time).
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "model/bench_table.hpp"
#include "plan/sweep_task.hpp"
#include "support/fake_kernels.hpp"
#include "support/shell.hpp"
#include "util/fs.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define KPROF_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KPROF_TEST_SANITIZED 1
#endif
#endif

namespace fs = std::filesystem;
using namespace kprof;

namespace {

fs::path scratch() { return test::scratch_dir("slurm_sweep"); }
test::ShellResult sh(const std::string& cmd) { return test::run_shell(cmd, scratch()); }

using kprof::testing::spread;

using kprof::testing::kGemm;

using kprof::testing::gemm_plan;

class SlurmSweep : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
#ifdef KPROF_TEST_SANITIZED
    skip_ = "the Slurm sweep runs in the release suite only";
    return;
#endif
    char tmpl[] = "/tmp/kprof-slurm-XXXXXX";  // short: munge's socket path must fit a sockaddr_un
    if (!::mkdtemp(tmpl)) {
      skip_ = "cannot make a scratch folder";
      return;
    }
    cluster_ = tmpl;
    auto r = sh(std::string(KPROF_SOURCE_DIR) + "/tests/slurm/cluster.sh start " + cluster_.string());
    if (r.code == 77) {
      skip_ = r.err;
      return;
    }
    if (r.code != 0) {
      start_error_ = "cluster.sh start failed (" + std::to_string(r.code) + "): " + r.err;
      return;
    }
    conf_ = (cluster_ / "slurm.conf").string();
    fake_ = std::make_unique<kprof::testing::FakeKernels>(scratch() / "fake");
    fake_->set_packages({kGemm});
    fake_->set_plan(gemm_plan(), true);
    auto v2 = spread(5.0, 5.2, 10), v3 = v2;
    std::reverse(v3.begin(), v3.end());
    fake_->set_run("gemm", "v1", 0, kprof::testing::FakeKernels::timings(gemm_plan(), spread(10.0, 10.5, 10)));
    fake_->set_run("gemm", "v2", 0, kprof::testing::FakeKernels::timings(gemm_plan(), v2));
    fake_->set_run("gemm", "v3", 0, kprof::testing::FakeKernels::timings(gemm_plan(), v3));
    write_file_atomic(scratch() / "sweep.toml", R"(schema = "kprof.bench.sweeps/1"
runs = 10
[packages.gemm]
points = [ { m = 1024, n = 1024, k = 1024 }, { m = 2048 }, { k = 512 } ]
)");
  }
  static void TearDownTestSuite() {
    if (!cluster_.empty()) {
      sh(std::string(KPROF_SOURCE_DIR) + "/tests/slurm/cluster.sh stop " + cluster_.string());
      std::error_code ec;
      fs::remove_all(cluster_, ec);
    }
    fake_.reset();
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(start_error_.empty()) << start_error_;
  }

  // kprof bench over the fake, on the test cluster (sbatch exports this environment to the array tasks).
  static std::string bench(const fs::path& out, const std::string& extra, const std::string& env = "") {
    const fs::path locks = scratch() / "locks";
    fs::create_directories(locks);
    return "SLURM_CONF=" + conf_ + " KPROF_SLURM_POLL_S=0.3 KPROF_ASSUME_GPU=1 KPROF_LOCK_DIR=" + locks.string() + " " +
           env + " " + std::string(KPROF_BINARY) + " bench --kernels " + fake_->path() + " --sweep " +
           (scratch() / "sweep.toml").string() + " --out " + out.string() + " " + extra;
  }

  static inline fs::path cluster_;
  static inline std::string conf_, skip_, start_error_;
  static inline std::unique_ptr<kprof::testing::FakeKernels> fake_;
};

BenchTable table_of(const fs::path& out) { return json::parse(read_file(out / "bench.json")).get<BenchTable>(); }

json comparable(const BenchTable& t) {
  json rows = json::array();
  for (const auto& r : t.rows)
    rows.push_back({r.package, r.version, r.point, r.status, r.samples_ms, r.vs, r.verdict, r.p_value.value_or(-1.0),
                    r.speedup.value_or(-1.0), r.test});
  return rows;
}

}  // namespace

TEST_F(SlurmSweep, EveryTasksArtifactArrivesAndTheTableIsTheLocalOne) {
  const fs::path out = scratch() / "slurm", local = scratch() / "local";
  fs::remove_all(out);
  fs::remove_all(local);
  auto r = sh(bench(out, "--executor=slurm --chunk 2"));
  ASSERT_EQ(r.code, 0) << r.err << "\n" << sh("tail -n 30 " + cluster_.string() + "/log/*.log").out;
  EXPECT_NE(r.err.find("submitted Slurm job"), std::string::npos) << r.err;
  const std::string script = read_file(out / "sweep" / "slurm" / "sweep.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-4\n"), std::string::npos) << script;  // 9 tasks, 2 per array task
  EXPECT_NE(script.find("#SBATCH --gres=gpu:1\n"), std::string::npos) << script;
  const std::string job = read_file(out / "sweep" / "slurm" / "job_id");

  const BenchTable t = table_of(out);
  ASSERT_EQ(t.rows.size(), 9u);
  for (const auto& row : t.rows) {
    EXPECT_EQ(row.status, "ok") << row.version << " " << row.point << ": " << row.message;
    const fs::path dir = row.artifacts;
    EXPECT_TRUE(fs::exists(dir / "timings.json")) << dir;
    auto p = json::parse(read_file(dir / "params.json"));
    EXPECT_EQ(p["executor"], "slurm");
    EXPECT_EQ(p["slurm"]["array_job_id"].get<std::string>() + "\n", job);
    EXPECT_EQ(p["worker"].get<std::string>().rfind("slurm " + job.substr(0, job.size() - 1) + "_", 0), 0u) << p.dump();
    EXPECT_FALSE(p["host"].get<std::string>().empty());
    // Slurm gave the array task one of the node's two (stand-in) GPUs.
    const std::string gpu = p["gpu"]["cuda_visible_devices"];
    EXPECT_TRUE(gpu == "0" || gpu == "1") << gpu;
  }
  ASSERT_EQ(sh(bench(local, "")).code, 0);
  EXPECT_EQ(comparable(table_of(local)), comparable(t));
}

TEST_F(SlurmSweep, CtrlCCancelsTheJobAndLeavesNoHalfWrittenResult) {
  const fs::path out = scratch() / "cancelled";
  fs::remove_all(out);
  const fs::path pid = scratch() / "cancel.pid", rc = scratch() / "cancel.rc", err = scratch() / "cancel.err";
  fs::remove(pid);
  fs::remove(rc);
  // Each run takes 60 s and writes partial.txt first: the ones running when the job is cancelled are half-done.
  sh("(sh -c 'echo $$ > " + pid.string() + "; exec env " + bench(out, "--executor=slurm", "FAKE_RUN_SLEEP=60") + "' >/dev/null 2>" +
     err.string() + "; echo $? > " + rc.string() + ") &");
  bool running = false;
  for (int i = 0; i < 600 && !running; ++i) {
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(out / "runs", ec))
      running = running || e.path().filename() == "partial.txt";
    if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(running) << read_file(err);
  ASSERT_EQ(::kill(std::stoi(read_file(pid)), SIGINT), 0);
  for (int i = 0; i < 900 && !fs::exists(rc); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(fs::exists(rc));
  const std::string stderr_text = read_file(err);
  EXPECT_EQ(std::stoi(read_file(rc)), 130) << stderr_text;
  EXPECT_NE(stderr_text.find("cancelling Slurm job"), std::string::npos) << stderr_text;
  std::string job = read_file(out / "sweep" / "slurm" / "job_id");
  job.pop_back();
  EXPECT_EQ(sh("SLURM_CONF=" + conf_ + " squeue -h -j " + job).out, "");

  // Nothing half-written: no staging folder, no run folder without its params.json, no result without its folder.
  for (const auto& e : fs::recursive_directory_iterator(out / "runs")) {
    EXPECT_EQ(e.path().filename().string().find(".partial-"), std::string::npos) << e.path();
    if (e.path().filename() == "partial.txt") {
      EXPECT_TRUE(fs::exists(e.path().parent_path() / "params.json")) << e.path();
      EXPECT_TRUE(fs::exists(e.path().parent_path() / "timings.json")) << e.path();
    }
  }
  const BenchTable t = table_of(out);
  ASSERT_EQ(t.rows.size(), 9u);
  for (const auto& row : t.rows) {
    EXPECT_EQ(row.status, "failed");
    EXPECT_NE(row.message.find("interrupted"), std::string::npos) << row.message;
    EXPECT_FALSE(fs::exists(row.artifacts)) << row.artifacts;
  }
}
