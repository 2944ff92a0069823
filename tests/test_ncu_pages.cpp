#include <gtest/gtest.h>

#include <set>

#include "collect/kernel_name.hpp"

#include "collect/ncu/details_page.hpp"
#include "collect/ncu/launch_columns.hpp"
#include "collect/nvtx_path.hpp"
#include "collect/ncu/raw_page.hpp"
#include "collect/ncu/session_page.hpp"
#include "collect/ncu/source_page.hpp"
#include "ncu_test_support.hpp"

using namespace kprof;
using namespace kprof::ncu;
using kprof::test::expect_parse_error;
using kprof::test::probe_fixture;

namespace {
const KernelLaunch& by_id(const LaunchPage& p, int id) {
  for (const auto& k : p.launches)
    if (k.id == id) return k;
  throw std::runtime_error("no launch " + std::to_string(id));
}
double metric(const KernelLaunch& k, const std::string& name) {
  auto it = k.metrics.find(name);
  if (it == k.metrics.end()) throw std::runtime_error("no metric " + name);
  return it->second.value;
}
}  // namespace

TEST(NcuLaunchColumns, FunctionNameFromSignature) {
  EXPECT_EQ(function_base_name("fma_loop(float *, int)"), "fma_loop");
  EXPECT_EQ(function_base_name("void ns::k<int, 2>(float*)"), "k");
  EXPECT_EQ(function_base_name("kernel"), "kernel");
  EXPECT_EQ(function_base_name("_Z8fma_loopPfi"), "_Z8fma_loopPfi");
  EXPECT_EQ(function_base_name("void cutlass::Kernel<Op<(int)1>>(Op<(int)1>::Params)"), "Kernel");
  EXPECT_EQ(function_base_name("(anonymous namespace)::tile(int)"), "tile");
  EXPECT_EQ(function_base_name("wmma_gemm(const __nv_bfloat16 *, const __nv_bfloat16 *, float *, int, int, int)"),
            "wmma_gemm");
}

// torch.cumsum on the H200 (tests/fixtures/h200-corpus/holdout/ncu, launch 16): CUB pushes its own range, in
// domain "CCCL" with a registered message that holds ':' too, inside the user's range. The stage is the user's.
TEST(NcuLaunchColumns, ALibraryRangeInItsOwnDomainDoesNotNameTheStage) {
  const std::string cell =
      "1091  \"<default domain>:cumsum_f32:none:none:none:none:none:none\"  "
      "\"CCCL:cub::DeviceScan::InclusiveScan:none:none:none:none:REGISTERED:cub::DeviceScan::InclusiveScan\" ";
  std::vector<bool> in_default;
  auto r = parse_nvtx_ranges(cell, &in_default);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], "cumsum_f32");
  EXPECT_EQ(r[1], "cub::DeviceScan::InclusiveScan");  // not "...InclusiveScan:none:none:none:none"
  EXPECT_EQ(in_default, (std::vector<bool>{true, false}));
  EXPECT_EQ(stage_range_index(in_default), 0);
  // Only library ranges: the innermost names the stage; an empty stack names none.
  EXPECT_EQ(stage_range_index({false, false}), 1);
  EXPECT_EQ(stage_range_index({true, false, true, false}), 2);
  EXPECT_EQ(stage_range_index({}), -1);
}

TEST(NcuLaunchColumns, NvtxRangesAndDims) {
  // As printed in full_raw.csv for ID 5 (copy_f4).
  auto r = parse_nvtx_ranges("756  \"<default domain>:stage_copy:none:none:none:none:none:none\" ");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "stage_copy");
  // Nested: outermost first, innermost last; a ':' inside a range name survives.
  auto n = parse_nvtx_ranges(
      "9 \"<default domain>:outer:none:none:none:none:none:none\" \"dom:a:b:none:none:none:none:none:none\"");
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[0], "outer");
  EXPECT_EQ(n[1], "a:b");
  EXPECT_TRUE(parse_nvtx_ranges("").empty());
  auto d = parse_dim3("(256, 1, 1)");
  ASSERT_TRUE(d);
  EXPECT_EQ((*d)[0], 256);
  EXPECT_EQ((*parse_dim3("(128, 128, 1)"))[1], 128);
  EXPECT_FALSE(parse_dim3("(1, x, 1)"));
  EXPECT_FALSE(parse_dim3("(1, 2, 3, 4)"));
}

