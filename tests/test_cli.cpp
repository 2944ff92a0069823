// The kprof binary end to end: exit codes, output and artifacts, on the real H200 exports. GPU runs skip here.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include "model/json_support.hpp"
#include "support/shell.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;

namespace {
using Result = kprof::test::ShellResult;

// Runs `kprof <args>` through the shell, capturing stdout and stderr separately.
// env: assignments put before the command ("NAME=value ...").
Result run_kprof(const std::string& args, const std::string& env = "") {
  return kprof::test::run_shell((env.empty() ? "" : "env " + env + " ") + std::string(KPROF_BINARY) + " " + args,
                                kprof::test::scratch_dir("cli"));
}

const std::string F = std::string(KPROF_FIXTURES) + "/h200-probe/";
fs::path tmp(const std::string& name) {
  auto p = kprof::test::scratch_dir("cli") / name;
  fs::remove_all(p);
  return p;
}
}  // namespace

TEST(Cli, AnalyzeFullSetPrintsTheContractAndWritesTheArtifact) {
  auto out = tmp("a1");
  auto r = run_kprof("analyze " + F + "full_raw.csv " + F + "full_details.csv --kernel probe --version v1 --b=32 --out " +
                 out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("## Profile: probe v1"), std::string::npos);
  EXPECT_NE(r.out.find("| b | device | mode |\n|---|---|---|\n| 32 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| stage_copy · copy_f4 | 536.7 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("### Top 3 Opportunities"), std::string::npos);
  for (auto f : {"params.json", "profile.json", "contract.md", "contract.json", "report.md", "report-verbose.md",
                 "inputs/full_raw.csv"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  EXPECT_EQ(kprof::read_file(out / "contract.md"), r.out);
}

TEST(Cli, AnalyzeOfLiveCsvWithProgramOutputMixedIn) {
  auto r = run_kprof("analyze " + F + "quick.csv --no-write");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("## Profile: kernels -"), std::string::npos) << r.out;  // process name, no version
  EXPECT_NE(r.out.find("copy_f4"), std::string::npos);
}

TEST(Cli, MalformedCsvNamesFileAndLineWithExitCode3) {
  auto bad = tmp("bad.csv");
  fs::create_directories(bad.parent_path());
  kprof::write_file_atomic(bad, "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
                                "\"0\",\"k(int)\",\"gpu__time_duration.sum\",\"ns\",\"12\n");
  auto r = run_kprof("analyze " + bad.string() + " --no-write");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find(bad.string() + ":2"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

// Issue 25: a program given without `--` is pointed at `--`; every command's help ends with the exit codes; a
// negated flag prints no "{false}".
TEST(Cli, HelpAndUsageLeadToTheRightSyntax) {
  auto r = run_kprof("run --prof-type=event /bin/true");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the program to profile goes after `--`"), std::string::npos) << r.err;
  for (const char* cmd : {"run", "analyze", "compare", "devlog", "clock", "peaks", "bench"}) {
    auto h = run_kprof(std::string(cmd) + " --help");
    EXPECT_EQ(h.code, 0) << cmd;
    EXPECT_NE(h.out.find("Exit codes: 0 ok"), std::string::npos) << cmd << ":\n" << h.out;
    EXPECT_EQ(h.out.find("{false}"), std::string::npos) << cmd << ":\n" << h.out;
  }
  EXPECT_EQ(run_kprof("analyze " + F + "quick.csv -q --no-write --out-root " + tmp("nw").string()).code, 0);
  EXPECT_FALSE(fs::exists(tmp("nw")));
}

TEST(Cli, UsageErrorsExitWith2) {
  EXPECT_EQ(run_kprof("analyze " + F + "quick.csv --b=abc --no-write").code, 2);
  EXPECT_EQ(run_kprof("analyze " + F + "quick.csv --no-such-flag --no-write").code, 2);
  EXPECT_EQ(run_kprof("run --prof_type=bogus -- /bin/true").code, 2);
  EXPECT_EQ(run_kprof("run --prof_type=event").code, 2);  // nothing to profile
  // An unknown word is looked up as a package: exit 2 with the list when kprof-kernels exists, else 5 (tool missing).
  bool kernels_built = fs::exists(fs::path(KPROF_BINARY).parent_path() / "kprof-kernels");
  EXPECT_EQ(run_kprof("frobnicate").code, kernels_built ? 2 : 5);
  EXPECT_EQ(run_kprof("analyze /no/such/file.csv").code, 3);
}

TEST(Cli, MissingNcuIsExit5WithAHint) {
  auto r = run_kprof("run --prof_type=annotation --counters ncu --timing ncu --ncu /no/such/ncu --out " + tmp("noncu").string() +
                 " -- /bin/true", "KPROF_ASSUME_GPU=1");
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("--prof-type=event"), std::string::npos) << r.err;
}

TEST(Cli, DryRunShowsTheNcuCommandWithClocksLeftAlone) {
  auto r = run_kprof("run --prof_type=annotation --counters ncu --dry-run --kernel-regex gemm -- ./app 3");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("--clock-control none"), std::string::npos);
  // One launch per kernel and launch configuration, restricted to the kernel filter.
  EXPECT_NE(r.out.find("-k regex:gemm"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--launch-count 1 --filter-mode per-launch-config"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("./app 3"), std::string::npos);
}

TEST(Cli, DryRunAnnotationUsesCuptiCountersByDefaultAndNcuWithoutItsSectionFiles) {
  auto d = run_kprof("run --prof_type=annotation --dry-run -- ./app");
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_NE(d.out.find("counter run:"), std::string::npos) << d.out;  // the default: CUPTI in the program
  EXPECT_EQ(d.out.find("ncu run:"), std::string::npos) << d.out;
  auto n = run_kprof("run --prof_type=annotation --counters ncu --dry-run -- ./app");
  ASSERT_EQ(n.code, 0) << n.err;
  EXPECT_NE(n.out.find("--section-folder"), std::string::npos) << n.out;
  auto c = run_kprof("run --prof_type=annotation --counters cupti --timing counters --dry-run -- ./app");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.out.find("counter run:"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("ncu run:"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("traced run:"), std::string::npos) << c.out;  // --timing counters: no tracer pass
  auto env = run_kprof("run --prof_type=annotation --dry-run -- ./app", "KPROF_COUNTERS=ncu");
  EXPECT_NE(env.out.find("ncu run:"), std::string::npos) << env.out;
  auto bad = run_kprof("run --prof_type=annotation --counters nsight --dry-run -- ./app");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("ncu or cupti"), std::string::npos) << bad.err;
}

TEST(Cli, CompareTwoArtifacts) {
  auto a = tmp("cmp_a"), b = tmp("cmp_b");
  ASSERT_EQ(run_kprof("analyze " + F + "full_raw.csv --kernel probe --version v1 -q --out " + a.string()).code, 0);
  ASSERT_EQ(run_kprof("analyze " + F + "full_raw.csv --kernel probe --version v2 -q --out " + b.string()).code, 0);
  auto r = run_kprof("compare " + a.string() + " " + b.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("same"), std::string::npos) << r.out;
  auto base = run_kprof("analyze " + F + "full_raw.csv --no-write --baseline " + a.string());
  EXPECT_NE(base.out.find("### vs Baseline"), std::string::npos);
  EXPECT_EQ(run_kprof("compare " + a.string() + " /no/such/dir").code, 3);
}

TEST(Cli, DevlogAppendsEntriesWithVsPrevious) {
  auto a = tmp("dl_a"), b = tmp("dl_b");
  auto docs = tmp("docs");
  ASSERT_EQ(run_kprof("analyze " + F + "full_raw.csv --kernel probe --version v1 -q --out " + a.string()).code, 0);
  ASSERT_EQ(run_kprof("analyze " + F + "full_raw.csv --kernel probe --version v2 -q --out " + b.string()).code, 0);
  ASSERT_EQ(run_kprof("devlog " + a.string() + " --docs " + docs.string()).code, 0);
  ASSERT_EQ(run_kprof("devlog " + b.string() + " --docs " + docs.string()).code, 0);
  std::string md = kprof::read_file(docs / "probe.md");
  EXPECT_NE(md.find("first entry"), std::string::npos);
  EXPECT_NE(md.find("+0.0%"), std::string::npos) << md;  // second entry: identical figures
}

TEST(Cli, DevicesListsTheShippedGpus) {
  auto r = run_kprof("devices");
  ASSERT_EQ(r.code, 0) << r.err;
  for (auto name : {"H200", "H100", "A100", "B200", "L40S", "4090"}) EXPECT_NE(r.out.find(name), std::string::npos);
  EXPECT_EQ(run_kprof("devices --show h200-sxm").code, 0);
  EXPECT_EQ(run_kprof("devices --show no-such-gpu").code, 2);
}

TEST(Cli, EventModeOnARealGpu) {
  if (std::system("nvidia-smi -L >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no NVIDIA GPU on this machine: the GPU modes are checked by scripts/device-check.sh";
  fs::path probe = fs::path(KPROF_BINARY).parent_path() / "probe_kernels";
  if (!fs::exists(probe)) GTEST_SKIP() << "probe_kernels not built (no CUDA toolkit at build time)";
  auto r = run_kprof("run --prof_type=event --out " + tmp("gpu_event").string() + " -- " + probe.string() + " 1");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("stage_copy · copy_f4"), std::string::npos) << r.out;
}

TEST(Cli, LockClocksNeedsConsentAndRestoresAfterTheRun) {
  auto dir = tmp("clocks");
  fs::create_directories(dir);
  std::string env = "KPROF_ASSUME_GPU=1 KPROF_INJECT_LIB=/bin/true NVIDIA_SMI=" + KPROF_FIXTURES + "/fake-nvidia-smi/nvidia-smi FAKE_SMI_LOG=" + (dir / "smi.log").string() +
                    " XDG_STATE_HOME=" + (dir / "state").string() + " KPROF_LOCK_DIR=" + dir.string() + " ";
  // Without consent: refused before anything runs.
  auto refused = run_kprof("run --prof_type=event --lock-clocks --out " + (dir / "a").string() + " -- /bin/true");
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("--yes"), std::string::npos) << refused.err;
  // With consent (fake nvidia-smi): locked before the program, restored after it.
  std::string cmd = "env " + env + KPROF_BINARY + " run --prof_type=event --lock-clocks --yes -q --out " +
                    (dir / "b").string() + " -- /bin/true >/dev/null 2>&1";
  int st = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(st)) << cmd;
  std::string log = kprof::read_file(dir / "smi.log");
  auto lock = log.find("-lgc 1980,1980"), reset = log.find("-rgc");
  ASSERT_NE(lock, std::string::npos) << log;
  ASSERT_NE(reset, std::string::npos) << log;
  EXPECT_LT(lock, reset);
  std::string profile = kprof::read_file(dir / "b" / "profile.json");
  EXPECT_NE(profile.find("\"locked\": true"), std::string::npos);
}

// --counters cupti end to end without a GPU: the "program" is a script that records the collector's environment
// and writes a counters file the way libkprof_inject.so does (a real one from the H200, or garbage).
TEST(Cli, CuptiCountersRunPassesFiltersAndSurvivesABadFile) {
  auto dir = tmp("cupti_e2e");
  fs::create_directories(dir);
  auto script = dir / "app.sh";
  {
    std::ofstream s(script);
    s << "#!/bin/sh\nenv | grep '^KPROF_COUNTERS\\|^CUDA_INJECTION64_PATH' | sort > " << (dir / "env.txt").string()
      << "\nif [ \"$1\" = bad ]; then echo '{broken' > \"$KPROF_COUNTERS_FILE\"; else cp "
      << std::string(KPROF_FIXTURES) << "/h200-counters/probe.json \"$KPROF_COUNTERS_FILE\"; fi\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  std::string common = "run --prof_type=annotation --counters cupti --timing counters --kernel probe ";
  auto ok = run_kprof(common + "--kernel-regex 'copy|gemm' --nvtx-include stage_gemm/ --launch-skip 2 --out " +
                          (dir / "good").string() + " -- " + script.string(),
                      "KPROF_ASSUME_GPU=1 KPROF_INJECT_LIB=/bin/true KPROF_COUNTERS_MAX=7 KPROF_COUNTERS_IMAGE=3");
  ASSERT_EQ(ok.code, 0) << ok.err;
  std::string env = kprof::read_file(dir / "env.txt");
  EXPECT_NE(env.find("KPROF_COUNTERS_KERNEL=copy|gemm"), std::string::npos) << env;
  EXPECT_NE(env.find("KPROF_COUNTERS_NVTX=stage_gemm\n"), std::string::npos) << env;
  EXPECT_NE(env.find("KPROF_COUNTERS_SKIP=2"), std::string::npos) << env;
  EXPECT_NE(env.find("KPROF_COUNTERS_MAX=\n"), std::string::npos) << env;  // the shell's 7 does not leak in
  EXPECT_NE(env.find("KPROF_COUNTERS_IMAGE=\n"), std::string::npos) << env;  // nor its 3
  EXPECT_NE(env.find("KPROF_COUNTERS_METRICS=gpu__time_duration.sum,"), std::string::npos) << env;
  EXPECT_EQ(env.find("smsp__sass_"), std::string::npos) << env;  // SASS-patching metrics are not asked for
  std::string profile = kprof::read_file(dir / "good" / "profile.json");
  EXPECT_NE(profile.find("\"stage_gemm\""), std::string::npos);
  EXPECT_NE(ok.err.find("FP32/FP64/FP16 FLOP counts"), std::string::npos) << ok.err;  // said with the warnings

  auto bad = run_kprof(common + "--out " + (dir / "bad").string() + " -- " + script.string() + " bad",
                       "KPROF_ASSUME_GPU=1 KPROF_INJECT_LIB=/bin/true");
  EXPECT_EQ(bad.code, 0) << bad.err;  // the program succeeded; the unreadable counters are a warning
  EXPECT_NE((bad.out + bad.err).find("counters not read"), std::string::npos) << bad.out << bad.err;
  EXPECT_TRUE(fs::exists(dir / "bad" / "profile.json"));

  auto regex = run_kprof(common + "--kernel-regex '(?i)gemm' --out " + (dir / "re").string() + " -- " + script.string(),
                         "KPROF_INJECT_LIB=/bin/true");
  EXPECT_EQ(regex.code, 2) << regex.err;
  EXPECT_NE(regex.err.find("ECMAScript"), std::string::npos) << regex.err;
}

// event and nsys end to end without a GPU: the "program" records the tracer's environment and writes a real H200
// trace where the tracer would have (examples/h200/profiles/nsys_streams/trace.kptrace). The two modes set
// different record kinds and write different outputs from the same kind of raw file.
TEST(Cli, EventAndNsysSetTheirOwnRecordKindsAndWriteTheirOwnOutputs) {
  auto dir = tmp("modes_e2e");
  fs::create_directories(dir);
  auto script = dir / "app.sh";
  {
    std::ofstream s(script);
    s << "#!/bin/sh\nenv | grep '^KPROF_TRACE_\\|^KPROF_COUNTERS_FILE' | sort > \"$(dirname \"$KPROF_TRACE_FILE\")/env.txt\"\n"
      << "cp " << KPROF_SOURCE_DIR << "/examples/h200/profiles/nsys_streams/trace.kptrace \"$KPROF_TRACE_FILE\"\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  // A shell export that would change the record kinds does not reach the program: every kind is set per mode.
  const std::string env = "KPROF_ASSUME_GPU=1 KPROF_INJECT_LIB=/bin/true KPROF_TRACE_COPIES=1 KPROF_TRACE_SYNC=1";
  auto event = run_kprof("run --prof-type=event -q --kernel streams --out " + (dir / "event").string() + " -- " +
                             script.string(), env);
  auto nsys = run_kprof("run --prof-type=nsys -q --kernel streams --out " + (dir / "nsys").string() + " -- " +
                            script.string(), env);
  ASSERT_EQ(event.code, 0) << event.err;
  ASSERT_EQ(nsys.code, 0) << nsys.err;
  std::string event_env = kprof::read_file(dir / "event" / "env.txt");
  std::string nsys_env = kprof::read_file(dir / "nsys" / "env.txt");
  for (auto kv : {"KPROF_TRACE_API=1\n", "KPROF_TRACE_NVTX=1\n", "KPROF_TRACE_COPIES=0\n", "KPROF_TRACE_SYNC=0\n",
                  "KPROF_TRACE_GRAPH=0\n", "KPROF_COUNTERS_FILE=\n"})
    EXPECT_NE(event_env.find(kv), std::string::npos) << kv << event_env;
  for (auto kv : {"KPROF_TRACE_API=1\n", "KPROF_TRACE_NVTX=1\n", "KPROF_TRACE_COPIES=1\n", "KPROF_TRACE_SYNC=1\n"})
    EXPECT_NE(nsys_env.find(kv), std::string::npos) << kv << nsys_env;
  // event: the timing statistics; nsys: the timeline, its CSVs and the Perfetto trace.
  EXPECT_TRUE(fs::exists(dir / "event" / "timing.md"));
  for (auto f : {"timeline.md", "kernels.csv", "memcpy.csv", "api.csv", "overlap.csv", "trace.json"}) {
    EXPECT_FALSE(fs::exists(dir / "event" / f)) << f;
    EXPECT_TRUE(fs::exists(dir / "nsys" / f)) << f;
  }
  EXPECT_FALSE(fs::exists(dir / "nsys" / "timing.md"));
  std::string timing = kprof::read_file(dir / "event" / "timing.md");
  EXPECT_NE(timing.find("## Top kernels by total time"), std::string::npos) << timing;
  EXPECT_NE(timing.find("phase_overlap/kernel_kernel"), std::string::npos) << timing;  // NVTX ranges
  EXPECT_EQ(timing.find("## GPU utilisation and overlap"), std::string::npos) << timing;
  std::string timeline = kprof::read_file(dir / "nsys" / "timeline.md");
  EXPECT_NE(timeline.find("kernel–kernel overlap (% of busy)"), std::string::npos) << timeline;
  // The same stages either way: they come from the kernels and NVTX ranges both modes record.
  auto stages = [&](const char* mode) {
    return kprof::json::parse(kprof::read_file(dir / mode / "profile.json")).at("stages");
  };
  EXPECT_FALSE(stages("event").empty());
  EXPECT_EQ(stages("event"), stages("nsys"));
}
