// `kprof analyze x.ncu-rep`: without ncu, a clear error naming the fix (exit 5); with an `ncu` on PATH (here a
// script that answers `--import ... --csv --page <page>` with the H200 probe's exported pages), the same analysis
// as the exported CSV files, the report kept beside the inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "model/json_support.hpp"
#include "session/assemble.hpp"
#include "support/shell.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;

namespace {

const std::string F = std::string(KPROF_FIXTURES) + "/h200-probe/";

fs::path scratch() { return kprof::test::scratch_dir("ncu_rep"); }

kprof::test::ShellResult kprof_cli(const std::string& args, const std::string& path_env) {
  return kprof::test::run_shell("env PATH=" + path_env + " " + std::string(KPROF_BINARY) + " " + args, scratch());
}

// A fake ncu in <dir>/ncu that prints a fixture page for --page raw|details|session and fails for source.
fs::path fake_ncu_dir() {
  fs::path dir = scratch() / "fake-ncu-bin";
  fs::create_directories(dir);
  std::ofstream(dir / "ncu") << "#!/bin/sh\n"
                                "page=''\n"
                                "while [ $# -gt 0 ]; do [ \"$1\" = --page ] && page=$2; shift; done\n"
                                "case $page in\n"
                                "  raw) cat '" + F + "full_raw.csv' ;;\n"
                                "  details) cat '" + F + "full_details.csv' ;;\n"
                                "  session) cat '" + F + "session.csv' ;;\n"
                                "  *) echo \"no $page page in this report\" >&2; exit 1 ;;\n"
                                "esac\n";
  fs::permissions(dir / "ncu", fs::perms::owner_all);
  return dir;
}

fs::path report() {
  fs::path r = scratch() / "probe.ncu-rep";
  std::ofstream(r) << "not a real report: the fake ncu ignores it";
  return r;
}

}  // namespace

TEST(NcuRepImport, WithoutNcuTheErrorNamesTheFix) {
  auto r = kprof_cli("analyze " + report().string() + " --no-write", "/nonexistent");
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("needs `ncu` (Nsight Compute) on PATH"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ncu --import " + report().string() + " --csv --page raw"), std::string::npos) << r.err;
}

TEST(NcuRepImport, WithNcuOnPathTheReportIsAnalysedLikeItsPages) {
  const std::string path = fake_ncu_dir().string() + ":/usr/bin:/bin";
  auto from_report = kprof_cli("analyze " + report().string() + " --kernel probe --no-write --json", path);
  ASSERT_EQ(from_report.code, 0) << from_report.err;
  auto from_csv = kprof_cli("analyze " + F + "full_raw.csv " + F + "full_details.csv " + F +
                                "session.csv --kernel probe --no-write --json",
                            path);
  ASSERT_EQ(from_csv.code, 0) << from_csv.err;
  auto a = kprof::json::parse(from_report.out), b = kprof::json::parse(from_csv.out);
  EXPECT_EQ(a["stages"], b["stages"]);
  EXPECT_EQ(a["bottleneck"], b["bottleneck"]);
  EXPECT_FALSE(a["stages"].empty());
  EXPECT_NE(from_report.err.find("imported from the Nsight Compute report"), std::string::npos) << from_report.err;
}

TEST(NcuRepImport, TheReportIsKeptInTheArtifact) {
  const std::string path = fake_ncu_dir().string() + ":/usr/bin:/bin";
  fs::path out = scratch() / "art";
  fs::remove_all(out);
  auto r = kprof_cli("analyze " + report().string() + " --kernel probe --out " + out.string(), path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out / "inputs" / "probe.ncu-rep"));
  EXPECT_TRUE(fs::exists(out / "inputs" / "ncu_raw.csv"));
}

TEST(NcuRepImport, ExplicitNcuOption) {
  auto r = kprof_cli("analyze " + report().string() + " --ncu " + (fake_ncu_dir() / "ncu").string() + " --no-write",
                     "/usr/bin:/bin");
  EXPECT_EQ(r.code, 0) << r.err;
}

// ncu mode keeps Nsight Compute's report beside its CSV pages, and the run names it (the report's "Sources" row).
TEST(NcuRepImport, NcuModeNamesItsReport) {
  fs::path art = scratch() / "ncu_probe";
  fs::remove_all(art);
  fs::copy(std::string(KPROF_SOURCE_DIR) + "/examples/h200/profiles/ncu_probe", art, fs::copy_options::recursive);
  auto before = kprof::session::reassemble_artifact(art);
  ASSERT_TRUE(before.has_value());
  for (const auto& s : before->assembled.run.sources) EXPECT_NE(s, "ncu/profile.ncu-rep");
  std::ofstream(art / "ncu" / "profile.ncu-rep") << "report";
  auto after = kprof::session::reassemble_artifact(art);
  ASSERT_TRUE(after.has_value());
  const auto& src = after->assembled.run.sources;
  EXPECT_NE(std::find(src.begin(), src.end(), "ncu/profile.ncu-rep"), src.end());
}
