#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "collect/ncu/ncu_import.hpp"
#include "ncu_test_support.hpp"

using namespace kprof;
using namespace kprof::ncu;
using kprof::test::expect_parse_error;
using kprof::test::probe_fixture;

namespace {
std::string write_temp(const std::string& name, const std::string& content) {
  auto dir = std::filesystem::temp_directory_path() / "kprof_test_ncu_import";
  std::filesystem::create_directories(dir);
  auto p = dir / name;
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}
const Stage& stage(const ProfileRun& r, const std::string& name) {
  for (const auto& s : r.stages)
    if (s.name == name) return s;
  throw std::runtime_error("no stage " + name);
}
}  // namespace

TEST(NcuImport, FullSetPagesMergeIntoOneRun) {
  NcuImport imp = import_ncu({probe_fixture("full_raw.csv"), probe_fixture("full_details.csv"),
                              probe_fixture("session.csv"), probe_fixture("source_wmma.csv")});
  const ProfileRun& r = imp.run;
  EXPECT_EQ(r.mode, Mode::Import);
  EXPECT_EQ(r.kernel, "kernels");
  EXPECT_EQ(r.sources.size(), 4u);
  EXPECT_EQ(r.device.name, "NVIDIA H200");
  EXPECT_EQ(r.device.compute_capability, "9.0");
  EXPECT_EQ(r.device.sm_count, 132);
  EXPECT_DOUBLE_EQ(r.device.sm_clock_mhz, 1980);      // device__attribute_clock_rate 1,980,000 kHz
  EXPECT_DOUBLE_EQ(r.device.memory_clock_mhz, 3201);  // device__attribute_memory_clock_rate 3,201,000 kHz
  EXPECT_NE(r.command.find("--set full"), std::string::npos);
  EXPECT_TRUE(r.warnings.empty());
  ASSERT_EQ(r.stages.size(), 7u);  // init_f, init_bf, stage_copy, stage_fma, stage_gemm, spill_kernel, stage_concurrent
  const Stage& copy = stage(r, "stage_copy");
  ASSERT_EQ(copy.kernels.size(), 1u);
  const KernelLaunch& c5 = copy.kernels[0].launches[0];
  EXPECT_EQ(c5.id, 5);
  EXPECT_NEAR(*c5.duration_ns, 536672, 1e-6);
  EXPECT_FALSE(c5.rules.empty());     // from the details page
  EXPECT_FALSE(c5.sections.empty());
  EXPECT_GT(c5.metrics.size(), 2000u);  // from the raw page
  EXPECT_DOUBLE_EQ(*copy.kernels[0].metrics.dram_throughput_pct, 82.352146);
  const Stage& conc = stage(r, "stage_concurrent");
  ASSERT_EQ(conc.kernels.size(), 1u);
  EXPECT_EQ(conc.kernels[0].launches.size(), 2u);  // IDs 10 and 11 keep separate launches
  EXPECT_EQ(conc.kernels[0].launches[0].id, 10);
  EXPECT_EQ(conc.kernels[0].launches[1].id, 11);
  EXPECT_LT(*conc.kernels[0].metrics.waves_per_sm, 1);
  const Stage& gemm = stage(r, "stage_gemm");
  ASSERT_EQ(gemm.kernels.size(), 2u);
  EXPECT_EQ(gemm.kernels[1].kernel, "wmma_gemm");
  EXPECT_GT(*gemm.kernels[1].metrics.tensor_pipe_pct, 0);
  EXPECT_EQ(stage(r, "init_f").kernels[0].launches.size(), 3u);
  ASSERT_EQ(imp.source.kernels.size(), 1u);
  EXPECT_EQ(hottest_lines(imp.source, 1)[0].line, 717);
}

TEST(NcuImport, LiveMetricsRun) {
  ProfileRun r = import_ncu_files({probe_fixture("quick.csv")});
  EXPECT_EQ(r.kernel, "kernels");
  EXPECT_EQ(r.device.compute_capability, "9.0");  // CC column
  ASSERT_EQ(r.warnings.size(), 1u);               // the ==WARNING== about unlocked clocks
  EXPECT_NE(r.warnings[0].text.find("unmodified GPU clocks"), std::string::npos);
  std::size_t launches = 0;
  for (const auto& s : r.stages)
    for (const auto& g : s.kernels) launches += g.launches.size();
  EXPECT_EQ(launches, 12u);
  // No NVTX columns: one stage per function, fma_loop split by shape.
  const Stage& fma = stage(r, "fma_loop");
  ASSERT_EQ(fma.kernels.size(), 2u);
  EXPECT_EQ(fma.kernels[0].label, "fma_loop [1056x1x1]");
  EXPECT_EQ(fma.kernels[1].label, "fma_loop [66x1x1]");
  const KernelLaunch& init0 = stage(r, "init_f").kernels[0].launches[0];
  EXPECT_EQ(init0.id, 0);
  EXPECT_DOUBLE_EQ(init0.metrics.at("dram__bytes.sum").value, 1046904576);
  EXPECT_DOUBLE_EQ(*init0.duration_ns, 418368);
}