TEST(NcuRawPage, FullRawPage) {
  LaunchPage p = parse_raw_page(read_csv_stream(probe_fixture("full_raw.csv")));
  ASSERT_EQ(p.launches.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(p.launches[i].id, i);
  const KernelLaunch& copy = by_id(p, 5);
  EXPECT_EQ(copy.function, "copy_f4");
  EXPECT_EQ(copy.nvtx_range, "stage_copy");
  ASSERT_TRUE(copy.duration_ns);
  EXPECT_NEAR(*copy.duration_ns, 536672, 1e-6);  // gpu__time_duration.sum "0.536672" ms
  EXPECT_EQ(copy.metrics.at("gpu__time_duration.sum").unit, "ns");
  EXPECT_DOUBLE_EQ(metric(copy, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"), 82.352146);
  EXPECT_NEAR(metric(copy, "dram__bytes_read.sum"), 1.073780e9, 1);  // "1.073780" Gbyte
  EXPECT_NEAR(metric(copy, "dram__bytes.sum.per_second"), 3.962432e12, 1);  // "3.962432" Tbyte/s
  EXPECT_EQ(copy.metrics.at("dram__bytes.sum.per_second").unit, "byte/s");
  EXPECT_NEAR(metric(copy, "launch__shared_mem_per_block"), 1024, 1e-9);  // "1.024000" Kbyte/block
  EXPECT_EQ(copy.launch.grid[0], 1056);
  EXPECT_EQ(copy.launch.block[0], 256);
  EXPECT_EQ(copy.launch.registers_per_thread, 16);
  EXPECT_EQ(copy.stream, 7);
  // Non-numeric and missing values.
  EXPECT_FALSE(copy.metrics.at("launch__cluster_scheduling_policy").numeric);
  EXPECT_EQ(copy.metrics.at("launch__cluster_scheduling_policy").text, "PolicySpread");
  EXPECT_EQ(copy.metrics.count("sass__inst_executed_register_spilling_mem_local"), 0u);  // "no data"
  EXPECT_EQ(copy.metrics.count("derived_tempMetric4"), 0u);                              // "nan"
  // The two under-filled fma_loop launches on their own streams.
  EXPECT_EQ(by_id(p, 10).launch.grid[0], 66);
  EXPECT_EQ(by_id(p, 10).stream, 23);
  EXPECT_EQ(by_id(p, 11).stream, 24);
  EXPECT_EQ(by_id(p, 11).nvtx_range, "stage_concurrent");
  EXPECT_EQ(by_id(p, 9).nvtx_range, "");  // spill_kernel runs outside any range
  EXPECT_EQ(p.contexts[0].process_name, "kernels");
  EXPECT_EQ(p.contexts[0].pid, 756);
  EXPECT_EQ(p.contexts[0].compute_capability, "9.0");
}

TEST(NcuDetailsPage, SectionsMetricsAndRules) {
  LaunchPage p = parse_details_page(read_csv_stream(probe_fixture("full_details.csv")));
  ASSERT_EQ(p.launches.size(), 12u);
  const KernelLaunch& fma = by_id(p, 6);
  EXPECT_EQ(fma.function, "fma_loop");
  EXPECT_EQ(fma.nvtx_range, "stage_fma");
  // "GPU Speed Of Light Throughput","Duration","ms","1.03"
  ASSERT_TRUE(fma.duration_ns);
  EXPECT_NEAR(*fma.duration_ns, 1.03e6, 1e-6);
  const SectionMetric* achieved = nullptr;
  for (const auto& s : fma.sections)
    if (s.section == "Occupancy" && s.name == "Achieved Occupancy") achieved = &s;
  ASSERT_NE(achieved, nullptr);
  EXPECT_DOUBLE_EQ(*achieved->value, 57.52);
  EXPECT_EQ(achieved->unit, "%");
  const RuleResult* occ = nullptr;
  const RuleResult* dispatch = nullptr;
  for (const auto& r : fma.rules) {
    if (r.name == "AchievedOccupancy") occ = &r;
    if (r.name == "CPIStall" && r.description.find("dispatch stall") != std::string::npos) dispatch = &r;
  }
  ASSERT_NE(occ, nullptr);
  EXPECT_EQ(occ->type, "OPT");
  EXPECT_EQ(occ->section, "Occupancy");
  EXPECT_EQ(occ->speedup_type, "local");
  EXPECT_DOUBLE_EQ(*occ->speedup_pct, 42.48);
  ASSERT_NE(dispatch, nullptr);
  EXPECT_EQ(dispatch->speedup_type, "local");
  EXPECT_DOUBLE_EQ(*dispatch->speedup_pct, 30.47);
  // Rule without a speedup (INF) keeps speedup empty.
  for (const auto& r : fma.rules)
    if (r.name == "SOLFPRoofline") {
      EXPECT_FALSE(r.speedup_pct.has_value());
    }
  // The L2 compression rule's tiny speedup "4.858e-05".
  bool found = false;
  for (const auto& r : fma.rules)
    if (r.name == "MemoryL2Compression") { found = true; EXPECT_DOUBLE_EQ(*r.speedup_pct, 4.858e-05); }
  EXPECT_TRUE(found);
}

TEST(NcuDetailsPage, LiveMetricsRunLongFormat) {
  LaunchPage p = parse_details_page(read_csv_stream(probe_fixture("quick.csv")));
  ASSERT_EQ(p.launches.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(p.launches[i].id, i);
  const KernelLaunch& init = by_id(p, 0);
  EXPECT_EQ(init.function, "init_f");
  EXPECT_TRUE(init.sections.empty());  // raw metric names go to metrics, not sections
  EXPECT_EQ(init.metrics.size(), 8u);
  EXPECT_DOUBLE_EQ(metric(init, "dram__bytes.sum"), 1046904576);  // "1,046,904,576" byte
  ASSERT_TRUE(init.duration_ns);
  EXPECT_DOUBLE_EQ(*init.duration_ns, 418368);  // "418,368" ns
  EXPECT_DOUBLE_EQ(metric(by_id(p, 10), "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"), 13516800000.0);
  EXPECT_EQ(p.program_output.size(), 5u);
  EXPECT_EQ(p.profiler_messages.size(), 3u);
  EXPECT_EQ(p.contexts[0].pid, 1442);
}

TEST(NcuSourcePage, CudaLinesWithSassUnderThem) {
  SourceView v = parse_source_page(read_csv_stream(probe_fixture("source_wmma.csv")));
  ASSERT_EQ(v.kernels.size(), 1u);
  const SourceKernel& k = v.kernels[0];
  EXPECT_EQ(k.function, "wmma_gemm");
  ASSERT_EQ(k.files.size(), 2u);
  EXPECT_EQ(k.files[0].path, "/usr/local/cuda/targets/x86_64-linux/include/crt/mma.hpp");
  EXPECT_EQ(k.files[1].path, "/src/probe_kernels.cu");
  ASSERT_EQ(k.files[0].lines.size(), 4u);  // lines 163, 175, 474, 717
  const SourceLine& l163 = k.files[0].lines[0];
  EXPECT_EQ(l163.line, 163);
  EXPECT_EQ(k.value(l163.counters, kStallSamplesColumn), 128365);
  EXPECT_EQ(l163.counters.text.at("Address Space"), "Global(16)");
  EXPECT_EQ(l163.sass.size(), 45u);  // SASS rows under line 163: ncu lists the 45 twice, "..." rows skipped
  EXPECT_EQ(l163.sass[0].address, "0x7fb31b7a9640");
  EXPECT_EQ(l163.sass[0].sass, "S2R R11, SR_LANEID");
  EXPECT_EQ(k.value(l163.sass[0].counters, kStallSamplesColumn), 56);
  EXPECT_EQ(k.files[1].lines.size(), 9u);  // probe_kernels.cu lines 30..43
  // Hottest line: mma.hpp:717 (the HMMA), 274586 of 593208 samples over all 13 lines.
  auto hot = hottest_lines(v, 3, "wmma_gemm");
  ASSERT_EQ(hot.size(), 3u);
  EXPECT_EQ(hot[0].line, 717);
  EXPECT_EQ(hot[0].file, "/usr/local/cuda/targets/x86_64-linux/include/crt/mma.hpp");
  EXPECT_DOUBLE_EQ(hot[0].samples, 274586);
  EXPECT_NEAR(hot[0].share_pct, 274586.0 / 593208 * 100, 1e-9);
  EXPECT_EQ(hot[1].line, 163);
  EXPECT_EQ(hot[2].line, 175);
  EXPECT_TRUE(hottest_lines(v, 3, "no_such_kernel").empty());
}

// ncu's export lists the instructions of a loop line twice under it (H200, copy_f4 line 12: 31 instructions, then
// "...", then the same 31 again); each is kept once, so the line's SASS samples add up to the line's.
TEST(NcuSourcePage, InstructionsListedTwiceUnderALineAreKeptOnce) {
  SourceView v = parse_source_page(
      read_csv_stream(std::string(KPROF_SOURCE_DIR) + "/examples/h200/profiles/ncu_probe/ncu/ncu_source.csv"));
  const SourceKernel* copy = nullptr;
  for (const auto& k : v.kernels) {
    for (const auto& f : k.files)
      for (const auto& l : f.lines) {
        std::set<std::string> seen;
        for (const auto& ins : l.sass) EXPECT_TRUE(seen.insert(ins.address).second) << k.function << ":" << l.line;
      }
    if (k.function == "copy_f4") copy = &k;
  }
  ASSERT_NE(copy, nullptr);
  ASSERT_EQ(copy->files.size(), 1u);
  const SourceLine* l12 = nullptr;
  for (const auto& l : copy->files[0].lines)
    if (l.line == 12) l12 = &l;
  ASSERT_NE(l12, nullptr);
  EXPECT_EQ(l12->sass.size(), 31u);
  double sum = 0;
  for (const auto& ins : l12->sass) sum += copy->value(ins.counters, kStallSamplesColumn).value_or(0);
  EXPECT_DOUBLE_EQ(sum, 65216);
  EXPECT_EQ(copy->value(l12->counters, kStallSamplesColumn), 65216);
}

TEST(NcuSourcePage, SassOnly) {
  SourceView v = parse_source_page(read_csv_stream(probe_fixture("source_spill_sass.csv")));
  ASSERT_EQ(v.kernels.size(), 2u);  // ncu printed the spill_kernel block twice
  const SourceKernel& k = v.kernels[0];
  EXPECT_EQ(k.function, "spill_kernel");
  EXPECT_TRUE(k.files.empty());
  ASSERT_EQ(k.sass.size(), 672u);
  EXPECT_EQ(k.columns.size(), 62u);  // 64 header fields minus Address and Source
  double best = 0;
  std::string best_sass;
  for (const auto& i : k.sass)
    if (auto s = k.value(i.counters, kStallSamplesColumn); s && *s > best) { best = *s; best_sass = i.sass; }
  EXPECT_DOUBLE_EQ(best, 5768);
  EXPECT_EQ(best_sass, "STL.128 [R1+0x10], R8");  // the local-array store
}

TEST(NcuSessionPage, DeviceAndCommandLine) {
  SessionInfo s = parse_session_page(read_csv_stream(probe_fixture("session.csv")));
  EXPECT_EQ(s.device_name, "NVIDIA H200");
  EXPECT_EQ(s.compute_capability, "9.0");
  EXPECT_EQ(s.sm_count, 132);
  EXPECT_EQ(s.ncu_version, "2025.3.1.0");
  EXPECT_EQ(s.cuda_version, "13.0");
  EXPECT_EQ(s.profiler_command_line.rfind("/opt/nvidia/nsight-compute/2025.3.1/", 0), 0u);
  EXPECT_NE(s.profiler_command_line.find("--set full"), std::string::npos);
  EXPECT_EQ(s.profiler_command_line.back(), '1');  // trailing space trimmed
  ASSERT_EQ(s.process_names.size(), 1u);
  EXPECT_EQ(s.process_names[0], "/home/user/probe/kernels");
}

TEST(NcuPages, MalformedTables) {
  const std::string header = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  expect_parse_error([&] { parse_details_page(split_csv_stream(header, "h.csv")); }, 1, "without data rows");
  expect_parse_error(
      [&] { parse_details_page(split_csv_stream(header + "\"0\",\"k(int)\",\"a__b\",\"ns\",\"1\",\"extra\"\n", "w.csv")); },
      2, "row has 6 fields but the header (line 1) has 5");
  expect_parse_error(
      [&] { parse_details_page(split_csv_stream(header + "\"zero\",\"k(int)\",\"a__b\",\"ns\",\"1\"\n", "i.csv")); }, 2,
      "launch ID \"zero\"");
  expect_parse_error([&] { parse_raw_page(split_csv_stream("\"a\",\"b\"\n\"1\",\"2\"\n", "n.csv")); }, 1,
                     "lacks the \"ID\" and \"Kernel Name\"");
  expect_parse_error(
      [&] { parse_raw_page(split_csv_stream("\"ID\",\"Kernel Name\",\"x__y\"\n\"\",\"\",\"ns\"\n", "u.csv")); }, 1,
      "without data rows");
  expect_parse_error([&] { parse_source_page(split_csv_stream("\"0x10\",\"NOP\"\n", "s.csv")); }, 1,
                     "before any");
}

// A hostile NVTX cell: one entry of 200 000 ':' (and one of "none:" repeated). The name/message split reads each
// field once (the first version built both joins for every split point: quadratic, minutes for a 1 MB cell); here
// only the result is checked, the time belongs to the fuzz runs (RESULTS §11).
TEST(NcuLaunchColumns, AHugeNvtxEntryParses) {
  std::string colons = "1 \"" + std::string(200000, ':') + "\"";
  std::string nones = "1 \"d:";
  for (int i = 0; i < 40000; ++i) nones += "none:";
  nones += "x\"";
  std::vector<bool> in_default;
  auto a = parse_nvtx_ranges(colons, &in_default);
  EXPECT_EQ(a.size(), in_default.size());
  ASSERT_EQ(a.size(), 1u);
  // 200 001 empty fields: no message type anywhere, so the trailing six are split off and fields 1..n-7 remain.
  EXPECT_EQ(a[0].size(), 200000u - 7u);
  EXPECT_EQ(a[0].find_first_not_of(':'), std::string::npos);
  auto b = parse_nvtx_ranges(nones, &in_default);
  ASSERT_EQ(b.size(), 1u);
  // The message ends in "x": never "none", never the name; again the trailing six fields split off.
  EXPECT_EQ(b[0].size(), 39995u * 5u - 1u);
  EXPECT_EQ(in_default, std::vector<bool>{false});
}
