#include <gtest/gtest.h>

#include <algorithm>

#include "collect/ncu/canonical.hpp"
#include "collect/ncu/details_page.hpp"
#include "collect/ncu/raw_page.hpp"
#include "ncu_test_support.hpp"

using namespace kprof;
using namespace kprof::ncu;
using kprof::test::probe_fixture;

namespace {
const LaunchPage& full_raw() {
  static const LaunchPage p = parse_raw_page(read_csv_stream(probe_fixture("full_raw.csv")));
  return p;
}
CanonicalMetrics raw_id(int id) { return derive_canonical(full_raw().launches.at(id)); }
MetricValue num(double x) { return MetricValue{x, "", "", true}; }
bool unavailable(const CanonicalMetrics& c, const std::string& f) {
  return std::find(c.unavailable.begin(), c.unavailable.end(), f) != c.unavailable.end();
}
}  // namespace

TEST(NcuCanonical, CopyFromFullRawPage) {
  CanonicalMetrics c = raw_id(5);  // copy_f4
  EXPECT_NEAR(*c.duration_ns, 536672, 1e-6);
  EXPECT_DOUBLE_EQ(*c.dram_throughput_pct, 82.352146);
  EXPECT_EQ(c.provenance.at("dram_throughput_pct"), "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
  EXPECT_DOUBLE_EQ(*c.memory_throughput_pct, 82.352146);
  EXPECT_DOUBLE_EQ(*c.sm_throughput_pct, 6.006983);
  // dram__bytes.sum is not in the full set: read 1.073780 + write 1.052746 Gbyte.
  EXPECT_NEAR(*c.dram_bytes, 2.126526e9, 1);
  EXPECT_EQ(c.provenance.at("dram_bytes"), "dram__bytes_read.sum + dram__bytes_write.sum");
  EXPECT_NEAR(*c.l2_bytes, 104046382.0 * 32, 1e-3);  // lts__t_sectors.sum x 32
  EXPECT_DOUBLE_EQ(*c.l2_hit_pct, 51.618740);
  EXPECT_DOUBLE_EQ(*c.waves_per_sm, 1);
  EXPECT_DOUBLE_EQ(*c.grid_size, 1056);
  EXPECT_DOUBLE_EQ(*c.block_size, 256);
  EXPECT_DOUBLE_EQ(*c.registers_per_thread, 16);
  EXPECT_DOUBLE_EQ(*c.theoretical_occupancy_pct, 100);
  EXPECT_NEAR(*c.sm_clock_hz, 1.973276e9, 1);  // "1.973276" Ghz
  EXPECT_DOUBLE_EQ(*c.flops_fp32, 0);
  EXPECT_TRUE(c.unavailable.empty());
}

TEST(NcuCanonical, FmaLoopFp32FlopsFromPerCycleRates) {
  // fma_loop ID 6: 132*8 blocks x 256 threads x 20000 iterations x 4 FFMA x 2 FLOP = 4.3254e10 (probe_kernels.cu).
  // The full set has only per-cycle rates: (fadd 0.398385 + fmul 0.265590 + 2 x ffma 10623.603450)
  // x smsp__cycles_elapsed.avg 2035738.636364.
  CanonicalMetrics c = raw_id(6);
  const double expected = (0.398385 + 0.265590 + 2 * 10623.603450) * 2035738.636364;
  EXPECT_NEAR(*c.flops_fp32, expected, 1);
  EXPECT_NEAR(*c.flops_fp32, 132.0 * 8 * 256 * 20000 * 4 * 2, 132.0 * 8 * 256 * 20000 * 4 * 2 * 1e-3);
  EXPECT_NE(c.provenance.at("flops_fp32").find("smsp__cycles_elapsed.avg"), std::string::npos);
  EXPECT_EQ(c.dominant_precision(), "fp32");
  // The second fma_loop launch family: 66 blocks, fewer waves than one.
  CanonicalMetrics c10 = raw_id(10);
  EXPECT_DOUBLE_EQ(*c10.waves_per_sm, 0.06);
  EXPECT_DOUBLE_EQ(*c10.grid_size, 66);
  EXPECT_DOUBLE_EQ(*c10.achieved_occupancy_pct, 12.499916);
  EXPECT_NEAR(*c10.flops_fp32, 66.0 * 256 * 200000 * 4 * 2, 66.0 * 256 * 200000 * 4 * 2 * 1e-3);
}

TEST(NcuCanonical, WmmaGemmTensorFlops) {
  // wmma_gemm ID 8: 4096^3 bf16 GEMM; sm__ops_path_tensor_src_bf16_dst_fp32.sum = 137,438,953,472 = 2*4096^3,
  // so the .sum already counts FLOPs (one FMA = 2).
  CanonicalMetrics c = raw_id(8);
  EXPECT_DOUBLE_EQ(*c.flops_tensor, 2.0 * 4096 * 4096 * 4096);
  EXPECT_EQ(c.tensor_precision, "bf16");
  EXPECT_DOUBLE_EQ(*c.tensor_pipe_pct, 4.672657);
  EXPECT_DOUBLE_EQ(*c.flops_fp32, 0);
  EXPECT_EQ(c.dominant_precision(), "bf16");
  EXPECT_DOUBLE_EQ(*c.theoretical_occupancy_pct, 75);
}

TEST(NcuCanonical, TensorOpFamilyWhenSourceFamilyIsAbsent) {
  KernelLaunch k;
  k.metrics["sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum"] = MetricValue{1000, "", "", true};
  k.metrics["sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum"] = MetricValue{24, "", "", true};
  k.metrics["sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum.per_second"] = MetricValue{9e9, "", "", true};
  CanonicalMetrics c = derive_canonical(k);
  EXPECT_DOUBLE_EQ(*c.flops_tensor, 1024);
  EXPECT_EQ(c.tensor_precision, "fp16");
}

// A capture may hold tensor ops per instruction (HGMMA by precision, dense HMMA) beside the totals of other
// precisions (FP8, FP64): per precision, a total where present, else its parts.
TEST(NcuCanonical, TensorOpsPerPrecisionFromTotalsAndParts) {
  KernelLaunch k;
  k.metrics["sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"] = num(1000);
  k.metrics["sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum"] = num(24);
  k.metrics["sm__ops_path_tensor_op_hgmma_src_fp16.sum"] = num(0);
  k.metrics["sm__ops_path_tensor_op_igmma_src_int8.sum"] = num(0);
  k.metrics["sm__ops_path_tensor_src_fp8.sum"] = num(4000);
  k.metrics["sm__ops_path_tensor_src_fp64.sum"] = num(0);
  CanonicalMetrics c = derive_canonical(k);
  EXPECT_DOUBLE_EQ(*c.flops_tensor, 5024);
  EXPECT_EQ(c.tensor_precision, "fp8");
  // A total of a precision wins over its parts (a raw page of `--set full` may hold both).
  k.metrics["sm__ops_path_tensor_src_bf16_dst_fp32.sum"] = num(2000);
  k.metrics["sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum"] = num(24);
  c = derive_canonical(k);
  EXPECT_DOUBLE_EQ(*c.flops_tensor, 6000);
  EXPECT_EQ(c.provenance["flops_tensor"], "sum of sm__ops_path_tensor_src_*.sum + sm__ops_path_tensor_op_*.sum");
}

// Matrix instructions on the tensor pipe whose precision was not collected (here: HMMA with FP16 accumulation,
// counted by neither the dense BF16/FP16→FP32/TF32 parts nor a total): tensor FLOPs are absent, not 0.
TEST(NcuCanonical, TensorFlopsAbsentWhenTheBusyPrecisionWasNotCollected) {
  KernelLaunch k;
  k.metrics["sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active"] = num(23.5);
  k.metrics["sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"] = num(0);
  k.metrics["sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum"] = num(0);
  k.metrics["sm__ops_path_tensor_src_fp8.sum"] = num(0);
  CanonicalMetrics c = derive_canonical(k);
  EXPECT_FALSE(c.flops_tensor.has_value());
  EXPECT_NE(std::find(c.unavailable.begin(), c.unavailable.end(), "flops_tensor"), c.unavailable.end());
  EXPECT_NE(c.provenance["flops_tensor"].find("not counted"), std::string::npos);
  // With the totals collected a zero is a zero (the pipe's reading is then something else).
  for (const char* t : {"bf16_dst_fp32", "fp16", "tf32_dst_fp32"})
    k.metrics[std::string("sm__ops_path_tensor_src_") + t + ".sum"] = num(0);
  c = derive_canonical(k);
  ASSERT_TRUE(c.flops_tensor.has_value());
  EXPECT_DOUBLE_EQ(*c.flops_tensor, 0);
  // IMMA busy with no IMMA count: absent as well.
  KernelLaunch i;
  i.metrics["sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active"] = num(0);
  i.metrics["sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active"] = num(13.55);
  i.metrics["sm__ops_path_tensor_src_bf16_dst_fp32.sum"] = num(0);
  c = derive_canonical(i);
  EXPECT_FALSE(c.flops_tensor.has_value());
  i.metrics["sm__ops_path_tensor_op_igmma_src_int8.sum"] = num(0);  // warpgroup INT8 is not IMMA
  c = derive_canonical(i);
  EXPECT_FALSE(c.flops_tensor.has_value());
  i.metrics["sm__ops_path_tensor_op_imma_src_int8.sum"] = num(0);
  c = derive_canonical(i);
  EXPECT_TRUE(c.flops_tensor.has_value());
}

// The annotation list asks for the components of the three throughput breakdowns (they cost the CUPTI pass ~70 ms a
// kernel on the H200): the maxima stand in for them. Memory's and L1's breakdowns, present, still win; L2 reads its
// components in every mode (lts__throughput also follows DRAM traffic), the breakdown only without them.
TEST(NcuCanonical, ThroughputsFromTheirComponentsWithoutTheBreakdowns) {
  auto pct = [](double v) { return MetricValue{v, "%", "", true}; };
  KernelLaunch k;
  const std::string a = ".avg.pct_of_peak_sustained_active", e = ".avg.pct_of_peak_sustained_elapsed";
  const char* l1[] = {"l1tex__data_pipe_lsu_wavefronts", "l1tex__m_l1tex2xbar_req_cycles_active",
                      "l1tex__texin_sm2tex_req_cycles_active"};
  const double l1_active[] = {97.8, 20.1, 0}, l1_elapsed[] = {96.5, 19.8, 0};
  for (int i = 0; i < 3; ++i) {
    k.metrics[l1[i] + a] = pct(l1_active[i]);
    k.metrics[l1[i] + e] = pct(l1_elapsed[i]);
  }
  k.metrics["dram__cycles_active" + e] = pct(12.0);
  k.metrics["lts__xbar2lts_cycles_active" + e] = pct(18.0);
  k.metrics["lts__t_tag_requests" + e] = pct(19.5);
  k.metrics["lts__lts2xbar_cycles_active" + e] = pct(17.0);
  k.metrics["lts__t_sectors" + e] = pct(16.0);
  k.metrics["lts__d_sectors" + e] = pct(15.0);
  CanonicalMetrics c = derive_canonical(k);
  EXPECT_DOUBLE_EQ(*c.l1_throughput_pct, 97.8);  // the active forms
  EXPECT_NE(c.provenance.at("l1_throughput_pct").find("components of l1tex__throughput"), std::string::npos);
  EXPECT_DOUBLE_EQ(*c.memory_throughput_pct, 96.5);  // the L1 data pipe over elapsed cycles is the largest
  EXPECT_DOUBLE_EQ(*c.l2_throughput_pct, 19.5);      // the tag requests
  // Only the elapsed L1 components: scaled to active cycles by the SMs' elapsed/active cycles.
  for (const char* m : l1) k.metrics.erase(m + a);
  k.metrics["sm__cycles_elapsed.avg"] = MetricValue{1000, "cycle", "", true};
  k.metrics["sm__cycles_active.avg"] = MetricValue{800, "cycle", "", true};
  EXPECT_DOUBLE_EQ(*derive_canonical(k).l1_throughput_pct, 96.5 * 1000 / 800);
  // The breakdowns, when present, are read as they are.
  k.metrics["l1tex__throughput" + a] = pct(99.0);
  k.metrics["gpu__compute_memory_throughput" + e] = pct(97.0);
  k.metrics["lts__throughput" + e] = pct(31.0);
  c = derive_canonical(k);
  EXPECT_DOUBLE_EQ(*c.l1_throughput_pct, 99.0);
  EXPECT_DOUBLE_EQ(*c.memory_throughput_pct, 97.0);
  EXPECT_DOUBLE_EQ(*c.l2_throughput_pct, 19.5);
  for (const char* m : {"lts__t_sectors", "lts__d_sectors", "lts__t_tag_requests"}) k.metrics.erase(m + e);
  EXPECT_DOUBLE_EQ(*derive_canonical(k).l2_throughput_pct, 31.0);  // two components left: the breakdown
  // Too few components, or memory's without DRAM's: nothing is made up.
  KernelLaunch sparse;
  sparse.metrics["lts__t_sectors" + e] = pct(40.0);
  for (const char* m : {"lts__xbar2lts_cycles_active", "lts__t_tag_requests", "lts__lts2xbar_cycles_active"})
    sparse.metrics[m + e] = pct(10.0);
  for (const char* m : l1) sparse.metrics[m + e] = pct(5.0);
  c = derive_canonical(sparse);
  EXPECT_DOUBLE_EQ(*c.l2_throughput_pct, 40.0);
  EXPECT_FALSE(c.memory_throughput_pct.has_value());
  EXPECT_FALSE(c.l1_throughput_pct.has_value());
}

TEST(NcuCanonical, SpillKernelLocalMemory) {
  // spill_kernel ID 9: a 1 KiB local array indexed at run time. Local traffic without register spills.
  CanonicalMetrics c = raw_id(9);
  EXPECT_DOUBLE_EQ(*c.local_memory_bytes, (8386208.0 + 33551640.0) * 32);
  EXPECT_DOUBLE_EQ(*c.local_memory_instructions, 2097152.0 * 2);
  EXPECT_DOUBLE_EQ(*c.spill_requests, 0);
  EXPECT_GT(*c.local_memory_bytes, 0);
}

TEST(NcuCanonical, QuickRunCountsAndUnavailableFields) {
  LaunchPage q = parse_details_page(read_csv_stream(probe_fixture("quick.csv")));
  CanonicalMetrics c = derive_canonical(q.launches.at(6));  // fma_loop, 1,056 blocks
  // sm__sass_thread_inst_executed_op_ffma_pred_on.sum = 21,626,880,000 FFMA (fadd/fmul not collected).
  EXPECT_DOUBLE_EQ(*c.flops_fp32, 2 * 21626880000.0);
  EXPECT_EQ(c.provenance.at("flops_fp32"),
            "2*sm__sass_thread_inst_executed_op_ffma_pred_on.sum (fadd, fmul not collected)");
  EXPECT_DOUBLE_EQ(*c.duration_ns, 1026656);
  EXPECT_DOUBLE_EQ(*c.grid_size, 1056);  // from the Grid Size column
  EXPECT_EQ(c.provenance.at("grid_size"), "Grid Size column");
  EXPECT_TRUE(unavailable(c, "waves_per_sm"));
  EXPECT_TRUE(unavailable(c, "flops_tensor"));
  EXPECT_TRUE(unavailable(c, "local_memory_bytes"));
  EXPECT_FALSE(unavailable(c, "dram_bytes"));
  EXPECT_FALSE(c.flops_fp64.has_value());
}

TEST(NcuCanonical, DetailsLabelsAsFallback) {
  LaunchPage d = parse_details_page(read_csv_stream(probe_fixture("full_details.csv")));
  CanonicalMetrics c = derive_canonical(d.launches.at(6));
  EXPECT_NEAR(*c.duration_ns, 1.03e6, 1e-6);  // "Duration","ms","1.03"
  EXPECT_EQ(c.provenance.at("duration_ns"), "details: GPU Speed Of Light Throughput / Duration");
  EXPECT_DOUBLE_EQ(*c.achieved_occupancy_pct, 57.52);
  EXPECT_DOUBLE_EQ(*c.sm_throughput_pct, 67.82);
  EXPECT_DOUBLE_EQ(*c.l2_hit_pct, 97.45);
  EXPECT_DOUBLE_EQ(*c.waves_per_sm, 1);
  EXPECT_DOUBLE_EQ(*c.registers_per_thread, 16);
  EXPECT_TRUE(unavailable(c, "flops_fp32"));
}

// The FMA pipe reads the average of its two sub-pipes; integer multiply-adds run on the heavy one only. A 64-bit
// div/mod index kernel on the H200 (set 7's int_index_math): FMA 35.5% active, fmaheavy 70.7% and the lite sub-pipe
// idle over elapsed cycles: the pipe's work is integer and the heavy sub-pipe's reading is the FMA pipe's.
TEST(NcuCanonical, IntegerWorkOnTheFmaPipeReadsTheHeavySubPipe) {
  KernelLaunch k;
  k.metrics["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"] = MetricValue{35.47, "", "", true};
  k.metrics["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"] = MetricValue{35.37, "", "", true};
  k.metrics["sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed"] = MetricValue{70.74, "", "", true};
  CanonicalMetrics c = derive_canonical(k);
  EXPECT_NEAR(*c.fma_integer_share, 1.0, 1e-9);
  EXPECT_NEAR(*c.fma_pipe_pct, 35.47 * 70.74 / 35.37, 1e-9);
  // FP32 work spreads over both sub-pipes: a heavy reading a little above the average leaves the average.
  k.metrics["sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed"] = MetricValue{40.0, "", "", true};
  c = derive_canonical(k);
  EXPECT_LT(*c.fma_integer_share, 0.5);
  EXPECT_DOUBLE_EQ(*c.fma_pipe_pct, 35.47);
  // Without the sub-pipe counter (captures older than the annotation list that counts it): from the instruction
  // counts.
  k.metrics.erase("sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed");
  k.metrics["sm__thread_inst_executed_pipe_fma_pred_on.sum"] = MetricValue{5.85e9, "", "", true};
  k.metrics["sm__thread_inst_executed_pipe_fma_type_fp16_pred_on.sum"] = MetricValue{0, "", "", true};
  k.metrics["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"] = MetricValue{0, "", "", true};
  k.metrics["smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"] = MetricValue{0, "", "", true};
  k.metrics["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] = MetricValue{0, "", "", true};
  c = derive_canonical(k);
  ASSERT_TRUE(c.flops_fp32.has_value());
  EXPECT_NEAR(*c.fma_integer_share, 1.0, 1e-9);
  EXPECT_NEAR(*c.fma_pipe_pct, 2 * 35.47, 1e-9);
  // Three quarters of it integer: the heavy sub-pipe carries (1 + 0.75) times the average.
  k.metrics["sm__thread_inst_executed_pipe_fma_pred_on.sum"] = MetricValue{4e9, "", "", true};
  k.metrics["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"] = MetricValue{1e9, "", "", true};
  c = derive_canonical(k);
  EXPECT_NEAR(*c.fma_integer_share, 0.75, 1e-9);
  EXPECT_NEAR(*c.fma_pipe_pct, 1.75 * 35.47, 1e-9);
  // The annotation list's own sub-pipe counter over active cycles wins over the estimate.
  k.metrics["sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active"] = MetricValue{70.9, "", "", true};
  c = derive_canonical(k);
  EXPECT_NEAR(*c.fma_integer_share, (70.9 - (2 * 35.47 - 70.9)) / (70.9 + (2 * 35.47 - 70.9)), 1e-9);
  EXPECT_NEAR(*c.fma_pipe_pct, 70.9, 1e-9);
}

// FP64 matrix instructions run on the tensor datapath (DMMA), not on the FP64 vector pipe: cuBLAS's DGEMM on the
// H200 reads 0.05% on sm__pipe_fp64 and 97.7% on DMMA. The FP64 pipe is the busier of the two.
TEST(NcuCanonical, Fp64MatrixInstructionsAreFp64PipeWork) {
  KernelLaunch k;
  k.metrics["sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active"] = MetricValue{0.05, "", "", true};
  k.metrics["sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active"] = MetricValue{97.71, "", "", true};
  k.metrics["sm__ops_path_tensor_src_fp64.sum"] = MetricValue{137438953472.0, "", "", true};
  CanonicalMetrics c = derive_canonical(k);
  EXPECT_DOUBLE_EQ(*c.fp64_pipe_pct, 97.71);
  EXPECT_EQ(c.tensor_precision, "fp64");
  EXPECT_EQ(c.dominant_precision(), "fp64_tensor");
}

// Integer matrix instructions (IMMA) are tensor-pipe work the HMMA-type counter leaves out: cuBLAS's int8 GEMM on
// the H200 (an SM80 WMMA fallback) reads 0% there and 13.55% on IMMA.
TEST(NcuCanonical, IntegerMatrixInstructionsAreTensorPipeWork) {
  KernelLaunch k;
  k.metrics["sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active"] =
      MetricValue{0.0, "", "", true};
  k.metrics["sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active"] = MetricValue{13.55, "", "", true};
  CanonicalMetrics c = derive_canonical(k);
  EXPECT_DOUBLE_EQ(*c.tensor_pipe_pct, 13.55);
  EXPECT_TRUE(c.tensor_pipe_imma);
  k.metrics["sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active"] = MetricValue{0.0, "", "", true};
  c = derive_canonical(k);
  EXPECT_DOUBLE_EQ(*c.tensor_pipe_pct, 0.0);
  EXPECT_FALSE(c.tensor_pipe_imma);
}