TEST(NcuImport, ProfilerErrorWithoutResultsIsAClearError) {
  std::string p = write_temp("perm.csv",
                             "==PROF== Connected to process 99 (/bin/app)\n"
                             "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                             "Performance Counters on the target device 0.\n"
                             "result 42\n==PROF== Disconnected from process 99\n");
  try {
    import_ncu_files({p});
    FAIL() << "expected an error";
  } catch (const ParseError&) {
    FAIL() << "expected the profiler's error, not a parse error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitNoPermission);
    EXPECT_NE(std::string(e.what()).find("ERR_NVGPUCTRPERM"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  }
}

TEST(NcuImport, RejectsFilesThatAreNotNcuCsv) {
  std::string other = write_temp("other.csv", "\"name\",\"age\"\n\"bob\",\"3\"\n");
  expect_parse_error([&] { import_ncu_files({other}); }, 1, "not an Nsight Compute CSV page");
  std::string text = write_temp("text.txt", "hello\nworld\n");
  expect_parse_error([&] { import_ncu_files({text}); }, 0, "no Nsight Compute CSV table");
  std::string empty = write_temp("empty.csv", "");
  expect_parse_error([&] { import_ncu_files({empty}); }, 0, "empty file");
  try {
    import_ncu_files({other});
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), other);
    EXPECT_EQ(e.exit_code(), kExitBadInput);
  }
}

TEST(NcuImport, PagesOfDifferentRunsAreRefused) {
  // quick.csv (process 1442) and full_raw.csv (process 756) both hold IDs 0..11: two runs, never one (issue 25: the
  // raw page of one program beside the details of another exited 0 with the two mixed).
  try {
    import_ncu_files({probe_fixture("quick.csv"), probe_fixture("full_raw.csv")});
    ADD_FAILURE() << "two runs' pages were merged";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_NE(std::string(e.what()).find("from process 756, those of"), std::string::npos) << e.what();
  }
}

// Issue 25, on a real H200 export (tests/fixtures/h200-identity): PyTorch's add and abs at one launch shape, max and
// mean reductions, normal() for float and bf16 are each two kernel groups with their own counters, named by what
// tells them apart; the details page of another ncu run of the program is refused beside this raw page.
TEST(NcuImport, InstantiationsAtOneShapeAreGroupsWithTheirOwnCounters) {
  const std::string dir = std::string(KPROF_FIXTURES) + "/h200-identity/";
  ProfileRun r = import_ncu_files({dir + "raw.csv"});
  const KernelGroup *add = nullptr, *abs = nullptr, *max = nullptr, *mean = nullptr, *nf = nullptr, *nbf = nullptr;
  for (const auto& s : r.stages)
    for (const auto& g : s.kernels) {
      const std::string& l = g.label;
      if (l.find("CUDAFunctor_add<float>") != std::string::npos) add = &g;
      if (l.find("AbsFunctor<float>") != std::string::npos) abs = &g;
      if (g.launch.grid[0] == 256 && g.signature.find("MaxNanFunctor") != std::string::npos) max = &g;
      if (g.launch.grid[0] == 256 && g.signature.find("MeanOps") != std::string::npos) mean = &g;
      if (l.find("normal_and_transform<float") != std::string::npos) nf = &g;
      if (l.find("normal_and_transform<BFloat16") != std::string::npos) nbf = &g;
    }
  for (const KernelGroup* g : {add, abs, max, mean, nf, nbf}) ASSERT_NE(g, nullptr);
  EXPECT_EQ(add->launch.grid, abs->launch.grid);
  EXPECT_EQ(add->duration_ns.count, 3u);  // launches 4, 10, 15
  EXPECT_EQ(abs->duration_ns.count, 4u);  // launches 5, 13, 16, 17
  // Each carries its own launch's counters: the add (two inputs) runs 44 us, the abs 31 us (ncu's basic set).
  ASSERT_TRUE(add->metrics.duration_ns && abs->metrics.duration_ns && add->metrics.dram_throughput_pct &&
              abs->metrics.dram_throughput_pct);
  EXPECT_GT(*add->metrics.duration_ns, 1.3 * *abs->metrics.duration_ns);
  EXPECT_NE(*add->metrics.dram_throughput_pct, *abs->metrics.dram_throughput_pct);
  EXPECT_NE(*max->metrics.duration_ns, *mean->metrics.duration_ns);
  EXPECT_NE(max->label, mean->label);
  EXPECT_NE(nf->signature, nbf->signature);
  EXPECT_EQ(nf->launch.grid, nbf->launch.grid);
  try {
    import_ncu_files({dir + "raw.csv", dir + "details_other_run_head.csv"});
    ADD_FAILURE() << "two runs' pages were merged";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("the pages come from different runs"), std::string::npos) << e.what();
  }
}
