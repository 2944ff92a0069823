// Issue 23: reasoning that does not cap real gains, stall reasons as causes, one cause stated the same way
// everywhere, verdicts judged for the kind of kernel, library kernels, and advice across kernels.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "shipped_thresholds.hpp"

#include "analyse_group.hpp"
#include "analyze/analyze_run.hpp"
#include "analyze/program_advice.hpp"
#include "analyze/rule_table.hpp"
#include "analyze/stall_reasons.hpp"
#include "analyze/timeline.hpp"
#include "datasheet_devices.hpp"
#include "render/contract_markdown.hpp"
#include "render/contract_view.hpp"
#include "render/devlog.hpp"
#include "render/report_markdown.hpp"

using namespace kprof;
using namespace kprof::analyze;

namespace {

KernelAnalysis analyse(const CanonicalMetrics& m, std::string kernel = "k") { return analyse_on_h200(m, {}, kernel); }

std::string first_fix(const KernelAnalysis& a) { return a.opportunities.empty() ? "none" : a.opportunities[0].remedy; }

const Opportunity* by_remedy(const std::vector<Opportunity>& ops, const std::string& remedy) {
  for (const auto& o : ops)
    if (o.remedy == remedy) return &o;
  return nullptr;
}

// A compute kernel on 8 blocks: the FMA pipe is 77% busy on the 8 active SMs.
CanonicalMetrics eight_blocks_fp32() {
  CanonicalMetrics m;
  m.duration_ns = 2e6;
  m.sm_throughput_pct = 77;
  m.memory_throughput_pct = 0.5;
  m.dram_throughput_pct = 0.1;
  m.fma_pipe_pct = 77;
  m.alu_pipe_pct = 10;
  m.issue_active_pct = 80;
  m.fma_pipe_instructions = 1e9;
  m.flops_fp32 = 2e9;
  m.grid_size = 8;
  m.block_size = 256;
  m.waves_per_sm = 8.0 / 132 / 8;
  m.achieved_occupancy_pct = 12;
  m.theoretical_occupancy_pct = 100;
  return m;
}

// Warps of a latency-bound kernel spending 93% of their waiting time at __syncthreads.
CanonicalMetrics barrier_bound() {
  CanonicalMetrics m;
  m.duration_ns = 1e6;
  m.sm_throughput_pct = 12;
  m.memory_throughput_pct = 8;
  m.dram_throughput_pct = 5;
  m.issue_active_pct = 10;
  m.fma_pipe_pct = 6;
  m.grid_size = 1056;
  m.block_size = 256;
  m.waves_per_sm = 1.0;
  m.achieved_occupancy_pct = 90;
  m.theoretical_occupancy_pct = 100;
  m.stalls = {{"barrier", 27.9}, {"long_scoreboard", 0.6}, {"wait", 0.8}, {"short_scoreboard", 0.2},
              {"math_pipe_throttle", 0.1}, {"lg_throttle", 0.0}, {"mio_throttle", 0.1}, {"membar", 0},
              {"sleeping", 0}, {"no_instruction", 0.2}, {"branch_resolving", 0.1}, {"selected", 1.0},
              {"not_selected", 0.2}};
  return m;
}

}  // namespace

// 8 blocks on 132 SMs: a per-SM pipe reading bounds nothing on the 124 idle SMs, so filling the GPU ranks first
// at the idle share, not at the pipe's 4% headroom (the issue's hidden program).
TEST(Advice, IdleSmsAreNotCappedByAPipeOfTheActiveOnes) {
  auto a = analyse(eight_blocks_fp32());
  EXPECT_EQ(a.bottleneck.cause, "grid_too_small");
  ASSERT_FALSE(a.opportunities.empty());
  EXPECT_EQ(a.opportunities[0].remedy, "grid_fill");
  EXPECT_GT(a.opportunities[0].est_gain_pct, 90.0);
  EXPECT_EQ(a.opportunities[0].rationale.find("headroom left by"), std::string::npos) << a.opportunities[0].rationale;
  // 66 blocks: half the GPU idle is worth about half the time.
  auto m = eight_blocks_fp32();
  m.grid_size = 66;
  auto b = analyse(m);
  ASSERT_FALSE(b.opportunities.empty());
  EXPECT_EQ(b.opportunities[0].remedy, "grid_fill");
  EXPECT_NEAR(b.opportunities[0].est_gain_pct, 50.0, 1.0);
}

// Removing a local array removes the integer instructions that address it: the integer pipe's headroom does not
// cap that fix, and no FMA or pipe advice leads.
TEST(Advice, AFixThatRemovesWorkIsNotCappedByThePipeThatWorkKeptBusy) {
  CanonicalMetrics m;
  m.duration_ns = 3e6;
  m.sm_throughput_pct = 70;
  m.memory_throughput_pct = 72;
  m.dram_throughput_pct = 20;
  m.l1_throughput_pct = 72;
  m.l2_throughput_pct = 40;
  m.alu_pipe_pct = 70;
  m.fma_pipe_pct = 30;
  m.issue_active_pct = 70;
  m.grid_size = 4096;
  m.block_size = 256;
  m.waves_per_sm = 3.9;
  m.local_memory_bytes = 8.8e9;
  m.l1_bytes = 10e9;
  m.local_memory_instructions = 2e8;
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "local_memory");
  ASSERT_FALSE(a.opportunities.empty());
  EXPECT_EQ(a.opportunities[0].remedy, "local_memory");
  EXPECT_GT(a.opportunities[0].est_gain_pct, 40.0);
}

// Set 50's binomial trees on the H100: a 1024-thread block per option, two barriers per time step around a dozen
// instructions; L1 81.4% busy with 172M shared wavefronts (8 MB through its tag stage), barrier 54% of the waiting.
// The L1 traffic is the barrier steps' own: the barrier is the cause (both blind labels), and fewer barriers fill the
// issue slots the waiting leaves idle, so the estimate is bounded by issue (61%), not by L1: 12% (one barrier a step
// and four nodes a thread realised 16.7% on the H100; bounded by the SM's 68.6% it was 8%). The same L1 reading from
// global loads re-read through L1 (a tile that should sit in shared memory) stays an L1 bound.
TEST(Advice, BarrierStepsThatCarryTheirOwnSharedTrafficAreTheCauseAtTheL1Roof) {
  CanonicalMetrics m;
  m.duration_ns = 1.505e6;
  m.sm_throughput_pct = 68.6;
  m.memory_throughput_pct = 78.8;
  m.dram_throughput_pct = 0.0;
  m.dram_bytes = 41216;
  m.l1_throughput_pct = 81.4;
  m.l2_throughput_pct = 0.03;
  m.lsu_pipe_pct = 70.6;
  m.alu_pipe_pct = 22.2;
  m.fma_pipe_pct = 16.9;
  m.issue_active_pct = 61.1;
  m.l1_bytes = 8.45e6;
  m.l1_hit_pct = 96;
  m.shared_wavefronts = 1.72e8;
  m.shared_bank_conflicts = 3.36e7;
  m.shared_mem_per_block_bytes = 12284;
  m.global_load_requests = 262144;
  m.global_load_sectors = 262144;
  m.grid_size = 2048;
  m.block_size = 1024;
  m.waves_per_sm = 7.8;
  m.achieved_occupancy_pct = 97;
  m.theoretical_occupancy_pct = 100;
  m.stalls = {{"barrier", 11.14}, {"short_scoreboard", 3.96}, {"mio_throttle", 3.49}, {"not_selected", 3.4},
              {"wait", 1.95},     {"math_pipe_throttle", 0.21}, {"no_instruction", 0.15}, {"long_scoreboard", 0.07},
              {"branch_resolving", 0.06}, {"dispatch_stall", 0.03}, {"selected", 1.0}};
  const KernelAnalysis tree = analyse(m);
  EXPECT_EQ(tree.bottleneck.cause, "barrier_stall");
  ASSERT_FALSE(tree.causes.empty());
  EXPECT_EQ(tree.causes.front().label.find("uneven"), std::string::npos) << tree.causes.front().label;
  ASSERT_FALSE(tree.opportunities.empty());
  EXPECT_EQ(tree.opportunities.front().remedy, "block_balance");
  EXPECT_NEAR(tree.opportunities.front().est_gain_pct, 0.54 * (1.0 - 61.1 / 80.0) * 100.0, 2.0);
  // In ncu mode Nsight Compute's ThreadDivergence rule estimates 21% from the lanes the shrinking steps mask off;
  // with 28.5 of 32 lanes active per instruction (over kprof's divergence cut, 24) those idle lanes are the barrier
  // steps' cost, and balancing the steps stays the first fix (realised 16.7%). Under the cut the divergence is
  // kprof's own finding too, and the rule's estimate stands.
  const RuleResult divergence{"WarpStateStats", "ThreadDivergence", "OPT", "Text.", "global", 21.0};
  m.threads_per_instruction = 28.5;
  const KernelAnalysis ncu = analyse_on_h200(m, {divergence});
  EXPECT_EQ(ncu.bottleneck.cause, "barrier_stall");
  EXPECT_EQ(first_fix(ncu), "block_balance");
  const Opportunity* weighed = by_remedy(ncu.opportunities, "divergence");
  ASSERT_NE(weighed, nullptr);
  EXPECT_NE(weighed->rationale.find("weighed down"), std::string::npos) << weighed->rationale;
  m.threads_per_instruction = 18.0;
  const KernelAnalysis diverged = analyse_on_h200(m, {divergence});
  ASSERT_NE(by_remedy(diverged.opportunities, "divergence"), nullptr);
  EXPECT_EQ(by_remedy(diverged.opportunities, "divergence")->rationale.find("weighed down"), std::string::npos);
  m.threads_per_instruction.reset();
  // L1 busy with global bytes re-read through it instead (no shared traffic to speak of): an L1 bound.
  m.shared_wavefronts = 1e5;
  m.l1_bytes = 2.0e10;
  EXPECT_NE(analyse(m).bottleneck.cause, "barrier_stall");
}

// Set 50's Asian-option paths on the H100: each thread keeps its 252-step path in a local array (2.1 GB of local
// traffic, 86% of L1's bytes) and reads and writes its 64-byte generator state once, at 32 sectors a request (0.17 GB
// of global sectors). The scattered-sector waste is a share of all the traffic, local included: the local array
// leads, not "gathers, locality" at 87%. Without the local traffic the same sectors are the kernel's traffic.
TEST(Advice, WastedGlobalSectorsAreAShareOfTheTrafficLocalMemoryIncluded) {
  CanonicalMetrics m;
  m.duration_ns = 834e3;
  m.sm_throughput_pct = 70.2;
  m.memory_throughput_pct = 79.1;
  m.dram_throughput_pct = 79.1;
  m.dram_measured_pct = 86.8;
  m.dram_bytes = 2.21e9;
  m.dram_read_bytes = 1.09e9;
  m.dram_write_bytes = 1.12e9;
  m.l1_throughput_pct = 18.7;
  m.l2_throughput_pct = 42.1;
  m.l1_hit_pct = 10;
  m.l2_hit_pct = 52;
  m.global_load_requests = 163840;
  m.global_load_sectors = 5242880;
  m.global_store_requests = 163840;
  m.global_store_sectors = 5229936;
  m.global_load_bytes_per_sector = 12.8;
  m.global_store_bytes_per_sector = 12.8;
  m.l1_bytes = 2.45e9;
  m.local_memory_bytes = 2.11e9;
  m.local_memory_instructions = 1.03e7;
  m.grid_size = 4096;
  m.block_size = 256;
  m.waves_per_sm = 1.9;
  const KernelAnalysis paths = analyse(m);
  EXPECT_EQ(paths.bottleneck.cause, "local_memory");
  for (const auto& c : paths.causes)
    if (c.id == "scattered_access" || c.id == "uncoalesced_global") {
      EXPECT_LT(c.gain_pct, 15.0) << c.id;
    }
  m.local_memory_bytes = 0;
  m.local_memory_instructions = 0;
  EXPECT_NE(analyse(m).bottleneck.cause, "local_memory");
}

// Set 10's FP64 FMA chain on the H100: the FP64 pipe reads 66.6% busy, and the warps' stalls are 94% "not selected"
// or math-pipe throttle: ready warps wait for the pipe, which takes them as fast as it accepts them. Labelled blind "at
// the roof"; no "raise pipe throughput". With its warps waiting on dependent results (a fixed-latency wait) the same
// pipe reading has room, and an integer pipe busy so is index arithmetic fewer instructions relieve.
TEST(Advice, AFloatingPointPipeWhoseWarpsWaitForItIsAtItsRoof) {
  auto chain = [](double ready, double throttle, double wait) {
    CanonicalMetrics m;
    m.duration_ns = 8e5;
    m.sm_throughput_pct = 68.5;
    m.memory_throughput_pct = 1;
    m.dram_throughput_pct = 0.5;
    m.fp64_pipe_pct = 66.6;
    m.fma_pipe_pct = 20.8;
    m.alu_pipe_pct = 16.7;
    m.issue_active_pct = 68.7;
    m.flops_fp64 = 5e11;
    m.grid_size = 4224;
    m.block_size = 256;
    m.waves_per_sm = 4.0;
    m.achieved_occupancy_pct = 56;
    m.theoretical_occupancy_pct = 62.5;
    m.stalls = {{"not_selected", ready}, {"math_pipe_throttle", throttle}, {"wait", wait}, {"dispatch_stall", 0.27},
                {"long_scoreboard", 0.0}, {"short_scoreboard", 0.0}, {"barrier", 0.0}, {"mio_throttle", 0.0},
                {"lg_throttle", 0.0}, {"no_instruction", 0.1}, {"branch_resolving", 0.05}, {"selected", 1.0}};
    return m;
  };
  const KernelAnalysis at_roof = analyse(chain(6.9, 4.22, 0.64));
  EXPECT_EQ(at_roof.bottleneck.cause, "fp64_pipe");
  ASSERT_FALSE(at_roof.causes.empty());
  EXPECT_EQ(at_roof.causes.front().remedy, "none");
  EXPECT_EQ(by_remedy(at_roof.opportunities, "pipe_throughput"), nullptr);
  // Waiting on each result (a dependent chain with too few warps): more independent instructions fill the pipe.
  const KernelAnalysis dependent = analyse(chain(1.0, 1.0, 8.0));
  ASSERT_FALSE(dependent.causes.empty());
  EXPECT_NE(dependent.causes.front().remedy, "none") << dependent.causes.front().id;
  // A partial breakdown (two reasons) says nothing of the share: the pipe keeps its remedy.
  CanonicalMetrics sparse = chain(6.9, 4.22, 0.64);
  sparse.stalls = {{"not_selected", 6.9}, {"math_pipe_throttle", 4.22}};
  const KernelAnalysis partial = analyse(sparse);
  ASSERT_FALSE(partial.causes.empty());
  EXPECT_EQ(partial.causes.front().id, "fp64_pipe");
  EXPECT_NE(partial.causes.front().remedy, "none");
  // The integer pipe, stalled the same way, is relieved by fewer instructions.
  CanonicalMetrics index_math = chain(6.9, 4.22, 0.64);
  index_math.fp64_pipe_pct.reset();
  index_math.flops_fp64.reset();
  index_math.alu_pipe_pct = 66.6;
  const KernelAnalysis integer = analyse(index_math);
  EXPECT_EQ(integer.bottleneck.cause, "int_pipe");
  EXPECT_EQ(first_fix(integer), "pipe_throughput");
}

// Fixed-latency waits (the "wait" stall) dominating a kernel whose busiest math pipe does half its cycles' work: the
// results the warps wait for are that pipe's, and the pipe names the bound, short of its roof by the dependent chains
// (set 37's float64 KDE: FP64 pipe 50.5%, 46% of the waiting fixed-latency; set 21's col2im, the FMA pipe 53% busy
// with integer multiply-adds). Every blind label names the pipe. With the pipes under half busy the waits themselves
// are the cause ("too little ILP"); the first fix is the same either way. Not for the tensor pipe (an MMA loop's waits
// on its accumulators read as underfed).
TEST(Advice, FixedLatencyWaitsOnAHalfBusyPipeNameThatPipe) {
  auto kde = [](double fp64_pct) {
    CanonicalMetrics m;
    m.duration_ns = 3.0e6;
    m.sm_throughput_pct = 63.4;
    m.memory_throughput_pct = 34.1;
    m.dram_throughput_pct = 0.5;
    m.l1_throughput_pct = 35.1;
    m.l2_throughput_pct = 0.3;
    m.fp64_pipe_pct = fp64_pct;
    m.fma_pipe_pct = 30.8;
    m.alu_pipe_pct = 9.9;
    m.xu_pipe_pct = 0.0;
    m.issue_active_pct = 65.4;
    m.flops_fp64 = 4.3e10;
    m.flops_fp32 = 0.0;
    m.grid_size = 1024;
    m.block_size = 128;
    m.waves_per_sm = 2.0;
    m.achieved_occupancy_pct = 36.2;
    m.theoretical_occupancy_pct = 62.5;
    m.stalls = {{"wait", 2.55},         {"not_selected", 2.31}, {"math_pipe_throttle", 1.29}, {"long_scoreboard", 0.79},
                {"dispatch_stall", 0.56}, {"short_scoreboard", 0.06}, {"barrier", 0.0}, {"mio_throttle", 0.0},
                {"lg_throttle", 0.0},   {"no_instruction", 0.05}, {"branch_resolving", 0.05}, {"selected", 1.0}};
    return m;
  };
  const KernelAnalysis half = analyse(kde(50.5));
  EXPECT_EQ(half.bottleneck.cause, "fp64_pipe");
  EXPECT_EQ(first_fix(half), "pipe_throughput");
  // Its estimate is what the waits cost (their share of the waiting up to saturation, about 10%), not the pipe's
  // distance to its roof (37%): four independent accumulators realised -7% on the H100 (bench/version_pairs.py).
  ASSERT_FALSE(half.opportunities.empty());
  EXPECT_LT(half.opportunities.front().est_gain_pct, 15.0);
  const KernelAnalysis light = analyse(kde(30.0));
  EXPECT_EQ(light.bottleneck.cause, "dependency_wait");
  EXPECT_EQ(first_fix(light), "pipe_throughput");
  // The same waits over a tensor pipe half busy: not a pipe bound by this reading.
  CanonicalMetrics mma = kde(10.0);
  mma.tensor_pipe_pct = 55.0;
  mma.flops_tensor = 4.0e11;
  mma.flops_fp64.reset();
  EXPECT_NE(analyse(mma).bottleneck.cause, "tensor_pipe");
}

// Set 42's fp8 Triton GEMM on the H100: the tensor pipe 64% busy, its warps waiting at barriers 69% of their waiting
// time: on Hopper a warpgroup MMA's wait (WARPGROUP.DEPBAR) samples as a barrier stall (62% of the samples by the
// labellers' SASS reading). The MMA pipeline waits, not uneven work in the block: "tensor pipe underfed", feed it.
TEST(Advice, BarrierWaitsInAMatrixKernelAreItsMmaPipelines) {
  CanonicalMetrics m;
  m.duration_ns = 9.4e5;
  m.sm_throughput_pct = 61.9;
  m.memory_throughput_pct = 58.3;
  m.dram_throughput_pct = 27;
  m.l1_throughput_pct = 45;
  m.l2_throughput_pct = 58.3;
  m.issue_active_pct = 16.5;
  m.tensor_pipe_pct = 64.2;
  m.flops_tensor = 1.1e12;
  m.tensor_precision = "fp8";
  m.grid_size = 4096;
  m.block_size = 128;
  m.waves_per_sm = 31;
  m.achieved_occupancy_pct = 12.5;
  m.theoretical_occupancy_pct = 12.5;
  m.stalls = {{"barrier", 7.48}, {"long_scoreboard", 1.36}, {"wait", 0.98}, {"short_scoreboard", 0.34},
              {"mio_throttle", 0.15}, {"math_pipe_throttle", 0.1}, {"gmma", 0.04}, {"lg_throttle", 0.0},
              {"membar", 0}, {"sleeping", 0}, {"no_instruction", 0.1}, {"branch_resolving", 0.05},
              {"not_selected", 0.24}, {"selected", 1.0}};
  const KernelAnalysis own = analyse(m, "matmul_fp8_kernel");
  EXPECT_EQ(own.bottleneck.cause, "tensor_underfed");
  EXPECT_EQ(first_fix(own), "feed_tensor");
  for (const auto& c : own.causes) EXPECT_NE(c.id, "barrier_stall");
  EXPECT_EQ(by_remedy(own.opportunities, "block_balance"), nullptr);
  // Without matrix math the same waits are the block's uneven work.
  CanonicalMetrics plain = m;
  plain.flops_tensor.reset();
  plain.tensor_pipe_pct = 0;
  plain.fma_pipe_pct = 20;
  EXPECT_EQ(analyse(plain, "scan_kernel").bottleneck.cause, "barrier_stall");
  ASSERT_FALSE(own.opportunities.empty());
  EXPECT_NEAR(own.opportunities.front().est_gain_pct, (1.0 - 64.2 / 80.0) * 100.0, 0.5);
  // A tensor pipe barely used (2%) is no MMA pipeline the barriers wait on: the block's work stays the cause.
  CanonicalMetrics scarce = m;
  scarce.tensor_pipe_pct = 2;
  EXPECT_EQ(analyse(scarce, "scan_with_one_mma").bottleneck.cause, "barrier_stall");
  // A library's kernel at that pipe reading is the call's to tune (its tensor pipe bound, through the call).
  const KernelAnalysis library = analyse(m, "nvjet_sm90_qqtst_128x256_64x4_1x2_h_bz_coopA_TNT");
  EXPECT_EQ(library.bottleneck.cause, "tensor_pipe");
  EXPECT_EQ(first_fix(library), "library_tuning");
}

TEST(Advice, BarrierStallsAreACauseWithTheirRemedy) {
  auto a = analyse(barrier_bound());
  EXPECT_EQ(a.bottleneck.cause, "barrier_stall");
  EXPECT_EQ(first_fix(a), "block_balance");
  EXPECT_EQ(by_remedy(a.opportunities, "memory_parallelism"), nullptr);
  EXPECT_EQ(a.bottleneck.kind, BottleneckKind::latency);
}

TEST(Advice, MembarAndSleepingStallsNameTheirCauses) {
  auto m = barrier_bound();
  std::swap(m.stalls["barrier"], m.stalls["membar"]);
  EXPECT_EQ(analyse(m).bottleneck.cause, "memory_fence");
  EXPECT_EQ(first_fix(analyse(m)), "fences");
  std::swap(m.stalls["membar"], m.stalls["sleeping"]);
  EXPECT_EQ(analyse(m).bottleneck.cause, "sleeping");
  EXPECT_EQ(first_fix(analyse(m)), "spin_wait");
}

// A dominant stall kprof has no remedy for is named as such, and no generic remedy stands in for it.
TEST(Advice, AnUndiagnosedDominantStallIsSaidNotGuessed) {
  auto m = barrier_bound();
  m.stalls["dispatch_stall"] = m.stalls["barrier"];
  m.stalls["barrier"] = 0;
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "undiagnosed_stall");
  EXPECT_NE(a.bottleneck.key_issue.find("dispatch_stall"), std::string::npos) << a.bottleneck.key_issue;
  EXPECT_EQ(by_remedy(a.opportunities, "memory_parallelism"), nullptr);
  EXPECT_EQ(by_remedy(a.opportunities, "pipe_throughput"), nullptr);
  // A reason a newer Nsight Compute adds is undiagnosed too.
  m.stalls["dispatch_stall"] = 0;
  m.stalls["some_new_reason"] = 27.9;
  EXPECT_EQ(analyse(m).bottleneck.cause, "undiagnosed_stall");
}

// Every stall reason in the H200's full Nsight Compute export maps to a cause, a plain bound, or "undiagnosed".
TEST(Advice, EveryStallReasonNsightComputeReportsHasARow) {
  std::ifstream in(std::string(KPROF_FIXTURES) + "/h200-corpus/corpus/ncu/ncu/ncu_raw.csv");
  std::string header;
  std::getline(in, header);
  const std::string prefix = "smsp__average_warps_issue_stalled_", suffix = "_per_issue_active.ratio";
  std::set<std::string> reasons;
  for (std::size_t at = header.find(prefix); at != std::string::npos; at = header.find(prefix, at + 1)) {
    auto end = header.find(suffix, at);
    if (end == std::string::npos) break;
    reasons.insert(header.substr(at + prefix.size(), end - at - prefix.size()));
  }
  EXPECT_GE(reasons.size(), 18u);
  for (const auto& r : reasons) {
    const StallReason* s = find_stall_reason(r);
    ASSERT_NE(s, nullptr) << r;
    if (s->cause) {
      EXPECT_NO_THROW(cause_spec(*s->cause)) << r;
    }
    if (s->covered_by) {
      EXPECT_NO_THROW(cause_spec(*s->covered_by)) << r;
    }
  }
}

// A DRAM stream below its roof is not DRAM-bound when the issue slots are busier than DRAM and the warps wait on
// arithmetic more than on memory (PyTorch's bf16 GELU on the H200, held-out set 2: DRAM 69.6% of its measured roof,
// issue 71.7%, ALU 62%): the ALU's instructions set the pace. Waiting on memory instead, it stays DRAM-bound.
TEST(Advice, IssueAheadOfDramWithArithmeticWaitsIsNotDramBound) {
  CanonicalMetrics m;
  m.duration_ns = 343e3;
  m.sm_throughput_pct = 71.1;
  m.memory_throughput_pct = 63.7;
  m.dram_throughput_pct = 63.7;
  m.dram_measured_pct = 69.6;
  m.dram_bytes = 1.07e9;
  m.l1_throughput_pct = 21.4;
  m.l2_throughput_pct = 41.5;
  m.l2_hit_pct = 50;
  m.issue_active_pct = 71.7;
  m.alu_pipe_pct = 61.9;
  m.fma_pipe_pct = 35.7;
  m.xu_pipe_pct = 19.1;
  m.grid_size = 65536;
  m.waves_per_sm = 31;
  m.achieved_occupancy_pct = 85;
  m.theoretical_occupancy_pct = 100;
  m.stalls = {{"long_scoreboard", 5.19}, {"math_pipe_throttle", 4.11}, {"wait", 1.14}, {"dispatch_stall", 1.08},
              {"not_selected", 6.42}, {"selected", 1.0}, {"short_scoreboard", 0.28}};
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "int_pipe");
  EXPECT_EQ(first_fix(a), "pipe_throughput");
  m.stalls["long_scoreboard"] = 9.0;
  auto memory = analyse(m);
  EXPECT_EQ(memory.bottleneck.cause, "dram_bandwidth");
}

// Without Nsight Compute's bytes-per-sector count, partial store sectors show at DRAM: it reads back about the bytes
// it writes beyond anything the loads could have fetched (set 9's stride-4 2-byte stores through CUPTI on the H200:
// DRAM at 93% of its roof reads 1.60 GB where the loads' sectors hold 0.54 GB, and writes 1.09 GB). The same
// counters without the extra reads, or with reads far beyond the writes (operands arriving by TMA), are not it.
TEST(Advice, PartialStoreSectorsFilledFromDramWithoutTheBytesPerSectorCount) {
  CanonicalMetrics m;
  m.duration_ns = 651e3;
  m.sm_throughput_pct = 8.3;
  m.issue_active_pct = 8.6;
  m.memory_throughput_pct = 85.1;
  m.dram_throughput_pct = 85.1;
  m.dram_measured_pct = 93.1;
  m.dram_read_bytes = 1.602e9;
  m.dram_write_bytes = 1.086e9;
  m.dram_bytes = 2.688e9;
  m.l1_throughput_pct = 27.8;
  m.l2_throughput_pct = 46.7;
  m.l1_hit_pct = 0;
  m.l2_hit_pct = 44.4;
  m.global_load_sectors = 16777216;
  m.global_load_requests = 4194304;
  m.global_store_sectors = 33554432;
  m.global_store_requests = 4194304;
  m.grid_size = 16384;
  m.waves_per_sm = 7.8;
  m.achieved_occupancy_pct = 90;
  m.theoretical_occupancy_pct = 100;
  m.stalls = {{"long_scoreboard", 60.0}, {"selected", 1.0}};
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "uncoalesced_global");
  EXPECT_EQ(first_fix(a), "coalesce");
  auto b = m;
  b.dram_read_bytes = 0.537e9;  // the loads' sectors only: no fills
  b.dram_bytes = 1.623e9;
  EXPECT_EQ(analyse(b).bottleneck.cause, "dram_bandwidth");
  auto c = m;
  c.dram_read_bytes = 12e9;  // operands by TMA: reads far beyond one fill per written byte
  c.dram_bytes = 13.1e9;
  EXPECT_NE(analyse(c).bottleneck.cause, "uncoalesced_global");
}

// Bank conflicts explain a latency-type bound only when the warps wait mostly on shared memory: CUB's radix-sort
// onesweep pass on the H200 (held-out set 2: 34% of shared wavefronts conflicted, L1/shared 50% busy, 20% of the
// waiting stalls on shared memory, the rest on global loads, barriers and fixed latencies) is latency-bound, with
// the conflicts one more item. With most waits on shared memory the conflicts lead.
TEST(Advice, ConflictsWithFewSharedWaitsDoNotExplainALatencyBound) {
  CanonicalMetrics m;
  m.duration_ns = 326e3;
  m.sm_throughput_pct = 38.8;
  m.memory_throughput_pct = 50.5;
  m.dram_throughput_pct = 50.5;
  m.dram_measured_pct = 55.3;
  m.l1_throughput_pct = 50.1;
  m.l2_throughput_pct = 49.4;
  m.issue_active_pct = 35.9;
  m.alu_pipe_pct = 39.3;
  m.grid_size = 6242;
  m.waves_per_sm = 23.6;
  m.achieved_occupancy_pct = 36.4;
  m.theoretical_occupancy_pct = 37.5;
  m.shared_wavefronts = 21.76e6;
  m.shared_bank_conflicts = 7.33e6;
  m.stalls = {{"long_scoreboard", 4.09}, {"barrier", 3.83}, {"short_scoreboard", 2.37}, {"wait", 1.85},
              {"branch_resolving", 0.71}, {"math_pipe_throttle", 0.69}, {"mio_throttle", 0.5}, {"selected", 1.0}};
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "latency");
  EXPECT_NE(by_remedy(a.opportunities, "smem_conflicts"), nullptr);
  m.stalls["short_scoreboard"] = 12.0;  // now most waits are on shared memory
  EXPECT_EQ(analyse(m).bottleneck.cause, "smem_bank_conflicts");
}

// Stride-2 floats (16 of 32 bytes per sector, 8 sectors per request) under a DRAM-bound kernel: partial
// coalescing, not "reach peak DRAM bandwidth".
TEST(Advice, PartialCoalescingUnderADramBoundKernel) {
  CanonicalMetrics m;
  m.duration_ns = 1e6;
  m.sm_throughput_pct = 30;
  m.memory_throughput_pct = 88;
  m.dram_throughput_pct = 88;
  m.dram_bytes = 4.0e9;
  m.l2_hit_pct = 5;
  m.l1_hit_pct = 0;
  m.global_load_sectors = 1e8;
  m.global_load_requests = 1.25e7;
  m.global_load_bytes_per_sector = 16;
  m.global_store_sectors = 0.25e8;
  m.global_store_requests = 0.625e7;
  m.global_store_bytes_per_sector = 32;
  m.grid_size = 4096;
  m.waves_per_sm = 3.9;
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "uncoalesced_global");
  EXPECT_EQ(first_fix(a), "coalesce");
  EXPECT_EQ(a.bottleneck.kind, BottleneckKind::memory);
}

// Without Nsight Compute's bytes-per-sector count (CUPTI's counters), at the DRAM roof: stores of 32 sectors a request
// whose sectors DRAM writes at half their bytes were merged in L2 (two requests filled each halfway), and coalesced
// loads read each sector once: DRAM moves every byte once, and the store pattern costs it nothing (set 48's NDVI
// tile: DRAM at 98% of its roof writing 0.50x the store sectors' bytes; both labels DRAM at its roof). Stride-2 stores
// that leave each sector's other half unwritten are written whole (DRAM writes as many bytes as the sectors hold).
TEST(Advice, StoreSectorsMergedInL2BeforeDramCostTheRoofNothing) {
  auto ndvi_like = [] {
    CanonicalMetrics m;
    m.duration_ns = 321696;
    m.sm_throughput_pct = 40;
    m.memory_throughput_pct = 90;
    m.l2_throughput_pct = 55;
    m.dram_throughput_pct = 90;
    m.dram_measured_pct = 98;
    m.dram_read_bytes = 4.83e8;
    m.dram_write_bytes = 4.80e8;
    m.dram_bytes = 9.63e8;
    m.l1_hit_pct = 28;
    m.l2_hit_pct = 57;
    m.global_load_sectors = 1.507e7;
    m.global_load_requests = 9.42e5;
    m.global_store_sectors = 3.014e7;
    m.global_store_requests = 9.42e5;
    m.grid_size = 65536;
    m.waves_per_sm = 31;
    return m;
  };
  auto a = analyse(ndvi_like());
  EXPECT_EQ(a.bottleneck.cause, "dram_bandwidth");
  EXPECT_EQ(by_remedy(a.opportunities, "coalesce"), nullptr);
  auto whole = ndvi_like();  // the same store sectors, each written whole to DRAM: half of each unused
  whole.dram_write_bytes = 9.6e8;
  whole.dram_bytes = 1.44e9;
  EXPECT_EQ(analyse(whole).bottleneck.cause, "uncoalesced_global");
}

// Without Nsight Compute's bytes-per-sector count (CUPTI's counters): L1 sends L2 twice the store sectors DRAM
// writes under an L2-bound kernel (PyTorch's tril, stride-2 float stores): partially coalesced stores. The same
// counters where DRAM writes little (an output rewritten in place inside L2) or DRAM is at its roof are not.
TEST(Advice, StoresWrittenInPiecesWithoutTheBytesPerSectorCount) {
  auto tril_like = [] {
    CanonicalMetrics m;
    m.duration_ns = 1e6;
    m.sm_throughput_pct = 60;
    m.memory_throughput_pct = 94;
    m.l2_throughput_pct = 94;
    m.dram_throughput_pct = 50;
    m.dram_measured_pct = 52;
    m.dram_write_bytes = 1.07e9;
    m.dram_read_bytes = 0.54e9;
    m.dram_bytes = 1.61e9;
    m.l1_hit_pct = 48;
    m.l2_hit_pct = 60;
    m.global_load_sectors = 3.36e7;
    m.global_load_requests = 4.2e6;
    m.global_store_sectors = 6.71e7;
    m.global_store_requests = 8.39e6;
    m.grid_size = 65536;
    m.waves_per_sm = 60;
    return m;
  };
  auto a = analyse(tril_like());
  EXPECT_EQ(a.bottleneck.cause, "uncoalesced_global");
  EXPECT_EQ(first_fix(a), "coalesce");
  auto small = tril_like();  // the same stores into 40 MB that L2 holds
  small.dram_write_bytes = 40e6;
  EXPECT_NE(analyse(small).bottleneck.cause, "uncoalesced_global");
  auto at_roof = tril_like();
  at_roof.dram_measured_pct = 92;
  EXPECT_NE(analyse(at_roof).bottleneck.cause, "uncoalesced_global");
  auto once = tril_like();  // each sector written whole: as many store sectors as DRAM writes
  once.global_store_sectors = 1.07e9 / 32;
  EXPECT_NE(analyse(once).bottleneck.cause, "uncoalesced_global");
}

// Shared atomics that replay (set 9's hot-bin kernel, Nsight Compute: 11 wavefronts per ATOMS, L1/shared 99% busy,
// no load/store bank conflicts): atomic contention, not "re-read operands through L1". Lanes that do not collide
// (about one wavefront per instruction, as Hopper gives for two addresses) are not.
TEST(Advice, SharedAtomicsThatReplayAreContention) {
  auto hot = [] {
    CanonicalMetrics m;
    m.duration_ns = 1e6;
    m.sm_throughput_pct = 40;
    m.memory_throughput_pct = 99;
    m.l1_throughput_pct = 98.8;
    m.dram_throughput_pct = 16;
    m.shared_wavefronts = 8.5e3;
    m.shared_bank_conflicts = 0;
    m.shared_atomic_wavefronts = 1.86e8;
    m.shared_atomic_instructions = 1.68e7;
    m.grid_size = 4096;
    m.waves_per_sm = 3.9;
    return m;
  };
  auto a = analyse(hot());
  EXPECT_EQ(a.bottleneck.cause, "atomic_contention");
  EXPECT_EQ(first_fix(a), "atomics");
  auto calm = hot();
  calm.shared_atomic_wavefronts = 1.04 * 1.68e7;
  EXPECT_NE(analyse(calm).bottleneck.cause, "atomic_contention");
}

// Texture fetches keep the L1/TEX unit busy and move bytes no load, store or shared-memory count holds: with the
// warps waiting mostly for room in the texture queue, a unit busy with few counted bytes is re-read data through the
// texture path (fewer fetches: hardware filtering, reuse), not "other MIO instructions" (set 38's point-sampled bicubic
// through tex2D, Nsight Compute's counters on the H100: L1/TEX 97%, 0.5 B per cycle counted, tex_throttle 73% of
// the waiting). Without the texture waits, the MIO reading stands.
TEST(Advice, ATextureBoundUnitIsNotOtherMioInstructions) {
  auto bicubic = [] {
    CanonicalMetrics m;
    m.duration_ns = 1.05e6;
    m.sm_clock_hz = 1.995e9;
    m.sm_throughput_pct = 37.0;
    m.memory_throughput_pct = 96.8;
    m.l1_throughput_pct = 97.0;
    m.l2_throughput_pct = 6.35;
    m.dram_throughput_pct = 5.2;
    m.dram_measured_pct = 5.7;
    m.issue_active_pct = 27.3;
    m.l1_bytes = 1.34e8;
    m.shared_wavefronts = 0;
    m.l1_hit_pct = 97.5;
    m.l2_hit_pct = 82.7;
    m.lsu_pipe_pct = 2.3;
    m.fma_pipe_pct = 14.0;
    m.alu_pipe_pct = 12.1;
    m.grid_size = 262144;
    m.block_size = 256;
    m.waves_per_sm = 397;
    m.achieved_occupancy_pct = 56;
    m.theoretical_occupancy_pct = 62.5;
    m.stalls = {{"tex_throttle", 25.12}, {"long_scoreboard", 3.67}, {"wait", 0.63}, {"short_scoreboard", 0.31},
                {"selected", 1.0}, {"not_selected", 1.57}};
    return m;
  };
  const auto a = analyse(bicubic());
  EXPECT_EQ(a.bottleneck.cause, "l1_bandwidth");
  EXPECT_EQ(first_fix(a), "onchip_reuse");
  auto shuffles = bicubic();
  shuffles.stalls = {{"mio_throttle", 25.12}, {"long_scoreboard", 3.67}, {"selected", 1.0}};
  EXPECT_EQ(first_fix(analyse(shuffles)), "mio_pressure");
}

// A cooperative grid.sync() after each of many tiny phases (set 38's wavefront on the H100, Nsight Compute's counters:
// 29% of the global requests atomics, SM 10%, the block's other warps at its __syncthreads for 85% of the waiting):
// the barrier is what the warps wait on, not the atomics of the grid barrier's counter, and leads; without the
// barrier waits the atomics would.
TEST(Advice, AtomicsWhileTheWarpsWaitAtBarriersAreNotTheLimit) {
  auto wavefront = [] {
    CanonicalMetrics m;
    m.duration_ns = 5.48e6;
    m.sm_throughput_pct = 10.3;
    m.issue_active_pct = 10.3;
    m.memory_throughput_pct = m.l2_throughput_pct = 13.95;
    m.l1_throughput_pct = 3.8;
    m.dram_throughput_pct = 0.02;
    m.dram_measured_pct = 0.03;
    m.global_atomic_requests = 2.16e6;
    m.global_load_requests = 5.3e6;
    m.global_load_sectors = 8.6e6;
    m.global_store_requests = 3.4e4;
    m.global_store_sectors = 1.05e6;
    m.l2_bytes = 3.35e9;
    m.dram_bytes = 4.2e6;
    m.grid_size = 1056;
    m.block_size = 256;
    m.waves_per_sm = 1;
    m.achieved_occupancy_pct = m.theoretical_occupancy_pct = 100;
    m.stalls = {{"barrier", 129.45}, {"long_scoreboard", 12.45}, {"membar", 3.35}, {"wait", 3.61},
                {"branch_resolving", 2.13}, {"selected", 1.0}, {"not_selected", 1.54}};
    return m;
  };
  const auto a = analyse(wavefront());
  EXPECT_EQ(a.bottleneck.cause, "barrier_stall");
  EXPECT_EQ(first_fix(a), "block_balance");
  auto no_barrier = wavefront();
  no_barrier.stalls["barrier"] = 1.0;
  no_barrier.stalls["long_scoreboard"] = 140.0;
  EXPECT_EQ(analyse(no_barrier).bottleneck.cause, "atomic_contention");
}

// Atomics that are L2's work (held-out set 4's scatter_add into 1M float bins, CUPTI counters on the H200: 2.1M
// RED requests beside 4.2M loads, L2 95% busy, DRAM 23%, 4.4 GB of L2 traffic of which the loads' sectors are 0.8
// GB): L2's atomic units bind, and a warp's 32 updates on 32 lines call for bucketing the updates (locality), not
// "re-read data from L2". The heading is memory-bound: L2 is busy, nothing waits on a contended line. Updates on a
// few lines (2 sectors a request) are warp aggregation's; atomics a small share of L2's traffic are neither.
TEST(Advice, AtomicsThatSaturateL2AreNamedWithTheirFix) {
  auto scatter = [] {
    CanonicalMetrics m;
    m.duration_ns = 1e6;
    m.sm_throughput_pct = 38;
    m.memory_throughput_pct = 95.2;
    m.l2_throughput_pct = 95.2;
    m.l1_throughput_pct = 37.6;
    m.dram_throughput_pct = 23.3;
    m.dram_measured_pct = 25;
    m.dram_read_bytes = 0.81e9;
    m.dram_write_bytes = 0.019e9;
    m.dram_bytes = 0.829e9;
    m.l2_bytes = 4.43e9;
    m.l2_hit_pct = 72.7;
    m.l1_hit_pct = 0;
    m.global_load_requests = 4.19e6;
    m.global_load_sectors = 2.52e7;
    m.global_store_requests = 0;
    m.global_store_sectors = 0;
    m.global_atomic_requests = 2.1e6;
    m.grid_size = 65536;
    m.waves_per_sm = 31;
    return m;
  };
  auto a = analyse(scatter());
  EXPECT_EQ(a.bottleneck.cause, "atomic_contention");
  EXPECT_EQ(first_fix(a), "locality");
  EXPECT_EQ(a.bottleneck.kind, BottleneckKind::memory);
  auto few_lines = scatter();  // 2 sectors a request (updates on a few lines), with few loads beside them
  few_lines.global_load_requests = 1e6;
  few_lines.global_load_sectors = 2e6;
  few_lines.l2_bytes = (2e6 + 2.1e6 * 2) * 32;
  few_lines.l2_throughput_pct = few_lines.memory_throughput_pct = 80;
  auto f = analyse(few_lines);
  EXPECT_EQ(f.bottleneck.cause, "atomic_contention");
  EXPECT_EQ(first_fix(f), "atomics");
  auto loads = scatter();  // the loads are most of L2's sectors
  loads.global_load_sectors = 1.2e8;
  EXPECT_NE(analyse(loads).bottleneck.cause, "atomic_contention");
}

// A row gather bound by L2 (held-out set 4's gather along dim 1, CUPTI counters on the H200: 19.8 sectors per load
// request, L2 97% busy and 65% hits, DRAM 49%): uncoalesced loads, whose extra sectors are L2's work, below the 20
// sectors the rule asks of a kernel not bound there. At 16 sectors (stride-2 8-byte, or coalesced 16-byte) it is not.
TEST(Advice, AnL2BoundGatherIsUncoalescedBelowTwentySectorsPerRequest) {
  auto gather = [](double sectors_per_request) {
    CanonicalMetrics m;
    m.duration_ns = 1e6;
    m.sm_throughput_pct = 50;
    m.memory_throughput_pct = 96.8;
    m.l2_throughput_pct = 96.8;
    m.l1_throughput_pct = 49.9;
    m.dram_throughput_pct = 49;
    m.dram_measured_pct = 55;
    m.dram_read_bytes = 0.81e9;
    m.dram_write_bytes = 0.28e9;
    m.dram_bytes = 1.09e9;
    m.l2_bytes = 3.24e9;
    m.l2_hit_pct = 64.9;
    m.l1_hit_pct = 11.4;
    m.global_load_requests = 4.19e6;
    m.global_load_sectors = 4.19e6 * sectors_per_request;
    m.global_store_requests = 2.1e6;
    m.global_store_sectors = 8.39e6;
    m.grid_size = 65536;
    m.waves_per_sm = 31;
    return m;
  };
  auto a = analyse(gather(19.8));
  EXPECT_EQ(a.bottleneck.cause, "uncoalesced_global");
  EXPECT_EQ(first_fix(a), "coalesce");
  EXPECT_NE(analyse(gather(16.0)).bottleneck.cause, "uncoalesced_global");
}

// The heading, the key issue, the cause line and the JSON name one cause: the leading one.
TEST(Advice, HeadingCauseLineAndRowStateOneCause) {
  for (const auto& m : {eight_blocks_fp32(), barrier_bound()}) {
    auto a = analyse(m);
    ASSERT_FALSE(a.causes.empty());
    const Cause& c = a.causes.front();
    EXPECT_EQ(a.bottleneck.cause, c.id);
    EXPECT_EQ(a.bottleneck.key_issue, c.label);
    std::string label = c.label;  // the root cause starts with it, capitalised
    label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
    EXPECT_EQ(a.bottleneck.root_cause.rfind(label + " (", 0), 0u) << a.bottleneck.root_cause;
    EXPECT_EQ(a.bottleneck.root_cause.find("limits the kernel"), std::string::npos) << a.bottleneck.root_cause;
  }
  // The busiest pipe names an integer kernel, whatever its FLOPs' precision.
  CanonicalMetrics m;
  m.duration_ns = 1e6;
  m.sm_throughput_pct = 85;
  m.memory_throughput_pct = 30;
  m.alu_pipe_pct = 85;
  m.fma_pipe_pct = 20;
  m.flops_fp16 = 1e6;
  m.issue_active_pct = 85;
  m.grid_size = 4096;
  m.waves_per_sm = 3.9;
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "int_pipe");
  EXPECT_NE(a.bottleneck.unit.find("ALU"), std::string::npos) << a.bottleneck.unit;
  EXPECT_EQ(a.bottleneck.unit.find("FP16"), std::string::npos) << a.bottleneck.unit;
}

// An export of the speed-of-light section alone (a cuBLAS GEMM at SM 90%, memory 70%): SM-bound with little to
// gain, and nothing said about a tensor pipe it did not measure.
TEST(Advice, ASpeedOfLightOnlyExportDegradesToWhatItSupports) {
  CanonicalMetrics m;
  m.duration_ns = 1e6;
  m.sm_throughput_pct = 90;
  m.memory_throughput_pct = 70;
  auto a = analyse(m, "nvjet_sm90_tst_256x128");
  EXPECT_EQ(a.bottleneck.kind, BottleneckKind::compute);
  for (const auto& o : a.opportunities) EXPECT_LE(o.est_gain_pct, 10.0 + 1e-9) << o.name;
  EXPECT_EQ(a.bottleneck.root_cause.find("tensor"), std::string::npos) << a.bottleneck.root_cause;
  EXPECT_EQ(a.bottleneck.root_cause.find(" 0.0%"), std::string::npos) << a.bottleneck.root_cause;
}

// cuBLAS's nvjet at 62% tensor-pipe activity already runs wgmma: its advice is about the call.
TEST(Advice, LibraryKernelsAreNotToldToUseWgmma) {
  CanonicalMetrics m;
  m.duration_ns = 547776;
  m.sm_throughput_pct = 63;
  m.memory_throughput_pct = 50;
  m.dram_throughput_pct = 49.8;
  m.tensor_pipe_pct = 62.4;
  m.flops_tensor = 2.2e14 * 547776e-9;
  m.tensor_precision = "bf16";
  m.issue_active_pct = 20;
  m.grid_size = 132;
  m.waves_per_sm = 1;
  auto a = analyse(m, "nvjet_sm90_tss_256x128_64x4_1x2_h_bz_coopA_TNT");
  EXPECT_EQ(by_remedy(a.opportunities, "feed_tensor"), nullptr);
  EXPECT_EQ(by_remedy(a.opportunities, "tensor_cores"), nullptr);
  EXPECT_EQ(first_fix(a), "library_tuning");
  // The same counters under a user's kernel name: feed the tensor cores.
  EXPECT_EQ(first_fix(analyse(m, "my_mma_kernel")), "feed_tensor");
  // A user's own wgmma kernel (gmma stalls counted) is still told to feed its tensor cores, not to adopt wgmma.
  m.stalls["gmma"] = 0.5;
  const auto own = analyse(m, "my_mma_kernel");
  EXPECT_EQ(first_fix(own), "feed_tensor");
  EXPECT_EQ(own.opportunities.front().name.find("wgmma"), std::string::npos) << own.opportunities.front().name;
  EXPECT_NE(own.opportunities.front().name.find("warpgroup MMAs fed"), std::string::npos);
}

// No tensor-pipe verdict without matrix math, no DRAM verdict on a compute-bound kernel, a 100.1% hit rate as 100.
TEST(Advice, VerdictsAreJudgedForTheKindOfKernel) {
  auto m = eight_blocks_fp32();
  m.grid_size = 4096;
  m.waves_per_sm = 3.9;
  m.fma_pipe_pct = 92;
  m.sm_throughput_pct = 92;
  m.l2_hit_pct = 100.1;
  m.tensor_pipe_pct = 0;
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.kind, BottleneckKind::compute);
  for (const auto& v : a.verdicts) {
    if (v.metric == "tensor_pipe_pct" || v.metric == "dram_throughput_pct") {
      EXPECT_EQ(v.verdict, Verdict::not_applicable) << v.metric;
    }
    if (v.metric == "l2_hit_pct") {
      ASSERT_TRUE(v.value);
      EXPECT_EQ(*v.value, 100.0);
    }
  }
}

namespace {

KernelGroup stage_group(const std::string& kernel, double dur_ns, double read, double write, double dram_pct) {
  KernelGroup g;
  g.kernel = kernel;
  g.signature = kernel + "()";
  g.metrics.duration_ns = dur_ns;
  g.metrics.sm_throughput_pct = 40;
  g.metrics.memory_throughput_pct = dram_pct;
  g.metrics.dram_throughput_pct = dram_pct;
  g.metrics.dram_read_bytes = read;
  g.metrics.dram_write_bytes = write;
  g.metrics.dram_bytes = read + write;
  g.metrics.grid_size = 4096;
  g.metrics.waves_per_sm = 3.9;
  KernelLaunch l;
  g.launches.push_back(l);
  g.representative = 0;
  g.duration_ns.count = 1;
  g.duration_ns.median = dur_ns;
  return g;
}

// A stage group already analysed: its cause and a first item worth `first_gain` percent of the run.
KernelGroup analysed_group(KernelGroup g, const char* cause, double first_gain) {
  KernelAnalysis a;
  a.bottleneck.cause = cause;
  Opportunity o;
  o.remedy = "memory_parallelism";
  o.run_gain_pct = first_gain;
  a.opportunities.push_back(o);
  g.analysis = a;
  return g;
}

}  // namespace

// MLA v4's shape: a GEMM writes 1.07 GB of fp32 scores, softmax reads them back and writes 0.53 GB that the next
// GEMM reads, at the DRAM roof: fusing softmax with its neighbours is in the top 3, at the softmax's time.
TEST(Advice, AnIntermediateThroughDramRanksFusionInTheTop3) {
  ProfileRun run;
  run.device.name = "NVIDIA H200";
  run.params.dtype = "bf16";  // a kernel package's pipeline: its stages pass data along
  for (auto [name, kernel, dur, rd, wr, dram] :
       {std::tuple{"scores", "nvjet_sm90_tss", 547776.0, 2.44e8, 1.068e9, 49.8},
        std::tuple{"softmax", "softmax_kernel", 385216.0, 1.0738e9, 5.31e8, 86.6},
        std::tuple{"output", "nvjet_sm90_tst", 350272.0, 7.0e8, 8.4e7, 46.6}}) {
    Stage s;
    s.name = name;
    s.kernels.push_back(stage_group(kernel, dur, rd, wr, dram));
    if (std::string(name) != "softmax") {
      s.kernels.back().metrics.tensor_pipe_pct = 62;
      s.kernels.back().metrics.flops_tensor = 1e11;
    }
    run.stages.push_back(s);
  }
  analyze_run(run, datasheet_db(), shipped());
  ASSERT_EQ(run.program_opportunities.size(), 1u);
  const Opportunity& f = run.program_opportunities[0];
  EXPECT_EQ(f.remedy, "fuse_stages");
  EXPECT_EQ(f.scope, "pipeline");
  ASSERT_EQ(f.kernels.size(), 3u);
  EXPECT_EQ(f.kernels[1], "softmax");
  // The bytes kept on chip save the time they take at DRAM's roof: the softmax's time at its 86.6% of the roof.
  EXPECT_NEAR(f.run_gain_pct, 385216.0 / (547776.0 + 385216.0 + 350272.0) * 100.0 * 0.866, 1.0);
  EXPECT_FALSE(f.assumes.empty());
  auto top = render::top_opportunities(run, 3);
  bool in_top = false;
  for (const auto& o : top) in_top = in_top || o.scope == "pipeline";
  EXPECT_TRUE(in_top);
  EXPECT_NE(render::render_contract(run, nullptr).find("Fuse softmax"), std::string::npos);
  // The package declares the softmax's minimum bytes as 0 (its scores belong on chip): the fusion item says that and
  // where the bytes go, so the stage's own "cut DRAM traffic to the declared minimum" is not listed beside it.
  for (auto& st : run.stages) {
    st.kernels[0].declared.min_bytes = st.name == "softmax" ? 0.0 : 1e8;
    st.kernels[0].analysis.reset();
  }
  analyze_run(run, datasheet_db(), shipped());
  ASSERT_FALSE(run.program_opportunities.empty());
  for (const auto& o : run.stages[1].kernels[0].analysis->opportunities) EXPECT_NE(o.remedy, "dram_traffic") << o.name;
  // Three NVTX ranges a program marked apart are separate steps: equal byte counts are no data flow.
  run.params = {};
  analyze_run(run, datasheet_db(), shipped());
  EXPECT_TRUE(run.program_opportunities.empty());
}

// Set 30's Euler step in one range: a right-hand side bound by its loads' latency (48% of the DRAM roof) reads the
// state (134 MB) and writes the right-hand side, of which 117 MB are counted (L2 still held the rest when it ended);
// the update reads state and right-hand side (268 MB) and writes the new state at 88% of the roof. The pair is one
// item: the producer's writes and the consumer's reads of the intermediate go, and the consumer's second read of the
// state, each at its kernel's DRAM rate; it saves more than the right-hand side's own latency item.
TEST(Advice, FusingAPairSavesTheProducersWritesAndTheSharedInputsSecondRead) {
  ProfileRun run;
  run.device.name = "NVIDIA H200";
  Stage s;
  s.name = "euler";
  s.kernels.push_back(stage_group("rd_rhs", 118.6e3, 1.342e8, 1.173e8, 48.2));
  s.kernels.push_back(stage_group("rd_update", 92.6e3, 2.684e8, 1.342e8, 88.0));
  run.stages.push_back(s);
  analyze_run(run, datasheet_db(), shipped());
  ASSERT_TRUE(run.device_spec);
  ASSERT_EQ(run.program_opportunities.size(), 1u);
  const Opportunity& f = run.program_opportunities[0];
  EXPECT_EQ(f.remedy, "fuse_stages");
  ASSERT_EQ(f.kernels.size(), 2u);
  EXPECT_EQ(f.kernels[0], "euler · rd_rhs");
  // Saved: the update's 117 + 134 MB of its 402 MB at 88%, and the right-hand side's 117 of its 251 MB at 48%.
  const double saved = 92.6e3 * (1.173e8 + 1.342e8) / (2.684e8 + 1.342e8) * 0.88 +
                       118.6e3 * 1.173e8 / (1.342e8 + 1.173e8) * 0.482;
  EXPECT_NEAR(f.est_gain_pct, saved / (118.6e3 + 92.6e3) * 100.0, 0.5);
  EXPECT_NEAR(f.run_gain_pct, saved / (118.6e3 + 92.6e3) * 100.0, 0.5);
  EXPECT_NE(f.assumes.find("read once, not twice"), std::string::npos) << f.assumes;
  // Only launches that pair fuse: a group of 10 right-hand-side launches before one update saves one pair's worth
  // of the groups' whole time.
  {
    ProfileRun many = run;
    many.program_opportunities.clear();
    many.stages[0].kernels[0].duration_ns.count = 10;
    many.stages[0].kernels[0].duration_ns.median = 118.6e3;
    for (auto& k : many.stages[0].kernels) k.analysis.reset();
    analyze_run(many, datasheet_db(), shipped());
    ASSERT_EQ(many.program_opportunities.size(), 1u);
    EXPECT_NEAR(many.program_opportunities[0].est_gain_pct, saved / (10 * 118.6e3 + 92.6e3) * 100.0, 0.5);
  }
  // The counted writes may fall short of half the update's reads by L2's 60 MB, no more: 70 MB counted is no item.
  run.stages[0].kernels[0].metrics.dram_write_bytes = 7.0e7;
  run.program_opportunities.clear();
  for (auto& k : run.stages[0].kernels) k.analysis.reset();
  analyze_run(run, datasheet_db(), shipped());
  EXPECT_TRUE(run.program_opportunities.empty());
}

// A chain at 90% of the DRAM roof after a matrix product: the product (400 us, writing 1 GB) feeds a (500 us), which
// feeds b (300 us), which feeds c (200 us), each reading 1 GB and writing 1 GB the next reads. One item fuses the
// chain: a saves its whole time at the roof (both sides are intermediates), b likewise, c its reads' share and the
// pair's producer side of b (smaller than b's own); the product is named, not counted (its output is its result).
// Apart, b's item and c's pair both counted b's time, and the three filled the top 3 with one step.
TEST(Advice, AChainOfFusableStagesIsOneItem) {
  auto chain_run = [](std::vector<std::tuple<const char*, double, bool>> stages) {
    ProfileRun run;
    run.device.name = "NVIDIA H200";
    run.params.dtype = "fp32";  // a kernel package's pipeline: its stages pass data along
    for (auto [name, ns, product] : stages) {
      Stage s;
      s.name = name;
      s.kernels.push_back(stage_group(std::string("k_") + name, ns, 1e9, 1e9, product ? 50.0 : 90.0));
      if (product) s.kernels.back().metrics.tensor_pipe_pct = 62, s.kernels.back().metrics.flops_tensor = 1e12;
      run.stages.push_back(s);
    }
    analyze_run(run, datasheet_db(), shipped());
    std::vector<const Opportunity*> fuse;
    for (const auto& o : run.program_opportunities)
      if (o.remedy == "fuse_stages") fuse.push_back(&o);
    return std::pair(run, fuse.size());
  };
  auto [run, items] = chain_run({{"gemm", 400e3, true}, {"a", 500e3, false}, {"b", 300e3, false}, {"c", 200e3, false}});
  ASSERT_EQ(items, 1u);
  const Opportunity& f = run.program_opportunities[0];
  EXPECT_EQ(f.kernels, (std::vector<std::string>{"gemm", "a", "b", "c"}));
  EXPECT_EQ(f.name.find("gemm"), std::string::npos) << f.name;  // the title names the kernels whose time goes
  // a: 0.9 x 500 us, b: 0.9 x 300 us (its own item beats the pair's producer side, 0.5 x 0.9 x 300 us), c: 0.5 x 0.9
  // x 200 us: 810 of the 1000 us of a, b and c.
  EXPECT_NEAR(f.est_gain_pct, 81.0, 0.5);
  EXPECT_NEAR(f.run_share_pct, 1000.0 / 1400.0 * 100.0, 0.1);
  EXPECT_NEAR(f.run_gain_pct, f.est_gain_pct * f.run_share_pct / 100.0, 1e-9);
  EXPECT_NE(f.trigger.find("3 intermediate(s), 3.00 GB"), std::string::npos) << f.trigger;
  std::size_t pipeline = 0;
  for (const auto& o : render::top_opportunities(run, 3)) pipeline += o.scope == "pipeline";
  EXPECT_EQ(pipeline, 1u);
  // A product between two fusable kernels joins nothing: a norm into its prologue and RoPE into its epilogue are two
  // changes, two items.
  EXPECT_EQ(chain_run({{"norm", 300e3, false}, {"proj", 400e3, true}, {"rope", 300e3, false}}).second, 2u);
  // Two ranges a program marked apart are separate steps: no data flows between them, no item.
  run.params = {};
  for (auto& st : run.stages) st.kernels[0].analysis.reset();
  analyze_run(run, datasheet_db(), shipped());
  EXPECT_TRUE(run.program_opportunities.empty());
}

// Set 51's feature hashing under Nsight Compute: each elementwise step of one range writes a 68 MB int64 tensor the
// next reads back whole, at the DRAM roof; 47 MB of each write are counted (L2 holds the rest dirty at the kernel's
// end). The intermediate is its consumer's read, above the 64 MiB an intermediate must have to be fused, though the
// counted writes are not: an item. A write counted at less than half of what the consumer read is no evidence of an
// intermediate that large (the consumer's other input), nor is an intermediate that L2 could hold.
TEST(Advice, AnIntermediateShortOfItsCountedWritesByL2sDirtyBytesIsStillFused) {
  auto pair_run = [](double counted_writes, double consumer_reads) {
    ProfileRun run;
    run.device.name = "NVIDIA H200";
    Stage s;
    s.name = "feature_hashing";
    s.kernels.push_back(stage_group("xorshift_step", 45e3, 6.8e7, counted_writes, 88.0));
    s.kernels.push_back(stage_group("mod_step", 47e3, consumer_reads, counted_writes, 88.0));
    run.stages.push_back(s);
    analyze_run(run, datasheet_db(), shipped());
    std::size_t fuse = 0;
    for (const auto& o : run.program_opportunities) fuse += o.remedy == "fuse_stages";
    return fuse;
  };
  EXPECT_EQ(pair_run(4.7e7, 6.8e7), 1u);
  EXPECT_EQ(pair_run(2.0e7, 6.8e7), 0u);
  EXPECT_EQ(pair_run(4.7e7, 4.8e7), 0u);
}

// Set 41's MLP in one range: cuBLASLt's GEMM writes a 50 MB bf16 output, of which 33 MB are counted (L2 still held
// the rest dirty when it ended); a bias kernel reads all 50 MB back and writes as much (29 MB counted), a GELU kernel
// reads that and writes as much, each near the DRAM roof with no shared-memory traffic. Both belong in the library
// call's epilogue (cuBLASLt's GELU_BIAS): one item, the two passes' whole time, under the 64 MiB an intermediate
// must have to be fused otherwise. A consumer that exchanges data on chip (a softmax over rows) is no epilogue.
TEST(Advice, ElementwisePassesOverAProductsOutputGoInItsEpilogueWhateverItsSize) {
  auto mlp_run = [](double gelu_reads, double gelu_shared, double bias_writes = 2.9e7, double gemm_writes = 3.33e7,
                    double bias_reads = 5.03e7) {
    ProfileRun run;
    run.device.name = "NVIDIA H200";
    Stage s;
    s.name = "mlp_fc";
    s.kernels.push_back(stage_group("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", 56.5e3, 2.6e7, gemm_writes, 33.6));
    s.kernels.back().metrics.tensor_pipe_pct = 77.7;
    s.kernels.back().metrics.flops_tensor = 3.87e10;
    s.kernels.push_back(stage_group("add_bias_bf16", 33.2e3, bias_reads, bias_writes, 78.8));
    s.kernels.back().metrics.shared_wavefronts = 0;
    s.kernels.push_back(stage_group("gelu_forward_bf16", 36.8e3, gelu_reads, 3.3e7, 77.4));
    s.kernels.back().metrics.shared_wavefronts = gelu_shared;
    run.stages.push_back(s);
    analyze_run(run, datasheet_db(), shipped());
    return run;
  };
  const ProfileRun run = mlp_run(5.03e7, 0);
  ASSERT_EQ(run.program_opportunities.size(), 1u);
  const Opportunity& o = run.program_opportunities[0];
  EXPECT_EQ(o.remedy, "library_tuning");
  EXPECT_EQ(o.kernel_remedy, "fuse_stages");  // the fusion, through the library's call
  EXPECT_EQ(o.kernels, (std::vector<std::string>{"mlp_fc · nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT",
                                                  "mlp_fc · add_bias_bf16", "mlp_fc · gelu_forward_bf16"}));
  EXPECT_NE(o.name.find("epilogue"), std::string::npos) << o.name;
  EXPECT_NE(o.name.find("gelu_forward_bf16"), std::string::npos) << o.name;
  EXPECT_GE(o.est_gain_pct, 95.0);  // both passes' whole time
  EXPECT_NEAR(o.run_share_pct, (33.2 + 36.8) / (56.5 + 33.2 + 36.8) * 100.0, 0.1);
  // A GELU reading half of what the bias wrote is not a pass over the same elements: the bias alone goes.
  const ProfileRun half = mlp_run(2.5e7, 0);
  ASSERT_EQ(half.program_opportunities.size(), 1u);
  EXPECT_EQ(half.program_opportunities[0].kernels.size(), 2u);
  // Nor one that exchanges data on chip.
  const ProfileRun rows = mlp_run(5.03e7, 1e6);
  ASSERT_EQ(rows.program_opportunities.size(), 1u);
  EXPECT_EQ(rows.program_opportunities[0].kernels.size(), 2u);
  // A first consumer writing little (a row sum by warp shuffles: no shared memory either) is no epilogue, and the
  // product's 33 MB counted are under fusion_min_bytes: no item.
  EXPECT_TRUE(mlp_run(5.03e7, 0, 1e5).program_opportunities.empty());
  // Nor is a pass over 50 MB after a product counted writing 2 MB (L2 holds at most as much dirty as was counted:
  // the pass reads something else), nor one reading a third of the product's output (RoPE on q of a fused QKV
  // projection); their sizes are under fusion_min_bytes.
  EXPECT_TRUE(mlp_run(5.03e7, 0, 2.9e7, 2e6).program_opportunities.empty());
  EXPECT_TRUE(mlp_run(1.68e7, 0, 1.68e7, 3.33e7, 1.68e7).program_opportunities.empty());
}

// Set 40's Monte-Carlo price in one range: cuRAND's Philox writes 1 GB of normals, Thrust's transform (a CUB kernel
// the program instantiated) reads them and writes 1 GB of payoffs, CUB's reduce reads those, each near the DRAM
// roof. Thrust and CUB are header libraries: a transform iterator or transform_reduce takes the neighbours into the
// call, so the chain is one fusion item. cuFFT's passes, and PyTorch's own copy of CUB, stay closed calls: no item.
TEST(Advice, AHeaderLibrarysKernelsAreOpenToFusionAClosedLibrarysAreNot) {
  auto mc_run = [](const char* transform_signature, const char* reduce_signature,
                   const char* transform = "transform_kernel", const char* reduce = "DeviceReduceKernel") {
    ProfileRun run;
    run.device.name = "NVIDIA H200";
    Stage s;
    s.name = "mc_price";
    s.kernels.push_back(stage_group("gen_sequenced_Philox", 525e3, 4e6, 1.06e9, 66.0));
    s.kernels.push_back(stage_group(transform, 712e3, 1.08e9, 1.06e9, 98.0));
    s.kernels.back().signature = transform_signature;
    s.kernels.push_back(stage_group(reduce, 352e3, 1.07e9, 2e6, 98.0));
    s.kernels.back().signature = reduce_signature;
    run.stages.push_back(s);
    analyze_run(run, datasheet_db(), shipped());
    std::vector<Opportunity> fuse;
    for (const auto& o : run.program_opportunities)
      if (o.remedy == "fuse_stages") fuse.push_back(o);
    return fuse;
  };
  const auto open = mc_run("void cub::_V_300000_SM_900::detail::transform::transform_kernel<PayoffOp>(...)",
                           "void cub::_V_300000_SM_900::detail::reduce::DeviceReduceKernel<double, plus>(...)");
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].kernels, (std::vector<std::string>{"mc_price · gen_sequenced_Philox", "mc_price · transform_kernel",
                                                        "mc_price · DeviceReduceKernel"}));
  EXPECT_GT(open[0].est_gain_pct, 50.0);
  // PyTorch's copy of CUB is reached only through the op's call: closed, as a closed-source library's kernel is.
  EXPECT_TRUE(mc_run("void at_cuda_detail::cub::transform_kernel<PayoffOp>(...)",
                     "void at_cuda_detail::cub::DeviceReduceKernel<double, plus>(...)")
                  .empty());
  EXPECT_TRUE(mc_run("regular_fft_pass(...)", "vector_fft_pass(...)").empty());
  // A user's kernels instantiated on a library's types are the user's (the owner is read off the qualified name, as
  // kernel_owner reads it): open to fusion.
  const auto user = mc_run("void payoff_kernel<cutlass::half_t>(cutlass::half_t const*, float*)",
                           "void reduce_payoffs<cutlass::half_t>(float const*, double*)", "payoff_kernel",
                           "reduce_payoffs");
  ASSERT_EQ(user.size(), 1u);
  EXPECT_EQ(user[0].kernels.size(), 3u);  // the reduction too: a user's kernel, whatever its arguments' types
}

// Set 32's top-p sampling: in one range a softmax, a scan and an argmax over 64 rows each launch 64 blocks (one per
// row) for 132 SMs beside a sort of 1527 blocks. Each kernel's "fill the GPU" is smaller than the sort's item; the
// launch shape they share is one step, worth their items together: one stage item, and the top 3 does not list the
// kernels' own grid-fill items beside it.
TEST(Advice, KernelsOfARangeSharingAnUnderfilledLaunchShapeAreOneItem) {
  auto make_run = [](double second_blocks) {
    ProfileRun run;
    run.device.name = "NVIDIA H200";
    Stage s;
    s.name = "top_p";
    // The scan is a library's (CUB's): its grid fill comes through the call, and counts the same.
    for (auto [kernel, ns, blocks] : {std::tuple{"softmax_rows", 130e3, 64.0}, std::tuple{"DeviceScanKernel", 210e3,
                                                                                          second_blocks},
                                      std::tuple{"argmax_rows", 41e3, 64.0}, std::tuple{"sort_onesweep", 470e3, 1527.0}}) {
      // The sort streams at 70% of the DRAM roof: its item (about 30% of 470 us) beats each kernel's grid fill
      // (52% of 41-210 us), not their sum.
      s.kernels.push_back(stage_group(kernel, ns, 3e7, 1e7, blocks > 132 ? 70 : 20));
      s.kernels.back().metrics.grid_size = blocks;
      s.kernels.back().metrics.waves_per_sm = blocks / 132.0 / 8.0;
    }
    run.stages.push_back(s);
    analyze_run(run, datasheet_db(), shipped());
    return run;
  };
  ProfileRun run = make_run(64);
  std::vector<const Opportunity*> fill;
  for (const auto& o : run.program_opportunities)
    if (o.remedy == "grid_fill") fill.push_back(&o);
  ASSERT_EQ(fill.size(), 1u);
  EXPECT_EQ(fill[0]->scope, "stage");
  EXPECT_EQ(fill[0]->kernels.size(), 3u);
  // Their own items' run gains, summed.
  double own = 0;
  for (const auto& g : run.stages[0].kernels)
    for (const auto& o : g.analysis->opportunities)
      if ((o.remedy == "grid_fill" || o.kernel_remedy == "grid_fill") && g.metrics.grid_size == 64.0)
        own += o.run_gain_pct;
  EXPECT_GT(own, 0.0);
  EXPECT_NEAR(fill[0]->run_gain_pct, own, 1e-9);
  // Of the three kernels' time, weighted by it: each 64-block kernel idles 68 of the 132 SMs.
  EXPECT_NEAR(fill[0]->est_gain_pct, (1.0 - 64.0 / 132.0) * 100.0, 0.5);
  EXPECT_NEAR(fill[0]->run_gain_pct, fill[0]->est_gain_pct * fill[0]->run_share_pct / 100.0, 1e-9);
  const auto top = render::top_opportunities(run, 3);
  ASSERT_FALSE(top.empty());
  EXPECT_EQ(top[0].scope, "stage") << top[0].name;
  for (const auto& o : top) {
    if (o.scope == "kernel") {
      EXPECT_EQ(o.name.find("Fill the GPU"), std::string::npos) << o.kernel_label;
    }
  }
  // Launch shapes that differ are not one step: the scan's 96 blocks leave two kernels of 64, still one item; and
  // with one kernel of a shape, none.
  ProfileRun two = make_run(96);
  std::size_t items = 0;
  for (const auto& o : two.program_opportunities) items += o.remedy == "grid_fill";
  EXPECT_EQ(items, 1u);
  ProfileRun run_of_one = make_run(96);
  run_of_one.stages[0].kernels.erase(run_of_one.stages[0].kernels.begin());  // the softmax: the argmax alone at 64
  run_of_one.program_opportunities.clear();
  for (auto& g : run_of_one.stages[0].kernels) g.analysis.reset();
  analyze_run(run_of_one, datasheet_db(), shipped());
  for (const auto& o : run_of_one.program_opportunities) EXPECT_NE(o.remedy, "grid_fill") << o.name;
}

namespace {
// A run of one named stage holding one kernel group (1 MB read and written), for the per-range items.
ProfileRun one_stage_run(const std::string& stage, const std::string& kernel, double ns, double dram_pct) {
  ProfileRun run;
  Stage s;
  s.name = stage;
  s.kernels.push_back(stage_group(kernel, ns, 1e6, 1e6, dram_pct));
  run.stages.push_back(s);
  return run;
}
}  // namespace

// A sampler's steps, each in an NVTX range "step<i>" inside "sample": a 0.2 ms kernel, then 50 ms of host work with
// the GPU idle (noise drawn on the CPU), then a 1 ms blocking copy call and a second kernel. The host's work outside
// CUDA calls is the item; the copy's call is a wait, not work.
TEST(Advice, HostWorkInsideARangeIsNamedWhereItRecurs) {
  auto sampler = [](int steps, std::int64_t host_ns) {
    Trace trace;
    trace.strings = {"", "sample", "step", "k"};
    trace.info.api_traced = trace.info.nvtx_traced = true;
    TraceNvtxRange outer;
    outer.name = 1;
    trace.nvtx.push_back(outer);
    std::int64_t t = 0;
    for (int i = 0; i < steps; ++i) {
      trace.strings.push_back("step" + std::to_string(i));
      TraceNvtxRange r;
      r.name = static_cast<StringId>(trace.strings.size() - 1);
      r.depth = 1;
      r.parent = 0;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      auto kernel = [&](std::int64_t at, std::int64_t ns) {
        TraceKernel k;
        k.name = k.function = 3;
        k.start_ns = at + 5000;
        k.end_ns = at + 5000 + ns;
        k.nvtx_range = ri;
        trace.kernels.push_back(k);
        TraceApiCall a;
        a.name = 3;
        a.start_ns = at;
        a.end_ns = at + 4000;
        trace.api_calls.push_back(a);
      };
      kernel(t, 200000);
      t += 205000 + host_ns;
      TraceApiCall copy;
      copy.start_ns = t;
      copy.end_ns = t + 1000000;  // a pageable cudaMemcpy: the host waits in it (no copy record in this trace)
      trace.api_calls.push_back(copy);
      t += 1000000;
      kernel(t, 100000);
      t += 110000;
      r.end_ns = t;
      trace.nvtx.push_back(r);
    }
    trace.nvtx[0].end_ns = t;
    return trace;
  };
  auto run_of = [](const Trace&) { return one_stage_run("sample/step*", "k", 150000, 10); };
  Trace trace = sampler(4, 50000000);
  ProfileRun run = run_of(trace);
  const double span = static_cast<double>(trace.nvtx[0].end_ns);
  auto ops = range_advice(run, trace, span, shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "host_work");
  EXPECT_EQ(ops[0].scope, "stage");
  ASSERT_EQ(ops[0].kernels.size(), 1u);
  EXPECT_EQ(ops[0].kernels[0], "sample/step*");
  // 50 ms of host work in each 51.3 ms step (and the microsecond between a launch call and its kernel): the blocking
  // copy's 1 ms and the kernels are not host work.
  EXPECT_NEAR(ops[0].trigger_value.value_or(0), 4 * 50.0e6, 4 * 1000.0);
  EXPECT_NEAR(ops[0].est_gain_pct, 50.0 / 51.315 * 100.0, 0.5);
  EXPECT_NEAR(ops[0].run_gain_pct, ops[0].est_gain_pct, 0.5);  // the stage spans the whole trace
  // One instance in which CUDA loaded the kernels it uses (a first call), or whose host works most of it (set-up is
  // the host's work), cannot tell its set-up from the steady state. Short gaps are launch costs, not host work.
  Trace cold = sampler(1, 50000000);
  cold.strings.push_back("cuLibraryLoadData");
  TraceApiCall load;
  load.name = static_cast<StringId>(cold.strings.size() - 1);
  load.start_ns = 210000;
  load.end_ns = 30000000;
  cold.api_calls.push_back(load);
  std::sort(cold.api_calls.begin(), cold.api_calls.end(),
            [](const TraceApiCall& a, const TraceApiCall& b) { return a.start_ns < b.start_ns; });
  EXPECT_TRUE(range_advice(run_of(cold), cold, span, shipped()).empty());
  EXPECT_TRUE(range_advice(run_of(sampler(1, 50000000)), sampler(1, 50000000), span, shipped()).empty());
  Trace busy = sampler(4, 500000);
  EXPECT_TRUE(range_advice(run_of(busy), busy, static_cast<double>(busy.nvtx[0].end_ns), shipped()).empty());
  // A stage of another name (the ranges place these launches elsewhere) gets nothing.
  ProfileRun other = run_of(trace);
  other.stages[0].name = "decode/step*";
  EXPECT_TRUE(range_advice(other, trace, span, shipped()).empty());
  // Through analyze_run's trace entry the item reaches the program's items and the contract's top 3.
  ProfileRun whole = run_of(trace);
  analyze_run(whole, datasheet_db(), shipped(), &trace, false);
  ASSERT_FALSE(whole.program_opportunities.empty());
  EXPECT_EQ(whole.program_opportunities.front().remedy, "host_work");
  const auto top = render::top_opportunities(whole, 3);
  ASSERT_FALSE(top.empty());
  EXPECT_EQ(top.front().scope, "stage");
  EXPECT_EQ(top.front().kernel_label, "sample/step*");
}

namespace {
// A launch call `call` at `at` lasting `call_ns`, and its kernel `kernel` from `at + delay_ns` for `kernel_ns`, in the
// NVTX range instance `range`; returns the kernel's end.
std::int64_t launch(Trace& trace, StringId call, StringId kernel, std::int64_t at, std::int64_t call_ns,
                    std::int64_t delay_ns, std::int64_t kernel_ns, int range) {
  TraceApiCall a;
  a.name = call;
  a.start_ns = at;
  a.end_ns = at + call_ns;
  trace.api_calls.push_back(a);
  TraceKernel k;
  k.name = k.function = kernel;
  k.start_ns = at + delay_ns;
  k.end_ns = at + delay_ns + kernel_ns;
  k.nvtx_range = range;
  trace.kernels.push_back(k);
  return k.end_ns;
}

// A blocking 48-byte upload (cudaMemcpy or cudaMemcpyToSymbol without Async) over [start, end).
TraceMemcpy blocking_upload(std::int64_t start, std::int64_t end) {
  TraceMemcpy c;
  c.kind = MemcpyKind::htod, c.async = false, c.bytes = 48;
  c.start_ns = start, c.end_ns = end;
  return c;
}

// A named range "loop" run `instances` times, each holding `kernels` launches of `kernel_ns` with `gap_ns` of idle GPU
// between them (the host issuing the next, 4 us of launch call), after `lead_ns` of host time from the push to the
// first launch call.
Trace loop_trace(int instances, int kernels, std::int64_t kernel_ns, std::int64_t gap_ns, std::int64_t lead_ns,
                 int sync_every = 0, bool growing = false) {
  Trace trace;
  trace.strings = {"", "loop", "k", "cudaLaunchKernel", "cudaStreamSynchronize"};
  trace.info.api_traced = trace.info.nvtx_traced = true;
  std::int64_t t = 0;
  for (int i = 0; i < instances; ++i) {
    TraceNvtxRange r;
    r.name = 1;
    r.start_ns = t;
    const int ri = static_cast<int>(trace.nvtx.size());
    t += lead_ns;
    for (int k = 0; k < kernels; ++k) {
      const std::int64_t end = launch(trace, 3, 2, t, 4000, 5000, kernel_ns, ri);
      if (sync_every > 0 && (k + 1) % sync_every == 0) {  // the host waits for the kernel, then returns
        TraceApiCall w;
        w.name = 4;
        w.start_ns = t + 4000;
        w.end_ns = end + 2000;
        trace.api_calls.push_back(w);
      }
      t = end + gap_ns * (growing ? i + 1 : 1);  // growing: instance i's gaps are i + 1 times gap_ns
    }
    r.end_ns = t;
    trace.nvtx.push_back(r);
    t += 1000000;  // between the instances: outside the range
  }
  return trace;
}
}  // namespace

// The host's work between a range's launches sitting inside nested NVTX ranges that launch nothing, labelled as
// compilation (JAX's "XlaCompile:#module=...#" around a jax.jit built anew for each batch; set 37): the item says so
// and names the change, compile once, also where the stream runs a host function each instance (XLA enqueues one
// per execution: not callbacks holding the stream). Without such ranges, the plain host-work item.
TEST(Advice, HostWorkInsideCompilationRangesIsToCompileOnce) {
  auto host_item = [](bool annotated) {
    Trace trace = loop_trace(4, 2, 100000, 5000000, 0);
    const auto compile = static_cast<StringId>(trace.strings.size());
    trace.strings.push_back("XlaCompile:#module=jit_standardize#");
    const auto host_fn = static_cast<StringId>(trace.strings.size());
    trace.strings.push_back("cudaLaunchHostFunc");
    const std::size_t instances = trace.nvtx.size();
    for (std::size_t i = 0; i < instances; ++i) {
      const TraceNvtxRange r = trace.nvtx[i];
      if (annotated)
        for (std::int64_t gap_start : {std::int64_t{105000}, std::int64_t{5214000}}) {
          TraceNvtxRange c;  // 4 of the 5 ms after each of the two kernels
          c.name = compile;
          c.start_ns = r.start_ns + gap_start + 500000;
          c.end_ns = c.start_ns + 4000000;
          c.parent = static_cast<int>(i);
          c.depth = 1;
          trace.nvtx.push_back(c);
        }
      TraceApiCall h;
      h.name = host_fn;
      h.start_ns = r.start_ns + 4700000;
      h.end_ns = h.start_ns + 3000;
      trace.api_calls.push_back(h);
    }
    std::sort(trace.api_calls.begin(), trace.api_calls.end(),
              [](const TraceApiCall& a, const TraceApiCall& b) { return a.start_ns < b.start_ns; });
    ProfileRun run = one_stage_run("loop", "k", 100000, 10);
    run.stages[0].kernels[0].duration_ns.count = 8;
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    std::optional<Opportunity> found;
    for (const auto& o : run.program_opportunities)
      if (o.trigger_metric == "host_work_ns") found = o;
    return found;
  };
  const auto compiled = host_item(true);
  ASSERT_TRUE(compiled);
  EXPECT_EQ(compiled->remedy, "host_work");
  EXPECT_NE(compiled->name.find("Compile once"), std::string::npos) << compiled->name;
  EXPECT_NE(compiled->rationale.find("\"XlaCompile\""), std::string::npos) << compiled->rationale;
  EXPECT_EQ(compiled->rationale.find("cudaLaunchHostFunc"), std::string::npos) << compiled->rationale;
  const auto plain = host_item(false);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->name.find("Compile once"), std::string::npos) << plain->name;
  EXPECT_EQ(plain->rationale.find("XlaCompile"), std::string::npos) << plain->rationale;
  // Without the compilation ranges the host function does read as callbacks holding the stream.
  EXPECT_NE(plain->rationale.find("cudaLaunchHostFunc"), std::string::npos) << plain->rationale;
}

// A range whose GPU idles most of its typical instance is bound outside its kernels (Stage::bound): the sampler's
// host work, a loop of short launches with gaps between them. The time before the first launch (one call's own
// overhead) is not the range's idling unless the host computes there for gap_host_work_max_ns or more, and a range
// whose kernels run back to back is not bound.
TEST(Advice, ARangeWhoseGpuIdlesIsBoundOutsideItsKernels) {
  auto bound_of = [](const Trace& trace, int instances = 4) {
    ProfileRun run = one_stage_run("loop", "k", 5000, 10);
    run.stages[0].kernels[0].duration_ns.count = static_cast<std::size_t>(instances);
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run;
  };
  // 20 launches of 5 us, 15 us apart: 75% idle.
  ProfileRun gaps = bound_of(loop_trace(4, 20, 5000, 15000, 0));
  ASSERT_TRUE(gaps.stages[0].range);
  EXPECT_EQ(gaps.stages[0].range->instances, 4);
  EXPECT_NEAR(gaps.stages[0].range->span_ns, 20 * 5000 + 19 * 20000, 1.0);  // first kernel's start to last's end
  ASSERT_TRUE(gaps.stages[0].bound);
  EXPECT_EQ(gaps.stages[0].bound->cause, "launch_overhead");
  EXPECT_EQ(gaps.stages[0].bound->kind, BottleneckKind::latency);
  EXPECT_NE(gaps.stages[0].bound->key_issue.find("launch gaps"), std::string::npos) << gaps.stages[0].bound->key_issue;
  EXPECT_NE(gaps.stages[0].bound->key_issue.find("GPU idle 79%"), std::string::npos) << gaps.stages[0].bound->key_issue;
  // The whole run's bottleneck is its dominant stage's bound, and the contract leads the stage's rows with the
  // range's.
  ASSERT_TRUE(gaps.overall);
  EXPECT_EQ(gaps.overall->cause, "launch_overhead");
  const auto view = render::build_contract_view(gaps, nullptr);
  ASSERT_EQ(view.stages.size(), 2u);
  EXPECT_EQ(view.stages[0].scope, "range");
  EXPECT_EQ(view.stages[0].display, "loop (range)");
  EXPECT_EQ(view.stages[0].launches, 4u);
  EXPECT_EQ(view.stages[0].bottleneck, "latency");
  EXPECT_EQ(view.stages[1].scope, "kernel");
  EXPECT_EQ(view.bottleneck_kind, "latency");
  // The program's launch-gap item (80 launches, the GPU idle most of the trace) names the stage: the range's own
  // item for the same gaps stands aside.
  auto range_item = [](const ProfileRun& run) {
    const Opportunity* item = nullptr;
    for (const auto& o : run.program_opportunities)
      if (o.trigger_metric == "range_gap_ns") item = &o;
    return item;
  };
  EXPECT_EQ(range_item(gaps), nullptr);
  bool program_item = false;
  for (const auto& o : gaps.program_opportunities) program_item |= o.scope == "program";
  EXPECT_TRUE(program_item);
  // The program's item counts blocking uploads as host waits too (a cudaMemcpy without Async after every launch):
  // host_sync, as the range's item would say.
  {
    Trace uploads = loop_trace(4, 20, 5000, 15000, 0);
    for (const auto& k : std::vector<TraceKernel>(uploads.kernels))
      uploads.memcpys.push_back(blocking_upload(k.end_ns + 1000, k.end_ns + 1900));
    ProfileRun up = bound_of(uploads);
    const Opportunity* program = nullptr;
    for (const auto& o : up.program_opportunities)
      if (o.scope == "program") program = &o;
    ASSERT_NE(program, nullptr);
    EXPECT_EQ(program->remedy, "host_sync");
  }
  // Under the program item's 50 launches, the range's own item: a graph (no waits between the launches), each node's
  // own cost (graph_node_ns, 1 us) kept; not the 4-us launch call's, which a graph does not make.
  ProfileRun few = bound_of(loop_trace(4, 10, 5000, 15000, 0));
  const Opportunity* item = range_item(few);
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->remedy, "launch_overhead");
  EXPECT_EQ(item->scope, "stage");
  EXPECT_NEAR(item->est_gain_pct, (9 * 20000.0 - 10 * 1000.0) / (10 * 5000 + 9 * 20000) * 100.0, 0.01);
  // A one-off lead (the host computing 300 ms in the first instance before its first launch: a compile) is that
  // instance's host work, not GPU time the gaps' item is a share of: its run share stays.
  {
    Trace compiled = loop_trace(4, 10, 5000, 15000, 0);
    compiled.nvtx[0].start_ns -= 300000000;
    ProfileRun once_compiled = bound_of(compiled);
    const Opportunity* lead_item = range_item(once_compiled);
    ASSERT_NE(lead_item, nullptr);
    EXPECT_NEAR(lead_item->run_share_pct, item->run_share_pct, 0.01);
    EXPECT_NEAR(lead_item->est_gain_pct, item->est_gain_pct, 0.01);
  }
  // Instances of unequal gaps (instance i waits i + 1 times as long between launches): the item is the typical
  // instance's (the lower median by idle share, the second of four) once per instance, as the range's other items
  // count theirs, not every instance's GPU span (a first call's one-off waits are not what the remedy removes per
  // range; set 25's FFT per new clip length ranked its launch gaps over its host work on them).
  {
    const Trace uneven_trace = loop_trace(4, 10, 5000, 15000, 0, 0, true);
    ProfileRun uneven = bound_of(uneven_trace);
    const Opportunity* uneven_item = range_item(uneven);
    ASSERT_NE(uneven_item, nullptr);
    ASSERT_TRUE(uneven.stages[0].range);
    const double typical = uneven.stages[0].range->span_ns;  // the typical instance's GPU span
    EXPECT_NEAR(typical, 10 * 5000 + 9 * (2 * 15000 + 5000), 1.0);  // the second instance's
    const double traced = static_cast<double>(uneven_trace.kernels.back().end_ns - uneven_trace.kernels.front().start_ns);
    // 30.2%, where every instance's GPU span would make it 37.6%.
    EXPECT_NEAR(uneven_item->run_share_pct, 4 * typical / traced * 100.0, 0.5) << uneven_item->trigger;
  }
  // Analysed again without the trace (kprof analyze of an artifact read back from its profile.json), the stage keeps
  // its range figures and so its bound; with figures that no longer idle, neither the bound nor the run's bottleneck
  // stays.
  analyze_run(few, datasheet_db(), shipped());
  ASSERT_TRUE(few.stages[0].bound);
  EXPECT_EQ(few.overall->cause, "launch_overhead");
  few.stages[0].range->idle_ns = 0;
  analyze_run(few, datasheet_db(), shipped());
  EXPECT_FALSE(few.stages[0].bound);
  EXPECT_NE(few.overall->cause, "launch_overhead");
  EXPECT_EQ(render::build_contract_view(few, nullptr).stages.size(), 1u);
  // With a synchronisation after every launch, each gap follows a wait that drained the queue: the waits go first.
  ProfileRun waits = bound_of(loop_trace(4, 10, 5000, 15000, 0, 1));
  ASSERT_TRUE(waits.stages[0].bound);
  EXPECT_NE(waits.stages[0].bound->key_issue.find("after host waits"), std::string::npos);
  EXPECT_GE(waits.stages[0].range->host_waits, 9);
  EXPECT_NEAR(waits.stages[0].range->wait_gaps_ns, 9 * 20000.0, 1.0);
  item = range_item(waits);
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->remedy, "host_sync");
  EXPECT_EQ(item->name.find("then capture"), std::string::npos) << item->name;  // the drains are the gaps
  // With the waits dropped the host queues each 4 us launch while the GPU runs its 5 us kernels: every gap goes
  // (the launch calls' 40 us hide under the kernels' 50 us), of a span of 10 kernels and 9 gaps of 20 us.
  EXPECT_NEAR(item->est_gain_pct, 9 * 20000.0 / (10 * 5000 + 9 * 20000) * 100.0, 0.01);
  // A blocking upload between the launches (cudaMemcpyToSymbol or cudaMemcpy without Async synchronises the stream
  // first) is such a wait too: set 30's 48-byte weights before each diffusion step.
  {
    Trace uploads = loop_trace(4, 10, 5000, 15000, 0);
    std::vector<TraceMemcpy> copies;
    for (std::size_t i = 0; i + 1 < uploads.kernels.size(); ++i) {
      if (uploads.kernels[i].nvtx_range != uploads.kernels[i + 1].nvtx_range) continue;
      copies.push_back(blocking_upload(uploads.kernels[i].end_ns + 1000, uploads.kernels[i].end_ns + 1900));
    }
    uploads.memcpys = copies;
    ProfileRun up = bound_of(uploads);
    ASSERT_TRUE(up.stages[0].range);
    EXPECT_GE(up.stages[0].range->waits_between, 9);
    item = range_item(up);
    ASSERT_NE(item, nullptr);
    EXPECT_EQ(item->remedy, "host_sync");
    // One blocking upload before each instance's first kernel (inside the range, so inside its GPU span) is not
    // between launches: the launches are what to cut.
    Trace leading = loop_trace(4, 10, 5000, 15000, 0);
    std::vector<TraceMemcpy> first;
    for (const auto& r : leading.nvtx) first.push_back(blocking_upload(r.start_ns + 1000, r.start_ns + 3000));
    leading.memcpys = first;
    ProfileRun lead = bound_of(leading);
    ASSERT_TRUE(lead.stages[0].range);
    EXPECT_EQ(lead.stages[0].range->waits_between, 0);
    item = range_item(lead);
    ASSERT_NE(item, nullptr);
    EXPECT_EQ(item->remedy, "launch_overhead");
  }
  // After every third launch: 3 of the 9 gaps follow a wait, the launches are what to cut, but a graph cannot span
  // the waits between them: the waits go first, then the graph (the item says both).
  ProfileRun sparse = bound_of(loop_trace(4, 10, 5000, 15000, 0, 3));
  EXPECT_NEAR(sparse.stages[0].range->wait_gaps_ns, 3 * 20000.0, 1.0);
  EXPECT_GE(sparse.stages[0].range->waits_between, 3);
  item = range_item(sparse);
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->remedy, "host_sync");
  EXPECT_NE(item->name.find("then capture the loop in a CUDA graph"), std::string::npos) << item->name;
  EXPECT_NE(item->rationale.find("cannot span them"), std::string::npos) << item->rationale;
  // One wait after the last launch (the step's result read once): no launch follows it, a graph captures the whole
  // loop, the launches are what to cut.
  ProfileRun last = bound_of(loop_trace(4, 10, 5000, 15000, 0, 10));
  EXPECT_GE(last.stages[0].range->host_waits, 1);
  EXPECT_EQ(last.stages[0].range->waits_between, 0);
  item = range_item(last);
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->remedy, "launch_overhead");
  const std::string report = render::render_report(gaps, nullptr);
  EXPECT_NE(report.find("## Range: loop\n\nGPU idle 79% of each loop range"), std::string::npos) << report;
  // The host computing 5 ms between two launches of each instance: host work.
  ProfileRun work = bound_of(loop_trace(4, 2, 100000, 5000000, 0));
  ASSERT_TRUE(work.stages[0].bound);
  EXPECT_NE(work.stages[0].bound->key_issue.find("host work"), std::string::npos) << work.stages[0].bound->key_issue;
  // 0.5 ms of host time before one 0.1 ms launch (a call's own overhead, under gap_host_work_max_ns): the range's GPU
  // span is the kernel, nothing idles.
  ProfileRun lead = bound_of(loop_trace(4, 1, 100000, 0, 500000));
  ASSERT_TRUE(lead.stages[0].range);
  EXPECT_EQ(lead.stages[0].range->idle_ns, 0.0);
  EXPECT_NEAR(lead.stages[0].range->span_ns, 100000.0, 1.0);
  EXPECT_FALSE(lead.stages[0].bound);
  // 50 ms of it, outside any CUDA call: the host computing in the range before its first launch (set 32's subword
  // hashing and np.unique, before each range's first kernel) is the range's host work, and binds it.
  ProfileRun computes = bound_of(loop_trace(4, 1, 100000, 0, 50000000));
  ASSERT_TRUE(computes.stages[0].range);
  EXPECT_NEAR(computes.stages[0].range->span_ns, 100000.0 + 50000000.0, 10000.0);
  EXPECT_NEAR(computes.stages[0].range->host_work_ns, 50000000.0, 10000.0);
  ASSERT_TRUE(computes.stages[0].bound);
  EXPECT_NE(computes.stages[0].bound->key_issue.find("host work"), std::string::npos)
      << computes.stages[0].bound->key_issue;
  // The GPU still busy for the first 40 ms of each lead with work queued before the range (a kernel of no range):
  // only the 10 ms the GPU idles are the range's host work, and its span.
  {
    Trace queued = loop_trace(4, 1, 100000, 0, 50000000);
    queued.strings.push_back("queued");
    const auto queued_name = static_cast<StringId>(queued.strings.size() - 1);
    for (const auto& r : std::vector<TraceNvtxRange>(queued.nvtx)) {
      TraceKernel k;  // launched before the range: it starts 0.5 ms before the push and runs 40 ms into the range
      k.name = k.function = queued_name;
      k.start_ns = r.start_ns - 500000;
      k.end_ns = r.start_ns + 40000000;
      queued.kernels.push_back(k);
    }
    std::sort(queued.kernels.begin(), queued.kernels.end(),
              [](const TraceKernel& a, const TraceKernel& b) { return a.start_ns < b.start_ns; });
    ProfileRun busy_lead = bound_of(queued);
    ASSERT_TRUE(busy_lead.stages[0].range);
    EXPECT_NEAR(busy_lead.stages[0].range->host_work_ns, 10000000.0, 10000.0);
    EXPECT_NEAR(busy_lead.stages[0].range->span_ns, 100000.0 + 10000000.0, 10000.0);
  }
  // Back to back (1 us apart): busy, not bound, no item; the run's bottleneck stays its kernel's.
  ProfileRun busy = bound_of(loop_trace(4, 20, 50000, 1000, 0));
  ASSERT_TRUE(busy.stages[0].range);
  EXPECT_FALSE(busy.stages[0].bound);
  for (const auto& o : busy.program_opportunities) EXPECT_NE(o.trigger_metric, "range_gap_ns");
  ASSERT_TRUE(busy.overall);
  EXPECT_NE(busy.overall->cause, "launch_overhead");
  EXPECT_EQ(render::build_contract_view(busy, nullptr).stages.size(), 1u);
  // The typical instance is the lower median by idle share: of gaps 15, 30 and 45 us, the 30 us one.
  ProfileRun growing = bound_of(loop_trace(3, 10, 5000, 15000, 0, 0, true), 3);
  ASSERT_TRUE(growing.stages[0].range);
  EXPECT_NEAR(growing.stages[0].range->span_ns, 10 * 5000 + 9 * 35000, 1.0);
  // One instance with nothing loaded in it and little host work (a call warmed up before the range): its gaps are
  // launch gaps, the range is bound by them (a cold one: Advice.ARangeCalledOnceAfterAWarmUpHasItsFiguresAndAColdOne
  // HasNone).
  ProfileRun once = bound_of(loop_trace(1, 20, 5000, 15000, 0), 1);
  ASSERT_TRUE(once.stages[0].range);
  EXPECT_EQ(once.stages[0].range->instances, 1);
  ASSERT_TRUE(once.stages[0].bound);
  EXPECT_EQ(once.stages[0].bound->cause, "launch_overhead");
}

// Set 22's graph rebuilt every step: each of a range's steps launches a graph of 16 kernels of 4 us, back to back,
// and the host captures and instantiates the graph again before the next step (40 us of gap between the graph's
// launches). The kernels are graph nodes: no launch-overhead cause that owns the gaps ("a CUDA graph removes them"
// cannot apply), a launch count of one per graph launch, and the range's gaps are the host's work between them.
TEST(Advice, KernelsThatRunAsGraphNodesAreNotToldToUseAGraph) {
  auto graph_steps = [](bool graphed, std::int64_t instantiate_ns = 0, std::int64_t node_gap_ns = 0) {
    Trace trace;
    trace.strings = {"", "steps", "k", "cudaGraphLaunch", "cudaGraphInstantiate"};
    trace.info.api_traced = trace.info.nvtx_traced = true;
    std::int64_t t = 0;
    std::uint32_t correlation = 1;
    for (int rep = 0; rep < 2; ++rep) {
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      for (int step = 0; step < 3; ++step, ++correlation) {
        TraceApiCall a;
        a.name = 3;
        a.start_ns = t;
        a.end_ns = t + 3000;
        a.correlation = correlation;
        trace.api_calls.push_back(a);
        t += 5000;
        for (int n = 0; n < 16; ++n) {
          TraceKernel k;
          k.name = k.function = 2;
          k.start_ns = t;
          k.end_ns = t + 4000;
          k.nvtx_range = ri;
          k.correlation = graphed ? correlation : correlation * 100 + static_cast<std::uint32_t>(n);
          k.graph_id = graphed ? 7 : 0;
          trace.kernels.push_back(k);
          t += 4000 + (n < 15 ? node_gap_ns : 0);
        }
        if (instantiate_ns > 0) {  // the instantiation as a call of its own (else host time outside calls)
          TraceApiCall inst;
          inst.name = 4;
          inst.start_ns = t + 5000;
          inst.end_ns = t + 5000 + instantiate_ns;
          trace.api_calls.push_back(inst);
        }
        t += 40000;  // the host captures and instantiates the graph again
      }
      r.end_ns = t;
      trace.nvtx.push_back(r);
      t += 1000000;
    }
    ProfileRun run = one_stage_run("steps", "k", 4000, 10);
    KernelGroup& g = run.stages[0].kernels[0];
    g.duration_ns.count = 96;
    g.span_ns = static_cast<double>(trace.kernels.back().end_ns - trace.kernels.front().start_ns);
    g.gpu_idle_ns = *g.span_ns - 96 * 4000.0;
    g.graph_node_launches = graphed ? 96 : 0;
    for (auto& k : trace.kernels) g.launches.push_back(KernelLaunch{.duration_ns = 4000.0, .start_ns = double(k.start_ns)});
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run;
  };
  // Launched one by one, the same timeline is the kernel's own launch overhead, which owns the gaps.
  ProfileRun plain = graph_steps(false);
  const auto& own = *plain.stages[0].kernels[0].analysis;
  ASSERT_FALSE(own.causes.empty());
  EXPECT_EQ(own.causes.front().id, "launch_overhead");
  EXPECT_TRUE(owns_launch_gaps(plain.stages[0].kernels[0], shipped()));
  // As graph nodes: a tiny kernel still (4 us), but with no gain figure and no ownership of the gaps.
  ProfileRun graph = graph_steps(true);
  const KernelGroup& g = graph.stages[0].kernels[0];
  EXPECT_TRUE(g.graph_launched());
  EXPECT_FALSE(owns_launch_gaps(g, shipped()));
  for (const auto& c : g.analysis->causes)
    if (c.id == "launch_overhead") {
      EXPECT_EQ(c.gain_pct, 0.0);
      EXPECT_NE(c.evidence.find("node of a CUDA graph"), std::string::npos) << c.evidence;
    }
  ASSERT_TRUE(graph.stages[0].range);
  EXPECT_EQ(graph.stages[0].range->launches, 3);  // one per graph launch, not 48 kernels
  const Opportunity* gaps = nullptr;
  for (const auto& o : graph.program_opportunities)
    if (o.trigger_metric == "range_gap_ns") gaps = &o;
  ASSERT_NE(gaps, nullptr);
  EXPECT_EQ(gaps->remedy, "host_work");
  EXPECT_NE(gaps->name.find("instantiate once"), std::string::npos) << gaps->name;
  EXPECT_NE(gaps->rationale.find("already run as nodes of a CUDA graph"), std::string::npos) << gaps->rationale;
  // Nor does the program's launch-gap item (a graph, fewer waits) take the gaps between a graph's launches.
  for (const auto& o : graph.program_opportunities) EXPECT_NE(o.scope, "program") << o.name;
  // The instantiation as a call of 30 us between two graph launches, the GPU idle: the host's work inside the
  // driver, in a trace without copy records too (it is never a copy).
  ProfileRun instantiated = graph_steps(true, 30000);
  ASSERT_TRUE(instantiated.stages[0].range);
  EXPECT_NEAR(instantiated.stages[0].range->host_work_ns, 2 * 30000.0, 1.0);
  // 3 us between the nodes of each launch (45 gaps in the three launches of the typical instance) are the graph's own
  // cost: not launch gaps.
  ProfileRun spaced = graph_steps(true, 0, 3000);
  ASSERT_TRUE(spaced.stages[0].range);
  EXPECT_NEAR(spaced.stages[0].range->graph_node_gaps_ns, 45 * 3000.0, 1.0);
  EXPECT_NEAR(spaced.stages[0].range->launch_gaps_ns, graph.stages[0].range->launch_gaps_ns, 1.0);
}

// Set 14's scratch buffer: every step of a range allocates and frees it (cudaMalloc 56 us, cudaFree 92 us, which
// synchronises the device: it begins while the step's kernel runs) around a short kernel. The host held in those calls
// while the GPU idles is the range's item: host_sync, its estimate the idle time in both calls (allocating once
// removes the two). A blocking copy or a synchronisation counts only where the trace records copies: without them the
// GPU may be copying, unseen, while the host waits.
TEST(Advice, AllocationsInsideARangeNameHostSynchronisation) {
  auto steps = [](const std::string& call, int per_range = 64) {
    Trace trace;
    trace.strings = {"", "scratch", "k", call, "cudaLaunchKernel"};
    std::int64_t t = 0;
    for (int rep = 0; rep < 2; ++rep) {
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      for (int i = 0; i < per_range; ++i) {
        for (std::int64_t d : {56000, 92000}) {  // the allocation, then (after the kernel) the free
          TraceApiCall a;
          a.name = 3;
          a.start_ns = t;
          a.end_ns = t + d;
          trace.api_calls.push_back(a);
          t += d;
          // The launch call returns after 4 us, the free begins; the kernel runs from 6 to 26 us, into the free.
          if (d == 56000) t = launch(trace, 4, 2, t, 4000, 6000, 20000, ri) - 22000;
        }
      }
      r.end_ns = t;
      trace.nvtx.push_back(r);
      t += 1000000;
    }
    return trace;
  };
  auto run_of = [] { return one_stage_run("scratch", "k", 20000, 10); };
  Trace alloc = steps("cudaFree");
  auto ops = range_advice(run_of(), alloc, static_cast<double>(alloc.nvtx.back().end_ns), shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "host_sync");
  EXPECT_EQ(ops[0].scope, "stage");
  EXPECT_EQ(ops[0].trigger_metric, "host_blocked_ns");
  // Of each 152 us step, 56 us (the allocation) and 72 us (the free, less the 20 us its kernel runs in it) are spent
  // in the calls with the GPU idle.
  EXPECT_NEAR(ops[0].est_gain_pct, 128.0 / 152.0 * 100.0, 1.0);
  // A short range (four steps, 0.5 ms of blocking calls in 0.6 ms): its share decides, not a 1 ms floor (set 28's
  // edge histograms with CUPTI's counters: 0.98 ms of 1.63 held in synchronisations, no item under the floor).
  Trace brief = steps("cudaFree", 4);
  ops = range_advice(run_of(), brief, static_cast<double>(brief.nvtx.back().end_ns), shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "host_sync");
  EXPECT_NEAR(ops[0].est_gain_pct, 128.0 / 152.0 * 100.0, 1.0);
  // The same calls around a 2 us kernel done before the free begins (1 to 3 us into its 4 us launch call): the GPU
  // idles through both calls, nothing is waited for. The host works inside the driver (set 22's per-frame
  // cudaHostAlloc beside a 3.6 us kernel): host_work, with the rationale saying so.
  Trace own = steps("cudaFree");
  for (auto& k : own.kernels) k.start_ns -= 5000, k.end_ns = k.start_ns + 2000;
  ops = range_advice(run_of(), own, static_cast<double>(own.nvtx.back().end_ns), shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "host_work");
  EXPECT_NE(ops[0].rationale.find("calls that do not wait for the GPU"), std::string::npos) << ops[0].rationale;
  // The same times in synchronisations, in a trace without copy records: nothing is claimed.
  Trace sync = steps("cudaStreamSynchronize");
  EXPECT_TRUE(range_advice(run_of(), sync, static_cast<double>(sync.nvtx.back().end_ns), shipped()).empty());
  // With copy records the GPU's copies are seen, and a synchronisation on an idle GPU counts: as the driver's own work
  // (the GPU's last work ended before the call began, nothing is left to wait for: a stream-ordered pool trimming its
  // memory, as below), so host work.
  TraceMemcpy c;
  c.start_ns = sync.nvtx.back().end_ns + 10;
  c.end_ns = c.start_ns + 10;
  sync.memcpys.push_back(c);
  ops = range_advice(run_of(), sync, static_cast<double>(c.end_ns), shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "host_work");
  // The same waits while the stream runs host functions it enqueued (a cudaLaunchHostFunc per step, set 24's energy
  // log): the GPU idles for the callbacks, host work on the stream's path.
  Trace callbacks = steps("cudaStreamSynchronize");
  callbacks.memcpys.push_back(c);
  callbacks.strings.push_back("cudaLaunchHostFunc");
  for (std::size_t r = 0; r < callbacks.nvtx.size(); ++r) {
    TraceApiCall h;
    h.name = static_cast<StringId>(callbacks.strings.size() - 1);
    h.start_ns = callbacks.nvtx[r].start_ns + 10;
    h.end_ns = h.start_ns + 3000;
    callbacks.api_calls.push_back(h);
  }
  std::sort(callbacks.api_calls.begin(), callbacks.api_calls.end(),
            [](const TraceApiCall& a, const TraceApiCall& b) { return a.start_ns < b.start_ns; });
  ops = range_advice(run_of(), callbacks, static_cast<double>(c.end_ns), shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "host_work");
  EXPECT_NE(ops[0].rationale.find("cudaLaunchHostFunc"), std::string::npos) << ops[0].rationale;
}

// Set 38's Monte Carlo batches on a stream-ordered pool with a release threshold of 0: each batch allocates (an 80 us
// cudaMallocAsync with the GPU idle), launches a 20 us kernel, reads back 24 bytes and synchronises; the pool unmaps
// its memory in the synchronisation, which returns 120 us after the copy. Those 120 us are the driver's own work, not
// a wait: with the allocation, host work (both blind labels: allocate once, or keep the pool's memory), in the range's
// item and in the program's launch-gap item alike. The same synchronisation returning 5 us after the copy is a wait.
TEST(Advice, ASynchronisationsLongTailAfterTheGpusLastWorkIsTheDriversWork) {
  auto batches = [](std::int64_t tail_ns) {
    Trace trace;
    trace.strings = {"", "mc_batches", "k", "cudaMallocAsync", "cudaLaunchKernel", "cudaStreamSynchronize",
                     "cudaMemcpyAsync"};
    std::int64_t t = 0;
    for (int rep = 0; rep < 2; ++rep) {
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      for (int i = 0; i < 24; ++i) {
        TraceApiCall alloc;
        alloc.name = 3, alloc.start_ns = t, alloc.end_ns = t + 80000;
        trace.api_calls.push_back(alloc);
        t += 80000;
        const std::int64_t kernel_end = launch(trace, 4, 2, t, 4000, 6000, 20000, ri);
        TraceApiCall copy_call;
        copy_call.name = 6, copy_call.start_ns = t + 4000, copy_call.end_ns = t + 7000;
        trace.api_calls.push_back(copy_call);
        TraceMemcpy c;
        c.kind = MemcpyKind::dtoh, c.bytes = 24, c.async = true;
        c.start_ns = kernel_end + 1000, c.end_ns = kernel_end + 3000;
        trace.memcpys.push_back(c);
        TraceApiCall sync;
        sync.name = 5, sync.start_ns = t + 7000, sync.end_ns = c.end_ns + tail_ns;
        trace.api_calls.push_back(sync);
        t = sync.end_ns + 2000;
      }
      r.end_ns = t;
      trace.nvtx.push_back(r);
      t += 1000000;
    }
    std::sort(trace.api_calls.begin(), trace.api_calls.end(),
              [](const TraceApiCall& a, const TraceApiCall& b) { return a.start_ns < b.start_ns; });
    return trace;
  };
  auto run_of = [] { return one_stage_run("mc_batches", "k", 20000, 10); };
  Trace trimming = batches(120000);
  auto ops = range_advice(run_of(), trimming, static_cast<double>(trimming.nvtx.back().end_ns), shipped());
  ASSERT_FALSE(ops.empty());
  EXPECT_EQ(ops[0].remedy, "host_work");
  EXPECT_NE(ops[0].rationale.find("cudaMemPoolAttrReleaseThreshold"), std::string::npos) << ops[0].rationale;
  ProfileRun whole = run_of();
  analyze_run(whole, datasheet_db(), shipped(), &trimming, false);
  for (const auto& o : whole.program_opportunities) EXPECT_NE(o.remedy, "host_sync") << o.trigger;
  ASSERT_TRUE(whole.stages[0].range);
  EXPECT_LT(whole.stages[0].range->host_blocked_ns, 24 * 5000.0);  // the 1 us between kernel and copy, each batch
  EXPECT_GT(whole.stages[0].range->host_work_ns, 24 * 180000.0);   // most of the allocation and the tail, each batch
  // Returning 5 us after the copy, the synchronisation waited until it returned: its tail is the host waiting.
  Trace waits = batches(5000);
  ProfileRun waited = run_of();
  analyze_run(waited, datasheet_db(), shipped(), &waits, false);
  ASSERT_TRUE(waited.stages[0].range);
  EXPECT_GE(waited.stages[0].range->host_blocked_ns, 24 * 5000.0);
}

// Set 46's video frames: per frame a 0.9 ms upload from pinned memory, a 0.1 ms kernel and a 0.45 ms read-back of the
// smaller result, all on one stream, so the two copy engines never run at once. Running the uploads beside the
// read-backs hides the shorter direction (a third of the copies' time): that item, not "move fewer bytes" (an upper
// bound of every copied byte, which the frames may all need; both blind labels "overlap").
TEST(Advice, UnevenUploadsAndReadBacksOneAfterTheOtherAreOverlappedNotCut) {
  Trace trace;
  trace.strings = {"", "frames", "k", "cudaLaunchKernel", "cudaMemcpyAsync"};
  std::int64_t t = 0;
  for (int rep = 0; rep < 2; ++rep) {
    TraceNvtxRange r;
    r.name = 1;
    r.start_ns = t;
    const int ri = static_cast<int>(trace.nvtx.size());
    for (int i = 0; i < 4; ++i) {
      TraceMemcpy up;
      up.kind = MemcpyKind::htod, up.async = true, up.bytes = 48u << 20;
      up.start_ns = t + 1000, up.end_ns = t + 901000;
      trace.memcpys.push_back(up);
      t = launch(trace, 3, 2, t + 901000, 4000, 5000, 100000, ri) + 2000;
      TraceMemcpy down;
      down.kind = MemcpyKind::dtoh, down.async = true, down.bytes = 24u << 20;
      down.start_ns = t, down.end_ns = t + 450000;
      trace.memcpys.push_back(down);
      t += 452000;
    }
    r.end_ns = t;
    trace.nvtx.push_back(r);
    t += 1000000;
  }
  ProfileRun run = one_stage_run("frames", "k", 100000, 12);
  analyze_run(run, datasheet_db(), shipped(), &trace, false);
  const Opportunity* overlap = nullptr;
  for (const auto& o : run.program_opportunities) {
    EXPECT_NE(o.trigger_metric, "link_copy_ns") << o.name;
    if (o.trigger_metric == "serial_direction_copy_ns") overlap = &o;
  }
  ASSERT_NE(overlap, nullptr);
  EXPECT_EQ(overlap->remedy, "overlap_stages");
}

// Set 20's upload pipeline: per chunk a 0.6 ms host-to-device copy, then a 0.6 ms kernel on it, eight chunks over
// two streams, but a memset on the legacy default stream between them keeps copies and kernels from ever running side
// by side. Overlapping them hides the shorter: about half the range. The same pipeline with the copies running under
// the kernels gets nothing.
TEST(Advice, CopiesThatNeverOverlapTheKernelsAreNamed) {
  auto pipeline = [](bool overlapped) {
    Trace trace;
    trace.strings = {"", "upload", "relax"};
    std::int64_t t = 0;
    for (int rep = 0; rep < 2; ++rep) {
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      for (int i = 0; i < 8; ++i) {
        TraceMemcpy c;
        c.kind = MemcpyKind::htod;
        c.start_ns = t;
        c.end_ns = t + 600000;
        trace.memcpys.push_back(c);
        TraceKernel k;
        k.name = k.function = 2;
        k.start_ns = overlapped ? t + (i == 0 ? 600000 : 0) : t + 600000;
        k.end_ns = k.start_ns + 600000;
        k.nvtx_range = ri;
        trace.kernels.push_back(k);
        TraceApiCall a;
        a.name = 2;
        a.start_ns = t;
        a.end_ns = t + 3000;
        trace.api_calls.push_back(a);
        t = overlapped ? t + 600000 : t + 1200000;
      }
      t += overlapped ? 600000 : 0;
      r.end_ns = t;
      trace.nvtx.push_back(r);
      t += 100000;
    }
    std::sort(trace.kernels.begin(), trace.kernels.end(),
              [](const TraceKernel& a, const TraceKernel& b) { return a.start_ns < b.start_ns; });
    return trace;
  };
  auto run_of = [] { return one_stage_run("upload", "relax", 600000, 2); };
  Trace serial = pipeline(false);
  auto ops = range_advice(run_of(), serial, static_cast<double>(serial.nvtx.back().end_ns), shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "overlap_stages");
  EXPECT_EQ(ops[0].scope, "stage");
  EXPECT_NEAR(ops[0].est_gain_pct, 50.0, 1.0);
  // The same copies (1 MiB and up) on a stream of their own, with the host synchronising the whole device in each
  // range (set 24's checkpoint copy on a side stream, a cudaDeviceSynchronize every step): the device-wide wait is
  // what serialises them.
  Trace synced = pipeline(false);
  synced.strings.push_back("cudaDeviceSynchronize");
  for (auto& c : synced.memcpys) c.stream = 2, c.bytes = 4u << 20;
  for (auto& k : synced.kernels) k.stream = 1;
  for (const auto& r : synced.nvtx) {
    TraceApiCall w;
    w.name = static_cast<StringId>(synced.strings.size() - 1);
    w.start_ns = r.start_ns + 10000;
    w.end_ns = w.start_ns + 5000;
    synced.api_calls.push_back(w);
  }
  std::sort(synced.api_calls.begin(), synced.api_calls.end(),
            [](const TraceApiCall& a, const TraceApiCall& b) { return a.start_ns < b.start_ns; });
  ops = range_advice(run_of(), synced, static_cast<double>(synced.nvtx.back().end_ns), shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "host_sync");
  EXPECT_NE(ops[0].name.find("not the whole device"), std::string::npos) << ops[0].name;
  EXPECT_NEAR(ops[0].est_gain_pct, 50.0, 1.0);
  // The range is bound by that synchronisation, as its item says, not by the host link its copies use.
  auto bound_of = [&](const Trace& trace) {
    ProfileRun run = run_of();
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run.stages[0].bound ? run.stages[0].bound->cause : std::string("none");
  };
  EXPECT_EQ(bound_of(synced), "launch_overhead");
  // On the kernels' own stream the device-wide wait is not what serialises them: overlap, and the link binds.
  Trace same_stream = synced;
  for (auto& c : same_stream.memcpys) c.stream = 1;
  ops = range_advice(run_of(), same_stream, static_cast<double>(same_stream.nvtx.back().end_ns), shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "overlap_stages");
  EXPECT_EQ(bound_of(same_stream), "host_link");
  // On a side stream with no device-wide synchronisation: overlap too (something else serialises them).
  Trace unsynced = synced;
  std::erase_if(unsynced.api_calls, [&](const TraceApiCall& a) { return unsynced.str(a.name) == "cudaDeviceSynchronize"; });
  ops = range_advice(run_of(), unsynced, static_cast<double>(unsynced.nvtx.back().end_ns), shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "overlap_stages");
  Trace overlapped = pipeline(true);
  EXPECT_TRUE(
      range_advice(run_of(), overlapped, static_cast<double>(overlapped.nvtx.back().end_ns), shipped()).empty());
  // Device-to-device copies take the DRAM bandwidth the kernels use (a stencil's copy-back of its grid): no overlap
  // item, but the copies themselves, half of each range, are bytes moved again: drop them (swap the buffers).
  Trace dtod = pipeline(false);
  for (auto& c : dtod.memcpys) c.kind = MemcpyKind::dtod;
  ops = range_advice(run_of(), dtod, static_cast<double>(dtod.nvtx.back().end_ns), shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "dram_traffic");
  EXPECT_EQ(ops[0].trigger_metric, "device_copy_ns");
  EXPECT_NEAR(ops[0].est_gain_pct, 50.0, 1.0);
  // A first instance that spends 100 ms on set-up before its first copy (a first call loading libraries): the share is
  // the typical instance's (half), and the run's share leaves the set-up out.
  Trace lead = pipeline(false);
  for (auto& c : lead.memcpys) c.kind = MemcpyKind::dtod;
  const std::int64_t setup = 100000000;
  for (auto& c : lead.memcpys) c.start_ns += setup, c.end_ns += setup;
  for (auto& k : lead.kernels) k.start_ns += setup, k.end_ns += setup;
  for (auto& a : lead.api_calls) a.start_ns += setup, a.end_ns += setup;
  lead.nvtx[0].end_ns += setup;
  lead.nvtx[1].start_ns += setup, lead.nvtx[1].end_ns += setup;
  const double lead_span = static_cast<double>(lead.nvtx.back().end_ns);
  ops = range_advice(run_of(), lead, lead_span, shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_NEAR(ops[0].est_gain_pct, 50.0, 1.0);
  // Two instances of 9.6 ms at the typical span, of a 119.3 ms trace: half of 19.2 ms.
  EXPECT_NEAR(ops[0].run_gain_pct, 50.0 * 2 * 9.6 / (lead_span * 1e-6), 0.5);
  // The same copies hidden under the kernels on another stream cost the range nothing to remove.
  Trace dtod_hidden = pipeline(true);
  for (auto& c : dtod_hidden.memcpys) c.kind = MemcpyKind::dtod;
  for (const auto& o :
       range_advice(run_of(), dtod_hidden, static_cast<double>(dtod_hidden.nvtx.back().end_ns), shipped()))
    EXPECT_NE(o.remedy, "dram_traffic");
  // Short device copies (a tenth of the range) are no item.
  for (auto& c : dtod.memcpys) c.end_ns = c.start_ns + 60000;
  for (const auto& o : range_advice(run_of(), dtod, static_cast<double>(dtod.nvtx.back().end_ns), shipped()))
    EXPECT_NE(o.remedy, "dram_traffic");
  // The same copies from pageable memory at 7 GB/s (4.2 MB in 0.6 ms): pinned buffers first. The item's estimate is
  // the copies' share of the range less what they still take at the pinned rate.
  Trace paged = pipeline(false);
  for (auto& c : paged.memcpys) c.pageable = true, c.bytes = 4200000;
  ops = range_advice(run_of(), paged, static_cast<double>(paged.nvtx.back().end_ns), shipped());
  const Opportunity* pinned = nullptr;
  for (const auto& o : ops)
    if (o.remedy == "host_sync") pinned = &o;
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(pinned->trigger_metric, "pageable_copy_ns");
  EXPECT_NEAR(pinned->est_gain_pct, 50.0 * (1.0 - 7.0 / shipped().param("opportunities.pinned_copy_gbps")), 1.0);
  EXPECT_NE(pinned->assumes.find("has not measured"), std::string::npos) << pinned->assumes;
  // The device's measured host link, in the copies' direction, sets the pinned rate where kprof-peaks measured it.
  ProfileRun measured = run_of();
  measured.device_spec = DeviceSpec{};
  measured.device_spec->measured["h2d_pinned_gbps"] = Peak{25.0, "kprof-peaks"};
  measured.device_spec->measured["d2h_pinned_gbps"] = Peak{12.0, "kprof-peaks"};  // not these copies' direction
  const double to_device = 50.0 * (1.0 - 7.0 / 25.0);
  pinned = nullptr;
  for (const auto& o : range_advice(measured, paged, static_cast<double>(paged.nvtx.back().end_ns), shipped()))
    if (o.remedy == "host_sync") pinned = &o;
  ASSERT_NE(pinned, nullptr);
  EXPECT_NEAR(pinned->est_gain_pct, to_device, 1.0);
  EXPECT_NE(pinned->assumes.find("as kprof-peaks measured it)"), std::string::npos) << pinned->assumes;
  // Measured in the other direction only: the threshold sets these copies' rate, and the assumption says so.
  ProfileRun other_way = measured;
  other_way.device_spec->measured.erase("h2d_pinned_gbps");
  pinned = nullptr;
  for (const auto& o : range_advice(other_way, paged, static_cast<double>(paged.nvtx.back().end_ns), shipped()))
    if (o.remedy == "host_sync") pinned = &o;
  ASSERT_NE(pinned, nullptr);
  EXPECT_NE(pinned->assumes.find("has not measured"), std::string::npos) << pinned->assumes;
  // A link measured at under twice the copies' rate leaves nothing to gain from pinning.
  measured.device_spec->measured["h2d_pinned_gbps"] = Peak{12.0, "kprof-peaks"};
  for (const auto& o : range_advice(measured, paged, static_cast<double>(paged.nvtx.back().end_ns), shipped()))
    EXPECT_NE(o.remedy, "host_sync") << o.name;
}

// Pageable uploads that fill most of a range (a batch or a slab moved to the device before short kernels): the range
// is its input's trip to the GPU, and the item is having the input there ahead of use (prefetch: a pinned staging
// buffer, one asynchronous upload issued early), at the same estimate. Copies half of them back to the host, or
// uploads beside kernels as long as them, stay "copy from pinned memory asynchronously" (host_sync).
TEST(Advice, PageableUploadsFillingARangeAreUploadedAheadOfUse) {
  // Two ranges of eight 1.8 ms uploads of 12.6 MB (7 GB/s), each followed by a 0.2 ms kernel: uploads 90% of each.
  // (first_up: the first range's copies all uploads, each `first_scale` times as large and as long.)
  auto uploads = [](bool half_back, bool first_up = false, std::int64_t first_scale = 1) {
    Trace trace;
    trace.strings = {"", "upload", "relax"};
    std::int64_t t = 0;
    for (int rep = 0; rep < 2; ++rep) {
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      const std::int64_t scale = rep == 0 ? first_scale : 1;
      for (int i = 0; i < 8; ++i) {
        TraceMemcpy c;
        c.kind = half_back && i % 2 && !(first_up && rep == 0) ? MemcpyKind::dtoh : MemcpyKind::htod;
        c.pageable = true;
        c.bytes = 12600000 * static_cast<std::uint64_t>(scale);
        c.start_ns = t;
        c.end_ns = t + 1800000 * scale;
        trace.memcpys.push_back(c);
        TraceKernel k;
        k.name = k.function = 2;
        k.start_ns = c.end_ns;
        k.end_ns = k.start_ns + 200000;
        k.nvtx_range = ri;
        trace.kernels.push_back(k);
        TraceApiCall a;
        a.name = 2;
        a.start_ns = c.end_ns;
        a.end_ns = c.end_ns + 3000;
        trace.api_calls.push_back(a);
        t = k.end_ns;
      }
      r.end_ns = t;
      trace.nvtx.push_back(r);
      t += 100000;
    }
    return trace;
  };
  auto run_of = [] { return one_stage_run("upload", "relax", 200000, 2); };
  auto pinned_item = [&](const Trace& trace) -> std::optional<Opportunity> {
    for (const auto& o : range_advice(run_of(), trace, static_cast<double>(trace.nvtx.back().end_ns), shipped()))
      if (o.trigger_metric == "pageable_copy_ns") return o;
    return std::nullopt;
  };
  const auto up = pinned_item(uploads(false));
  ASSERT_TRUE(up.has_value());
  EXPECT_EQ(up->remedy, "prefetch") << up->name;
  EXPECT_NE(up->name.find("ahead of use"), std::string::npos) << up->name;
  EXPECT_NEAR(up->est_gain_pct, 90.0 * (1.0 - 7.0 / shipped().param("opportunities.pinned_copy_gbps")), 1.5);
  // Half of the copies read results back: the host waits in each; asynchronous copies from pinned memory.
  const auto both = pinned_item(uploads(true));
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->remedy, "host_sync") << both->name;
  EXPECT_NEAR(both->est_gain_pct, up->est_gain_pct, 1.5);
  // The typical instance decides: a first range that uploads everything (a first call's weights) and a second that
  // reads half back count as the reading kind (the lower median of the two instances' upload shares), though most of
  // all the bytes went up.
  const Trace mixed = uploads(true, true, 8);  // 806 MB up, then 50 MB up and 50 MB back: 94% of the bytes up
  const auto first_up = pinned_item(mixed);
  ASSERT_TRUE(first_up.has_value());
  EXPECT_EQ(first_up->remedy, "host_sync") << first_up->name;
}

namespace {
// A 4 us kernel at t (in NVTX range `range`) and a host synchronisation from 0.5 us after its start to 0.1 us after its
// end: one step of a loop that waits for each result.
void tiny_kernel_then_wait(Trace& trace, std::int64_t t, int range = -1) {
  TraceKernel k;
  k.start_ns = t;
  k.end_ns = t + 4000;
  k.nvtx_range = range;
  trace.kernels.push_back(k);
  TraceSync w;
  w.type = SyncType::stream_synchronize;
  w.start_ns = t + 500;
  w.end_ns = t + 4100;
  trace.syncs.push_back(w);
}
}  // namespace

// 2,000 tiny kernels, each followed by a host synchronisation: the GPU idles 60% of the span.
TEST(Advice, LaunchGapsWithHostWaitsNameHostSynchronisation) {
  Trace trace;
  std::int64_t t = 0;
  for (int i = 0; i < 2000; ++i) {
    tiny_kernel_then_wait(trace, t);
    t += 10000;
  }
  ProfileRun run;
  auto tl = analyze_timeline(trace);
  auto ops = gap_advice(run, trace, tl, shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "host_sync");
  EXPECT_EQ(ops[0].scope, "program");
  EXPECT_GT(ops[0].run_gain_pct, 40.0);
  EXPECT_LT(ops[0].run_gain_pct, 60.0);
  // A kernel whose own cause is launch overhead owns those gaps: its item becomes "remove host synchronisations"
  // (a graph cannot capture a loop that waits for each result), and no whole-program item repeats it.
  Stage s;
  s.name = "tiny";
  s.kernels.push_back(stage_group("tiny", 4000, 4096, 4096, 1));
  s.kernels.back().duration_ns.count = 2000;  // its own launch-overhead finding: many launches, the GPU idle
  s.kernels.back().span_ns = 20e6;
  s.kernels.back().gpu_idle_ns = 12e6;
  s.kernels.back().launches.front().start_ns = 0;  // its launches span the 2,000 waits
  KernelAnalysis ka;
  ka.causes.push_back({"launch_overhead", "launch overhead (tiny kernels)", "", "", "launch_overhead", 60, true});
  ka.opportunities.push_back({.name = "Cut launch overhead", .remedy = "launch_overhead", .est_gain_pct = 60});
  s.kernels.back().analysis = ka;
  run.stages.push_back(s);
  EXPECT_TRUE(gap_advice(run, trace, tl, shipped()).empty());
  EXPECT_EQ(run.stages[0].kernels[0].analysis->opportunities[0].remedy, "host_sync");
  // The waits between this kernel's own launches decide, not the program's: the same kernel launched back to back
  // where the program does not wait (its span after the last synchronisation) keeps "cut launch overhead".
  run.stages[0].kernels[0].analysis = ka;
  run.stages[0].kernels[0].launches.front().start_ns = static_cast<double>(t);
  gap_advice(run, trace, tl, shipped());
  EXPECT_EQ(run.stages[0].kernels[0].analysis->opportunities[0].remedy, "launch_overhead");
  // A stream waiting on an event is no host wait: the same gaps get graphs, not "remove host synchronisations".
  for (auto& w : trace.syncs) w.type = SyncType::stream_wait_event;
  run.stages.clear();
  auto graphs = gap_advice(run, trace, tl, shipped());
  ASSERT_EQ(graphs.size(), 1u);
  EXPECT_EQ(graphs[0].remedy, "launch_overhead");
  // A busy GPU gets none.
  for (auto& k : trace.kernels) k.end_ns = k.start_ns + 9900;
  EXPECT_TRUE(gap_advice(run, trace, analyze_timeline(trace), shipped()).empty());
}

// Set 25's per-parameter SGD: each repetition of the case a range of 60 tiny launches with no wait among them, and
// between the repetitions the other cases' 100 host waits. The waits between the stage's own consecutive launches
// decide its item (none: launch overhead, a graph), not those its launches' whole span holds (host synchronisation).
TEST(Advice, OnlyWaitsAmongAStagesOwnLaunchesMakeItsGapsHostSync) {
  Trace trace = loop_trace(2, 60, 1000, 15000, 0);
  const std::int64_t between = trace.nvtx[0].end_ns + 1000;
  for (int i = 0; i < 100; ++i) {
    TraceSync w;
    w.type = SyncType::stream_synchronize;
    w.start_ns = between + i * 9000;
    w.end_ns = w.start_ns + 5000;
    trace.syncs.push_back(w);
  }
  ProfileRun run;
  Stage s;
  s.name = "loop";
  s.kernels.push_back(stage_group("k", 1000, 4096, 4096, 1));
  s.kernels.back().duration_ns.count = 120;
  s.kernels.back().span_ns = static_cast<double>(trace.kernels.back().end_ns - trace.kernels.front().start_ns);
  s.kernels.back().gpu_idle_ns = 0.9 * *s.kernels.back().span_ns;
  s.kernels.back().launches.front().start_ns = static_cast<double>(trace.kernels.front().start_ns);
  KernelAnalysis ka;
  ka.causes.push_back({"launch_overhead", "launch overhead (tiny kernels)", "", "", "launch_overhead", 90, true});
  ka.opportunities.push_back({.name = "Cut launch overhead", .remedy = "launch_overhead", .est_gain_pct = 90});
  s.kernels.back().analysis = ka;
  run.stages.push_back(s);
  gap_advice(run, trace, analyze_timeline(trace), shipped());
  EXPECT_EQ(run.stages[0].kernels[0].analysis->opportunities[0].remedy, "launch_overhead");
  // A wait after every launch inside the range: host synchronisation.
  Trace waits = loop_trace(2, 60, 1000, 15000, 0, 1);
  run.stages[0].kernels[0].analysis = ka;
  gap_advice(run, waits, analyze_timeline(waits), shipped());
  EXPECT_EQ(run.stages[0].kernels[0].analysis->opportunities[0].remedy, "host_sync");
}

// Sets 22 and 28: a range of launches of one kernel, each of fewer blocks than the GPU has SMs, back to back on one
// stream (six option-pricing launches of 22 blocks, eight ensembles of 8-24): side by side they take about one
// launch's time. The item says so, with what it assumes (that they are independent). Two different kernels, launches
// that already overlap, or full grids get none.
TEST(Advice, UnderFilledLaunchesOfOneKernelOneAfterAnotherRunSideBySide) {
  auto run_of = [](int launches, int blocks, bool two_kernels, bool overlapping, bool interleaved = false) {
    Trace trace;
    trace.strings = {"", "ensemble", "k", "cudaLaunchKernel", "other"};
    trace.info.api_traced = trace.info.nvtx_traced = true;
    std::int64_t t = 0;
    for (int rep = 0; rep < 2; ++rep) {
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      for (int i = 0; i < launches; ++i) {
        if (interleaved) {  // a layer's full-grid kernel before each small one: a chain
          launch(trace, 3, 4, t, 4000, 6000, 50000, ri);
          trace.kernels.back().grid = {528, 1, 1};
          t += 52000;
        }
        const StringId fn = two_kernels && i % 2 ? 4 : 2;
        launch(trace, 3, fn, t, 4000, 6000, 190000, ri);
        trace.kernels.back().grid = {blocks, 1, 1};
        t += overlapping ? 100000 : 192000;
      }
      r.end_ns = t + 200000;
      trace.nvtx.push_back(r);
      t += 1000000;
    }
    ProfileRun run = one_stage_run("ensemble", "k", 190000, 10);
    run.device.name = "NVIDIA H200";
    run.stages[0].kernels[0].duration_ns.count = 2 * launches;
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run;
  };
  auto side = [](const ProfileRun& run) -> const Opportunity* {
    for (const auto& o : run.program_opportunities)
      if (o.trigger_metric == "serial_grid_ns") return &o;
    return nullptr;
  };
  const ProfileRun six = run_of(6, 22, false, false);
  const Opportunity* o = side(six);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->remedy, "overlap_stages");
  EXPECT_NE(o->name.find("If the 6 launches of k are independent, run them side by side"), std::string::npos) << o->name;
  EXPECT_EQ(o->kernels.size(), 1u);  // the kernel it names (the stage's one kernel, labelled by its range)
  EXPECT_NE(o->assumes.find("independent"), std::string::npos) << o->assumes;
  // 6 x 190 us serial; 132 blocks in all fit the 132 SMs at once: one launch's 190 us. Of the range's 1.35 ms.
  const double span = 6 * 192000.0 + 200000.0;
  EXPECT_NEAR(o->est_gain_pct, 5 * 190000.0 / span * 100.0, 2.0);
  // 100 blocks each: their work spread over the 132 SMs (6 x 100 / 132 launches' time), not one launch's.
  const Opportunity* wide = side(run_of(6, 100, false, false));
  ASSERT_NE(wide, nullptr);
  EXPECT_NEAR(wide->est_gain_pct, (6 * 190000.0 - 6 * 190000.0 * 100 / 132) / span * 100.0, 2.0);
  EXPECT_EQ(side(run_of(6, 22, true, false)), nullptr);   // two kernels: a pipeline, not copies of one computation
  EXPECT_EQ(side(run_of(6, 22, false, true)), nullptr);   // already side by side
  EXPECT_EQ(side(run_of(6, 264, false, false)), nullptr);  // each fills the GPU
  EXPECT_EQ(side(run_of(6, 22, false, false, true)), nullptr);  // another kernel between each two: a chain
}

// Set 23's reranker (a .tolist() and a Python filter after each step's top-k) and set 39's greedy decode (a tokenizer
// decode after each .item()): between two launches, after the wait returned, the host makes no CUDA call for hundreds
// of microseconds, short of gap_host_work_max_ns. A launch loop calls the driver every few microseconds: such a
// silence is the host's own work, not launch cost. Only between the instance's kernels: the host's time before its
// first launch is one call's overhead (set 11's compiled kernel after torch.compile's guards).
TEST(Advice, AHostSilentForHundredsOfMicrosecondsBetweenLaunchesWorks) {
  auto analysed = [](std::int64_t gap_ns, std::int64_t lead_ns, bool watchdog = false, int launches = 20,
                     int sync_every = 1) {
    Trace trace = loop_trace(2, launches, 5000, gap_ns, lead_ns, sync_every);  // by default a wait after every launch
    if (watchdog) {  // another thread querying an event every 150 us all along: not the launching thread's calls
      const auto query = static_cast<StringId>(trace.strings.size());
      trace.strings.push_back("cudaEventQuery");
      const std::int64_t end = trace.nvtx.back().end_ns;
      for (std::int64_t at = 0; at < end; at += 150000) {
        TraceApiCall q;
        q.name = query, q.thread = 7, q.start_ns = at, q.end_ns = at + 2000;
        trace.api_calls.push_back(q);
      }
      std::sort(trace.api_calls.begin(), trace.api_calls.end(),
                [](const TraceApiCall& a, const TraceApiCall& b) { return a.start_ns < b.start_ns; });
    }
    ProfileRun run = one_stage_run("loop", "k", 5000, 10);
    run.stages[0].kernels[0].duration_ns.count = 2 * launches;
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    EXPECT_TRUE(run.stages[0].range);
    return run;
  };
  auto range = [&](std::int64_t gap_ns, std::int64_t lead_ns, bool watchdog = false) {
    return analysed(gap_ns, lead_ns, watchdog).stages[0].range.value_or(RangeTime{});
  };
  // 400-us gaps: 19 a range, each silent from the wait's return (2 us after the kernel) to the next launch call.
  const RangeTime quiet = range(400000, 0);
  EXPECT_NEAR(quiet.host_work_ns, 19 * 398000.0, 19 * 1000.0);
  EXPECT_LT(quiet.launch_gaps_ns, 0.05 * quiet.idle_ns);
  // 15-us gaps: the host's launch rate, no work.
  const RangeTime busy = range(15000, 0);
  EXPECT_DOUBLE_EQ(busy.host_work_ns, 0.0);
  EXPECT_GT(busy.launch_gaps_ns, 0.5 * busy.idle_ns);
  // 500 us before the first launch, 15-us gaps after: no work either.
  const RangeTime lead = range(15000, 500000);
  EXPECT_DOUBLE_EQ(lead.host_work_ns, 0.0);
  // Another thread's queries do not end the launching thread's silence.
  EXPECT_NEAR(range(400000, 0, true).host_work_ns, quiet.host_work_ns, 1.0);
  // The silences are the host's work once: no whole-program item counts them as launch gaps (without waits) or as
  // waits to drop (with them) beside the range's host-work item (80 launches: enough for a program item). What it may
  // keep is each gap's few microseconds around the launch calls (1.4% of the span here; the silences were 94%).
  for (const int sync_every : {0, 1}) {
    const ProfileRun run = analysed(400000, 0, false, 40, sync_every);
    bool host_work = false;
    for (const auto& o : run.program_opportunities) {
      host_work = host_work || o.remedy == "host_work";
      if (o.scope == "program" && o.trigger_metric == "gpu_idle_ns") {
        EXPECT_LT(o.est_gain_pct, 5.0) << o.trigger;
      }
    }
    EXPECT_TRUE(host_work) << sync_every;
  }
}

// Set 39's greedy decode: a wait after each step's last kernel, then hundreds of microseconds of the host's own work
// (a tokenizer decode) before the next launch. A launch-bound kernel's item over those gaps claims the GPU's idle time
// as launch cost; dropping the waits (or a graph) removes the gaps and the blocked calls, not the host's work, so the
// item keeps that share and the range's host-work item leads. Two launch-bound kernels of one range share its idle
// time rather than owning it twice: another stage's share of the run does not shrink when the loop's launches are
// split between two kernels.
TEST(Advice, ALaunchItemLeavesTheHostsWorkInItsRangeToTheHostWorkItem) {
  // idle_shares: each group's idle over its span, as a share of the loop's (one group per entry).
  auto analysed = [](std::int64_t gap_ns, std::vector<double> idle_shares, int sync_every = 1) {
    Trace trace = loop_trace(3, 40, 5000, gap_ns, 0, sync_every);  // by default a wait after every launch
    ProfileRun run;
    Stage s;
    s.name = "loop";
    const int groups = static_cast<int>(idle_shares.size());
    for (int i = 0; i < groups; ++i) {
      s.kernels.push_back(stage_group(i == 0 ? "k" : "k" + std::to_string(i), 5000, 4096, 4096, 1));
      auto& g = s.kernels.back();
      g.duration_ns.count = 120 / groups;
      g.span_ns = static_cast<double>(trace.kernels.back().end_ns - trace.kernels.front().start_ns);
      g.gpu_idle_ns = idle_shares[i] * (*g.span_ns - 120 * 5000.0);
      g.span_ns = *g.gpu_idle_ns + 120 * 5000.0 / groups;
      g.launches.front().start_ns = static_cast<double>(trace.kernels.front().start_ns);
    }
    run.stages.push_back(s);
    Stage other;
    other.name = "other";
    other.kernels.push_back(stage_group("gemm", 20e6, 1e9, 1e9, 90));
    run.stages.push_back(other);
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run;
  };
  auto gap_item = [](const KernelGroup& g) -> const Opportunity* {
    for (const auto& o : g.analysis->opportunities)
      if (o.remedy == "host_sync" || o.remedy == "launch_overhead") return &o;
    return nullptr;
  };
  // 400-us silences after each wait: the host's work, 98% of the range's idle time.
  for (const int sync_every : {1, 0}) {  // with a wait after every launch (host_sync), and without (launch_overhead)
    const ProfileRun quiet = analysed(400000, {1.0}, sync_every);
    ASSERT_TRUE(quiet.stages[0].range);
    EXPECT_GT(quiet.stages[0].range->host_work_ns, 0.9 * quiet.stages[0].range->idle_ns);
    const Opportunity* own = gap_item(quiet.stages[0].kernels[0]);
    ASSERT_NE(own, nullptr);
    EXPECT_EQ(own->remedy, sync_every ? "host_sync" : "launch_overhead");
    EXPECT_LT(own->est_gain_pct, 10.0) << own->trigger;
    EXPECT_NEAR(own->run_gain_pct, own->est_gain_pct * own->run_share_pct / 100.0, 1e-6);
    EXPECT_NE(own->assumes.find("of the host's work"), std::string::npos) << own->assumes;
    const Opportunity* work = nullptr;
    for (const auto& o : quiet.program_opportunities)
      if (o.remedy == "host_work") work = &o;
    ASSERT_NE(work, nullptr);
    EXPECT_GT(work->run_gain_pct, own->run_gain_pct);
  }
  // 15-us gaps, no host work: the item keeps the idle share.
  const ProfileRun busy = analysed(15000, {1.0});
  const Opportunity* gaps = gap_item(busy.stages[0].kernels[0]);
  ASSERT_NE(gaps, nullptr);
  EXPECT_GT(gaps->est_gain_pct, 40.0);
  EXPECT_EQ(gaps->assumes.find("of the host's work"), std::string::npos) << gaps->assumes;
  // The same loop's launches split between two kernels: the other stage's share of the run stays.
  const ProfileRun split = analysed(15000, {1.0, 1.0});
  ASSERT_FALSE(busy.stages[1].kernels[0].analysis->opportunities.empty());
  ASSERT_FALSE(split.stages[1].kernels[0].analysis->opportunities.empty());
  EXPECT_NEAR(split.stages[1].kernels[0].analysis->opportunities[0].run_share_pct,
              busy.stages[1].kernels[0].analysis->opportunities[0].run_share_pct, 0.5);
  // Two kernels of which one spans a tenth of the idle time: each shares by the idle it spans, not by its launches.
  const ProfileRun uneven = analysed(15000, {1.0, 0.1});
  const Opportunity* wide = gap_item(uneven.stages[0].kernels[0]);
  const Opportunity* narrow = gap_item(uneven.stages[0].kernels[1]);
  ASSERT_NE(wide, nullptr);
  ASSERT_NE(narrow, nullptr);
  EXPECT_LT(narrow->run_share_pct, 0.5 * wide->run_share_pct);
}

// Set 33's heat steps (1.8-us kernels, a wait after each of 128 launches): with the waits gone the host queues its
// launches, and the loop runs at the launch calls' rate where they take longer than the kernels. The host_sync
// item's estimate keeps that time (estimated 82% from the idle share alone, realised 65%); kernels longer than
// their launch calls keep the idle share.
TEST(Advice, RemovingWaitsLeavesTheLaunchCallsTimeBeyondTheKernels) {
  auto item = [](std::int64_t kernel_ns, int per_wait = 1) {
    // launch calls of 4 us; a wait after every per_wait launches, the group one of each per_wait (100 launches of it)
    Trace trace = loop_trace(1, 100 * per_wait, kernel_ns, 15000, 0, per_wait);
    std::uint32_t corr = 0, next = 0;  // the launch calls' correlation ids, which time them
    for (auto& a : trace.api_calls)
      if (a.name == 3) a.correlation = ++corr;
    for (auto& k : trace.kernels) k.correlation = ++next;
    ProfileRun run;
    Stage s;
    s.name = "loop";
    s.kernels.push_back(stage_group("k", 1000, 4096, 4096, 1));
    auto& g = s.kernels.back();
    g.duration_ns.count = 100;
    g.span_ns = static_cast<double>(trace.kernels.back().end_ns - trace.kernels.front().start_ns);
    g.gpu_idle_ns = *g.span_ns - 100.0 * per_wait * static_cast<double>(kernel_ns);
    g.launches.front().start_ns = static_cast<double>(trace.kernels.front().start_ns);
    const double idle_pct = *g.gpu_idle_ns / *g.span_ns * 100.0;
    KernelAnalysis ka;
    ka.causes.push_back({"launch_overhead", "launch overhead (tiny kernels)", "", "", "launch_overhead", idle_pct, true});
    ka.opportunities.push_back(
        {.name = "Cut launch overhead", .remedy = "launch_overhead", .est_gain_pct = idle_pct, .run_gain_pct = idle_pct});
    g.analysis = ka;
    run.stages.push_back(s);
    gap_advice(run, trace, analyze_timeline(trace), shipped());
    return std::pair{run.stages[0].kernels[0].analysis->opportunities[0], idle_pct};
  };
  // 1-us kernels behind 4-us launch calls: 100 x 4 us of calls against 0.1 ms of work leaves 0.3 ms idle.
  const auto [fast, fast_idle] = item(1000);
  EXPECT_EQ(fast.remedy, "host_sync");
  const double span = 99 * 21000.0 + 6000.0 - 5000.0;  // first kernel start to last kernel end
  EXPECT_NEAR(fast.est_gain_pct, (span - 100 * 1000.0 - (100 * 4000.0 - 100 * 1000.0)) / span * 100.0, 0.5);
  EXPECT_LT(fast.est_gain_pct, fast_idle - 10.0);
  EXPECT_NEAR(fast.run_gain_pct, fast.est_gain_pct, 1e-6);
  EXPECT_NE(fast.rationale.find("host's launch rate"), std::string::npos) << fast.rationale;
  EXPECT_NE(fast.assumes.find("median launch call"), std::string::npos) << fast.assumes;
  // 10-us kernels: the GPU's work outlasts the calls, and the whole idle share goes.
  const auto [slow, slow_idle] = item(10000);
  EXPECT_EQ(slow.remedy, "host_sync");
  EXPECT_DOUBLE_EQ(slow.est_gain_pct, slow_idle);
  EXPECT_EQ(slow.rationale.find("host's launch rate"), std::string::npos) << slow.rationale;
  // Three launches a step, a wait after each step: every launch call in the group's span stays, not only its own
  // (300 x 4 us of calls against 0.3 ms of work leaves 0.9 ms).
  const auto [step, step_idle] = item(1000, 3);
  const double span3 = 299 * 21000.0 + 6000.0 - 5000.0;
  EXPECT_NEAR(step.est_gain_pct, (span3 - 300 * 1000.0 - (300 * 4000.0 - 300 * 1000.0)) / span3 * 100.0, 0.5);
  EXPECT_NE(step.rationale.find("the 300 launch calls"), std::string::npos) << step.rationale;
}

// Set 31's MoE loop: a range of 60 launches that waits for the GPU after every tenth (a torch.where reading a count
// back), in a program whose waits are too few for its launches to call the whole program's gaps host waits. The
// range holds the program item's gaps and knows its waits: the program item says to remove them (a graph cannot
// span them), not to capture a graph.
TEST(Advice, AProgramItemTakesTheRemedyOfTheRangeHoldingItsGaps) {
  auto program_item = [](const Trace& trace) {
    ProfileRun run = one_stage_run("loop", "k", 5000, 10);
    run.stages[0].kernels[0].duration_ns.count = 120;
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    EXPECT_TRUE(run.stages[0].range);
    for (const auto& o : run.program_opportunities)
      if (o.scope == "program") return o;
    return Opportunity{};
  };
  const Trace waits = loop_trace(2, 60, 5000, 15000, 0, 10);
  const Opportunity o = program_item(waits);
  EXPECT_EQ(o.remedy, "host_sync") << o.name;
  EXPECT_NE(o.name.find("then capture the loop in a CUDA graph"), std::string::npos) << o.name;
  // Its reasoning is the range's: no "a graph removes the gaps" beside "a graph cannot span the waits".
  EXPECT_NE(o.rationale.find("cannot span them"), std::string::npos) << o.rationale;
  EXPECT_EQ(o.rationale.find("a graph or a fused kernel removes the gaps"), std::string::npos) << o.rationale;
  // Without the waits the same gaps are the launches': a graph.
  EXPECT_EQ(program_item(loop_trace(2, 60, 5000, 15000, 0)).remedy, "launch_overhead");
  // Only the range holding the largest share (the item's first stage) decides: a second range of 100 launches with
  // wider gaps and no waits, after the loop, holds more of them, and the item stays the graph's.
  Trace two = loop_trace(2, 60, 5000, 15000, 0, 10);
  two.strings.push_back("free");  // 5
  two.strings.push_back("f");     // 6
  std::int64_t t = two.nvtx.back().end_ns + 1000000;
  for (int i = 0; i < 2; ++i) {
    TraceNvtxRange r;
    r.name = 5;
    r.start_ns = t;
    const int ri = static_cast<int>(two.nvtx.size());
    for (int k = 0; k < 100; ++k) t = launch(two, 3, 6, t, 4000, 5000, 5000, ri) + 25000;
    r.end_ns = t;
    two.nvtx.push_back(r);
    t += 1000000;
  }
  ProfileRun run = one_stage_run("loop", "k", 5000, 10);
  run.stages[0].kernels[0].duration_ns.count = 120;
  Stage free_stage;
  free_stage.name = "free";
  free_stage.kernels.push_back(stage_group("f", 5000, 1e6, 1e6, 10));
  free_stage.kernels.back().duration_ns.count = 200;
  run.stages.push_back(free_stage);
  analyze_run(run, datasheet_db(), shipped(), &two, false);
  const Opportunity* p = nullptr;
  for (const auto& o : run.program_opportunities)
    if (o.scope == "program") p = &o;
  ASSERT_NE(p, nullptr);
  ASSERT_GE(p->kernels.size(), 2u);  // both stages named, the free loop first
  EXPECT_EQ(p->kernels.front(), "free");
  EXPECT_EQ(p->remedy, "launch_overhead") << p->name;
}

// Set 30's diffusion steps: the GPU idles 43% of each range (a blocking symbol upload before every step), under the
// half that binds a range outright, while its kernel's first item (more loads in flight, 47% of the kernel) saves 27%
// of the range: the idle time is the range's largest limiter, so the range is bound outside its kernels. A kernel
// item saving more of the range than the idle time keeps the range to its kernel.
TEST(Advice, IdleTimeOutweighingTheKernelsItemsBindsTheRange) {
  Stage s;
  s.name = "steps";
  s.kernels.push_back(stage_group("aniso_step", 12700, 1e6, 1e6, 40));
  KernelAnalysis ka;
  ka.opportunities.push_back({.name = "More loads in flight", .remedy = "memory_parallelism", .est_gain_pct = 47});
  s.kernels.back().analysis = ka;
  RangeTime r;
  r.instances = 2, r.span_ns = 768e3, r.idle_ns = 0.43 * 768e3, r.launch_gaps_ns = r.idle_ns, r.launches = 32;
  const auto b = range_bound(s, r, shipped());
  ASSERT_TRUE(b);
  EXPECT_EQ(b->cause, "launch_overhead");
  EXPECT_NE(b->rule.find("range_bound_min_idle_share"), std::string::npos) << b->rule;
  s.kernels.back().analysis->opportunities.front().est_gain_pct = 90;  // 51% of the range: more than the idle
  EXPECT_FALSE(range_bound(s, r, shipped()));
  r.idle_ns = 0.15 * 768e3, r.launch_gaps_ns = r.idle_ns;  // under range_bound_min_idle_share
  s.kernels.back().analysis->opportunities.front().est_gain_pct = 5;
  EXPECT_FALSE(range_bound(s, r, shipped()));
}

// Set 44's particle advection: each frame's kernel (near its compute roof, its first item 10% of its time) and then
// its download to pinned memory on the same stream, one after the other: the copies are 33% of the range, under the
// half that binds a range outright, yet more than its kernel's item saves of it (7%). The host link binds the range, as
// both blind labels say. A kernel item saving more keeps the range to its kernel; a two-stream pipeline's exposed first
// upload and last download (set 20's overlapped upload: 20% of its range) stay under copy_outweighs_min_share.
TEST(Advice, CopiesOutweighingTheKernelsItemsBindTheRange) {
  Stage s;
  s.name = "frames";
  s.kernels.push_back(stage_group("advect_rk4", 1228e3, 3.4e7, 1.1e7, 1));
  KernelAnalysis ka;
  ka.opportunities.push_back({.name = "Fuse FP instructions", .remedy = "fp_instructions", .est_gain_pct = 10});
  s.kernels.back().analysis = ka;
  RangeTime r;
  r.instances = 2, r.span_ns = 7.38e6, r.link_copy_ns = 2.45e6, r.link_copies = 4, r.link_copy_bytes = 134217728;
  r.launches = 4;
  const auto b = range_bound(s, r, shipped());
  ASSERT_TRUE(b);
  EXPECT_EQ(b->cause, "host_link");
  EXPECT_NE(b->rule.find("copy_outweighs_min_share"), std::string::npos) << b->rule;
  s.kernels.back().analysis->opportunities.front().est_gain_pct = 80;  // 54% of the range: more than the copies
  EXPECT_FALSE(range_bound(s, r, shipped()));
  s.kernels.back().analysis->opportunities.front().est_gain_pct = 0;
  r.link_copy_ns = 0.2 * r.span_ns;  // a pipeline's fill and drain
  EXPECT_FALSE(range_bound(s, r, shipped()));
}

// A loop that waits every fourth launch: the kernels run back to back (the host launches ahead), except after each
// wait, which drains the queue; the next launch comes 30 us later. The wait begins right after its kernel's launch
// call, before that kernel starts: its return, in the gap after the kernel, places it. (Placed by its start, the
// wait would mark the empty gap before its kernel, and the program's winnable time would be nothing.)
TEST(Advice, AWaitMarksTheGapItReturnedIn) {
  Trace trace;
  std::int64_t t = 0;
  for (int i = 0; i < 200; ++i) {
    TraceKernel k;
    k.start_ns = t;
    k.end_ns = t + 10000;
    trace.kernels.push_back(k);
    t = k.end_ns;
    if (i % 4 == 3) {
      TraceSync w;
      w.type = SyncType::stream_synchronize;
      w.start_ns = k.start_ns - 3000;  // issued right after the launch call, before the kernel starts
      w.end_ns = k.end_ns + 1000;
      trace.syncs.push_back(w);
      t += 30000;
    }
  }
  ProfileRun run;
  auto ops = gap_advice(run, trace, analyze_timeline(trace), shipped());
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].remedy, "host_sync");
  // 50 gaps of 30 us, less 1 us each for the launch, of the 3.5 ms span (less the last gap, after the last kernel).
  const double span = static_cast<double>(trace.kernels.back().end_ns);
  EXPECT_NEAR(ops[0].est_gain_pct, 49 * 29000.0 / span * 100.0, 0.5);
}

// The program item names where its gaps lie. 200 kernels, each followed by a host wait: inside one range of a named
// stage the gaps are that stage's; where each kernel is a case of its own range ("a", "b" in turn: a harness that
// checks each case's result between the cases) they lie between the stages and are the whole program's. With one
// range instance per kernel of one stage ("loop" steps), a wait that begins inside a step is the stage's; one that
// begins after the step's range closed is the program's.
TEST(Advice, LaunchGapsAreNamedWhereTheyLie) {
  enum class Ranges { one, alternating, per_step };
  auto program = [](Ranges ranges, std::int64_t range_ns = 4000) {
    Trace trace;
    trace.strings = {"", "loop", "a", "b"};
    std::int64_t t = 0;
    if (ranges == Ranges::one) trace.nvtx.push_back(TraceNvtxRange{.name = 1});
    for (int i = 0; i < 200; ++i) {
      if (ranges != Ranges::one)
        trace.nvtx.push_back(TraceNvtxRange{.name = StringId(ranges == Ranges::per_step ? 1 : 2 + i % 2),
                                            .start_ns = t, .end_ns = t + range_ns});
      tiny_kernel_then_wait(trace, t, static_cast<int>(trace.nvtx.size()) - 1);  // the wait begins at t + 500
      t += 10000;
    }
    if (ranges == Ranges::one) trace.nvtx.front().end_ns = t;
    return trace;
  };
  auto stage = [](const std::string& name) {
    Stage s;
    s.name = name;
    s.kernels.push_back(stage_group("tiny", 4000, 4096, 4096, 1));
    return s;
  };
  auto where = [&](const ProfileRun& r, const Trace& trace) {
    ProfileRun run = r;
    auto ops = gap_advice(run, trace, analyze_timeline(trace), shipped());
    EXPECT_EQ(ops.size(), 1u);
    return ops.empty() ? std::vector<std::string>{} : ops[0].kernels;
  };
  ProfileRun run;
  run.stages = {stage("loop")};
  const Trace inside = program(Ranges::one);
  EXPECT_EQ(where(run, inside), std::vector<std::string>{"loop"});
  EXPECT_EQ(where(run, program(Ranges::per_step)), std::vector<std::string>{"loop"});
  EXPECT_EQ(where(run, program(Ranges::per_step, 400)), std::vector<std::string>{"whole program"});
  run.stages = {stage("a"), stage("b")};
  EXPECT_EQ(where(run, program(Ranges::alternating)), std::vector<std::string>{"whole program"});
  // Without named stages every gap is the program's.
  run.stages.clear();
  EXPECT_EQ(where(run, inside), std::vector<std::string>{"whole program"});
}

// The devlog records the previous entry's first estimate against the change realised since.
TEST(Advice, TheDevlogRecordsEstimateAgainstRealised) {
  const std::string prev =
      "## v3 — 2026-12-01T00:00:00Z — annotation\n\n**Performance** (H200, b1)\n| Metric | Value | vs Previous |\n"
      "|---|---|---|\n| Duration | 200.0 us | first entry |\n\n**Insights**:\n"
      "- Feed the tensor cores (gemm) — est. 50% gain (40% of the run) — trigger: tensor_pipe=30%\n"
      "- Reuse data on chip — est. 10% gain — trigger: x\n";
  auto e = render::parse_last_devlog_entry(prev);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->first_insight, "Feed the tensor cores (gemm)");
  ASSERT_TRUE(e->first_insight_est_pct);
  EXPECT_EQ(*e->first_insight_est_pct, 40.0);
  ProfileRun run;
  run.version = "v4";
  Stage s;
  s.name = "gemm";
  s.kernels.push_back(stage_group("gemm", 150000.0, 1e6, 1e6, 1));
  run.stages.push_back(s);
  auto entry = render::render_devlog_entry(run, e);
  EXPECT_NE(entry.find("est. 40% → realised 25.0%"), std::string::npos) << entry;
}

// Divergent __constant__ indices: the indexed constant cache saturates (99.6%) while instruction issue runs at 2%
// and warps queue in MIO throttle (set 7's const_cache_divergent in Nsight Compute's full set).
TEST(Advice, ASaturatedConstantCacheNamesConstantSerialisation) {
  CanonicalMetrics m;
  m.duration_ns = 1.07e6;
  m.sm_throughput_pct = 99.6;
  m.memory_throughput_pct = 0.1;
  m.dram_throughput_pct = 0.05;
  m.idc_pct = 99.6;
  m.issue_active_pct = 2.1;
  m.grid_size = 1056;
  m.waves_per_sm = 1;
  m.stalls = {{"mio_throttle", 527.2}, {"short_scoreboard", 90.0}, {"imc_miss", 0.02}, {"selected", 1.0}};
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "constant_cache");
  EXPECT_EQ(first_fix(a), "constant_access");
  ASSERT_FALSE(a.opportunities.empty());
  EXPECT_GT(a.opportunities[0].est_gain_pct, 90.0);
}

// Warps waiting on MIO results (short scoreboard) where L1, the busiest memory unit, is busy with the shuffles they
// wait on: fewer MIO instructions, not reuse on chip for the generic memory bound (set 27's shuffle-broadcast MLP on
// the H200: L1 67.7%, memory 66% against SM 59%, 57% of the waits on short scoreboard, no shared wavefronts). With L2
// the busier unit the memory side is not the MIO path's, and with L1 at its roof the L1 bound names the kernel.
TEST(Advice, WaitsOnShuffleResultsWantFewerMioInstructions) {
  CanonicalMetrics m;
  m.duration_ns = 902272;
  m.sm_throughput_pct = 59.0;
  m.memory_throughput_pct = 66.0;
  m.l1_throughput_pct = 67.7;
  m.l2_throughput_pct = 7.9;
  m.dram_throughput_pct = 11.9;
  m.dram_measured_pct = 13.1;
  m.dram_bytes = 5.18e8;
  m.flops_fp32 = 8.7e9;
  m.issue_active_pct = 33.1;
  m.fma_pipe_pct = 15.1;
  m.alu_pipe_pct = 5.2;
  m.grid_size = 4096;
  m.block_size = 256;
  m.waves_per_sm = 4096.0 / (132 * 3);
  m.achieved_occupancy_pct = 35.5;
  m.theoretical_occupancy_pct = 37.5;
  m.shared_wavefronts = 0;
  m.l1_bytes = 1.082e9;  // 4.6 B per SM cycle: shuffles, not data
  m.stalls = {{"short_scoreboard", 9.22}, {"long_scoreboard", 5.37}, {"wait", 1.13}, {"mio_throttle", 0.26},
              {"selected", 1.0}, {"not_selected", 0.1}};
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "shared_latency");
  EXPECT_EQ(first_fix(a), "mio_pressure");
  EXPECT_EQ(by_remedy(a.opportunities, "onchip_reuse"), nullptr);
  ASSERT_FALSE(a.opportunities.empty());
  EXPECT_GT(a.opportunities.front().est_gain_pct, 12.0);  // its room from SM's 59%, not from L1's 67.7%
  // The generic memory bound, explained by the waits on the MIO path, keeps its name without a remedy.
  auto bound = [](const KernelAnalysis& k, const std::string& id) {
    for (const auto& c : k.causes)
      if (c.id == id) return &c;
    return static_cast<const Cause*>(nullptr);
  };
  const Cause* mem = bound(a, "memory_bound");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->remedy, "none");
  // L2 busier than L1 (both short of the on-chip bound): the memory side is not the MIO path's traffic, and the waits
  // do not explain it.
  auto busy_l2 = m;
  busy_l2.l1_throughput_pct = 62.0, busy_l2.l2_throughput_pct = 66.0, busy_l2.memory_throughput_pct = 66.0;
  auto l2 = analyse(busy_l2);
  const Cause* mem2 = bound(l2, "memory_bound");
  ASSERT_NE(mem2, nullptr);
  EXPECT_NE(mem2->remedy, "none") << mem2->evidence;
  // L1 busy with global data (48 B per SM cycle, loads hitting L1): not the MIO path's traffic either.
  auto data = m;
  data.l1_bytes = 1.082e9 * 48 / 4.6;
  const Cause* mem3 = bound(analyse(data), "memory_bound");
  ASSERT_NE(mem3, nullptr);
  EXPECT_NE(mem3->remedy, "none") << mem3->evidence;
  // L1 at its roof moving data (a shared-memory SGEMM without register tiling): its own bound and remedy lead (reuse
  // on chip, registers), the waits its symptom.
  auto roof = data;
  roof.l1_throughput_pct = 92.0;
  roof.memory_throughput_pct = 92.0;
  auto l1 = analyse(roof);
  EXPECT_EQ(l1.bottleneck.cause, "l1_bandwidth");
  EXPECT_EQ(first_fix(l1), "onchip_reuse");
}

// A stride-2 stream at the DRAM roof: the roofline floor is computed from the bytes coalescing removes, so it does
// not cap the fix at the 4% left to the roof (set 7's partial_coalescing_stride2).
TEST(Advice, CuttingTrafficIsNotBoundedByTheFloorOfThatTraffic) {
  CanonicalMetrics m;
  // Loads fetch 1e8 sectors (3.2 GB) and use half of each; stores write 1.6 GB in full: DRAM moves 4.8 GB at 96.4%
  // of the measured copy bandwidth.
  m.dram_read_bytes = 3.2e9;
  m.dram_write_bytes = 1.6e9;
  m.dram_bytes = 4.8e9;
  m.duration_ns = 4.8e9 / (4.02e12 * 0.964) * 1e9;
  m.sm_throughput_pct = 25;
  m.memory_throughput_pct = 85;
  m.dram_throughput_pct = 83;
  m.dram_measured_pct = 96.4;
  m.l1_hit_pct = 0;
  m.l2_hit_pct = 2;
  m.global_load_sectors = 1.0e8;
  m.global_load_requests = 1.25e7;
  m.global_load_bytes_per_sector = 16;
  m.global_store_sectors = 0.5e8;
  m.global_store_requests = 1.25e7;
  m.global_store_bytes_per_sector = 32;
  m.grid_size = 4096;
  m.waves_per_sm = 3.9;
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "uncoalesced_global");
  EXPECT_EQ(first_fix(a), "coalesce");
  ASSERT_FALSE(a.opportunities.empty());
  EXPECT_GT(a.opportunities[0].est_gain_pct, 25.0);
  // cp.async/TMA loads read 0 bytes per sector in the SASS count: no waste is inferred from them.
  m.global_load_bytes_per_sector = 0.0;
  EXPECT_NE(analyse(m).bottleneck.cause, "uncoalesced_global");
}

// The probe's FMA loop on the H200 (ncu --set full): 7.8 warps ready but not selected per issue against 4.7
// waiting, 88% of that on dispatch. The scheduler has work: the FMA pipe binds, and the dispatch stalls are not
// "the cause" (the Quick start's bundled profile read "not diagnosed: dispatch_stall" before).
TEST(Advice, ReadyWarpsOutweighingTheWaitingLeaveTheStallRuleOut) {
  CanonicalMetrics m;
  m.duration_ns = 1026500;
  m.sm_throughput_pct = 67.8;
  m.memory_throughput_pct = 0.01;
  m.dram_throughput_pct = 0.0;
  m.issue_active_pct = 68.3;
  m.fma_pipe_pct = 63.2;
  m.alu_pipe_pct = 6.0;
  m.flops_fp32 = 2.0 * 5339.45 * 1056 * 256 * 16;
  m.grid_size = 1056;
  m.waves_per_sm = 1.0;
  m.achieved_occupancy_pct = 57.5;
  m.theoretical_occupancy_pct = 100;
  m.stalls = {{"not_selected", 7.81}, {"dispatch_stall", 4.11}, {"selected", 1.0}, {"wait", 0.45},
              {"no_instruction", 0.06}, {"branch_resolving", 0.06}, {"math_pipe_throttle", 0.01}};
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "fp32_pipe");
  EXPECT_EQ(first_fix(a), "pipe_throughput");
}

// Barrier waits in a kernel that streams DRAM, with long scoreboard the next reason (CUB's scan and select on the
// H200: barrier 56-66%, long scoreboard 18-30%, DRAM 46-57% of its measured roof): the warps at the barrier wait
// for the tile's loads, every warp has the same work, and more loads in flight is the fix. With DRAM idle the
// same barrier share stays "uneven work in the block".
TEST(Advice, BarrierWaitsOnAStreamsLoadsAreLatency) {
  auto m = barrier_bound();
  m.dram_throughput_pct = 50;
  m.memory_throughput_pct = 52;
  m.l2_throughput_pct = 55;
  m.stalls["barrier"] = 16.0;
  m.stalls["long_scoreboard"] = 7.0;
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "latency");
  EXPECT_EQ(first_fix(a), "memory_parallelism");
  EXPECT_EQ(by_remedy(a.opportunities, "block_balance"), nullptr);
  m.stalls["long_scoreboard"] = 1.0;  // the block waits on something other than its loads
  EXPECT_EQ(analyse(m).bottleneck.cause, "barrier_stall");
  m.stalls["long_scoreboard"] = 7.0;
  m.dram_throughput_pct = 5;  // nothing streams: the barrier is the block's uneven work
  m.memory_throughput_pct = 8;
  m.l2_throughput_pct = 6;
  EXPECT_EQ(analyse(m).bottleneck.cause, "barrier_stall");
}

// PyTorch's 256-bin int64 histogram on the H200 (ncu --set full): 3.9 shared wavefronts per ATOMS, atomics 53%
// of the shared wavefronts, 54% of the load wavefronts conflicted. The conflicts are the colliding updates' (a
// compare-and-swap loop loads the bin it updates): the cause is the atomics, and Nsight Compute's conflict
// estimate counts for the atomics' remedy, not for padding.
TEST(Advice, ContendingSharedAtomicsOwnTheirLoadsBankConflicts) {
  CanonicalMetrics m;
  m.duration_ns = 101e3;
  m.sm_throughput_pct = 53.5;
  m.memory_throughput_pct = 70.3;
  m.dram_throughput_pct = 28;
  m.l1_throughput_pct = 70.3;
  m.l2_throughput_pct = 36.6;
  m.issue_active_pct = 53.5;
  m.alu_pipe_pct = 30;
  m.grid_size = 4224;
  m.waves_per_sm = 4.0;
  m.achieved_occupancy_pct = 80;
  m.theoretical_occupancy_pct = 100;
  m.shared_wavefronts = 7.69e6;
  m.shared_bank_conflicts = 4.14e6;
  m.shared_atomic_wavefronts = 8.82e6;
  m.shared_atomic_instructions = 2.24e6;
  m.stalls = {{"long_scoreboard", 6.5}, {"short_scoreboard", 4.9}, {"wait", 3.4}, {"branch_resolving", 1.4},
              {"barrier", 1.4}, {"selected", 1.0}, {"not_selected", 0.8}};
  RuleResult conflicts;
  conflicts.name = "SharedMemoryConflicts";
  conflicts.type = "OPT";
  conflicts.speedup_pct = 38.1;
  conflicts.speedup_type = "global";
  auto a = analyse_on_h200(m, {conflicts});
  EXPECT_EQ(a.bottleneck.cause, "atomic_contention");
  EXPECT_EQ(first_fix(a), "atomics");
  EXPECT_EQ(by_remedy(a.opportunities, "smem_conflicts"), nullptr);
  const Opportunity* atomics = by_remedy(a.opportunities, "atomics");
  ASSERT_NE(atomics, nullptr);
  // kprof's own contention estimate is the atomics item (one estimate per remedy, the same in every source), with
  // Nsight Compute's conflict rule named beside it.
  EXPECT_EQ(atomics->source, "kprof");
  EXPECT_NE(atomics->rationale.find("also suggested by ncu:SharedMemoryConflicts"), std::string::npos)
      << atomics->rationale;
  // The same kernel read with the L1/shared unit just under the 70% on-chip cut (69.7%, a later capture of it) is
  // the same contention: the unit's busy share weighs the gain, it does not gate the cause.
  m.l1_throughput_pct = 69.7;
  auto under = analyse_on_h200(m, {conflicts});
  EXPECT_EQ(under.bottleneck.cause, "atomic_contention");
  EXPECT_EQ(first_fix(under), "atomics");
  m.l1_throughput_pct = 70.3;
  // Without the shared atomics the same conflicts are the loads' own.
  m.shared_atomic_wavefronts.reset();
  m.shared_atomic_instructions.reset();
  auto b = analyse_on_h200(m, {conflicts});
  EXPECT_EQ(b.bottleneck.cause, "smem_bank_conflicts");
  EXPECT_EQ(first_fix(b), "smem_conflicts");
}

// Sectors per request alone cannot call 16 or fewer a gather (coalesced 16-byte loads take 16), and Nsight
// Compute's bytes-per-sector count overrules any sector count (PyTorch's global average pool on the H200: 12.8
// sectors per load request, 30.75 of each sector's 32 bytes used, DRAM moving the input once).
TEST(Advice, SectorsWhoseBytesAreUsedAreNotAGather) {
  CanonicalMetrics m;
  m.duration_ns = 176e3;
  m.sm_throughput_pct = 65.2;
  m.issue_active_pct = 64.9;
  m.memory_throughput_pct = 49.1;
  m.dram_throughput_pct = 49.1;
  m.l1_throughput_pct = 30;
  m.l2_throughput_pct = 45;
  m.alu_pipe_pct = 46.7;
  m.fma_pipe_pct = 14;
  m.l1_hit_pct = 6.8;
  m.l2_hit_pct = 4.9;
  m.grid_size = 524288;
  m.waves_per_sm = 248;
  m.achieved_occupancy_pct = 94;
  m.theoretical_occupancy_pct = 100;
  m.global_load_requests = 1.05e6;
  m.global_load_sectors = 1.05e6 * 12.8;
  m.global_store_requests = 5.2e5;
  m.global_store_sectors = 5.2e5;
  EXPECT_NE(analyse(m).bottleneck.cause, "scattered_access");
  m.global_load_sectors = 1.05e6 * 24;  // beyond any coalesced access ...
  EXPECT_EQ(analyse(m).bottleneck.cause, "scattered_access");
  m.global_load_bytes_per_sector = 30.75;  // ... unless the loads use the bytes they fetch
  m.global_store_bytes_per_sector = 32.0;
  EXPECT_NE(analyse(m).bottleneck.cause, "scattered_access");
  m.global_load_bytes_per_sector = 4.0;
  EXPECT_EQ(analyse(m).bottleneck.cause, "scattered_access");
}

// At the DRAM roof, DRAM reading fewer bytes than the loads' sectors means each sector came from DRAM once and its
// re-fetches hit on chip: 32 sectors per request is no gather there, and DRAM is the bound (MLA v4's softmax with
// CUPTI's counters on the H200: 2.1M load requests of 32 sectors, 1.07 GB read from DRAM, 95% of its roof).
TEST(Advice, SectorsRefetchedOnChipAtTheDramRoofAreNotAGather) {
  CanonicalMetrics m;
  m.duration_ns = 373e3;
  m.sm_throughput_pct = 30;
  m.issue_active_pct = 25;
  m.memory_throughput_pct = 91.4;
  m.dram_throughput_pct = 88;
  m.dram_measured_pct = 94.7;
  m.l1_throughput_pct = 45;
  m.l2_throughput_pct = 91.4;
  m.l1_hit_pct = 39.9;
  m.l2_hit_pct = 34.5;
  m.grid_size = 65536;
  m.waves_per_sm = 62;
  m.achieved_occupancy_pct = 85;
  m.theoretical_occupancy_pct = 100;
  m.global_load_requests = 2097152;
  m.global_load_sectors = 67113324;
  m.global_store_requests = 2097152;
  m.global_store_sectors = 16777216;
  m.dram_read_bytes = 1.074e9;
  m.dram_write_bytes = 0.531e9;
  m.dram_bytes = 1.605e9;
  const KernelAnalysis a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "dram_bandwidth");
  EXPECT_NE(first_fix(a), "locality");
  // DRAM reading about a sector's bytes per load sector is a strided layout (each sector fetched once, partly
  // used); twice that is the 64-byte DRAM atoms of scattered sectors: both are still the access pattern's.
  m.dram_read_bytes = 0.85 * 32.0 * 67113324;  // under 0.9 B per sector byte: still fetched once
  EXPECT_EQ(analyse(m).bottleneck.cause, "dram_bandwidth");
  m.dram_read_bytes = 0.95 * 32.0 * 67113324;
  EXPECT_EQ(analyse(m).bottleneck.cause, "uncoalesced_global");
  m.dram_read_bytes = 1.0 * 32.0 * 67113324;
  EXPECT_EQ(analyse(m).bottleneck.cause, "uncoalesced_global");
  m.dram_read_bytes = 1.9 * 32.0 * 67113324;
  EXPECT_EQ(analyse(m).bottleneck.cause, "scattered_access");
  // The same 1x below the roof is a gather whose lanes read sectors in neighbouring pairs (set 37's bilinear
  // map_coordinates on the H100: DRAM at 67% of its roof, L1 hit 26%, L2 hit 20%): a strided layout streams at the
  // roof. Without the hit rates of reuse it is scattered, not uncoalesced.
  {
    CanonicalMetrics g = m;
    g.dram_read_bytes = 1.05 * 32.0 * 67113324;
    g.dram_measured_pct = 67.4;
    g.dram_throughput_pct = 62;
    g.memory_throughput_pct = 62;
    g.l2_throughput_pct = 53;
    g.l1_hit_pct = 25.8;
    g.l2_hit_pct = 20.4;
    const KernelAnalysis ga = analyse(g);
    EXPECT_EQ(ga.bottleneck.cause, "scattered_access");
    EXPECT_EQ(first_fix(ga), "locality");
    g.dram_measured_pct = 90;  // at the roof: the strided layout
    g.dram_throughput_pct = g.memory_throughput_pct = 85;
    EXPECT_EQ(analyse(g).bottleneck.cause, "uncoalesced_global");
  }
  // Where Nsight Compute counted the bytes each sector carries, the count decides, not the DRAM ratio: 8 of 32 used.
  m.dram_read_bytes = 1.074e9;
  m.global_load_bytes_per_sector = 8.0;
  m.global_store_bytes_per_sector = 32.0;
  EXPECT_NE(analyse(m).bottleneck.cause, "dram_bandwidth");
}

// Only the memory side's speed of light is busy and DRAM sets it (L1, L2 below): DRAM names the bound even under
// the DRAM-bound level, not "data re-read on chip" (PyTorch's column mean through CUPTI: DRAM 61.0% of peak,
// L2 59.5% with 1% hits).
TEST(Advice, DramSettingTheMemorySpeedOfLightNamesTheBound) {
  CanonicalMetrics m;
  m.duration_ns = 92e3;
  m.sm_throughput_pct = 8.8;
  m.issue_active_pct = 12.2;
  m.memory_throughput_pct = 61.0;
  m.dram_throughput_pct = 61.0;
  m.l2_throughput_pct = 59.5;
  m.l1_throughput_pct = 14.3;
  m.l2_hit_pct = 1.4;
  m.grid_size = 2112;
  m.waves_per_sm = 8;
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "dram_bandwidth");
  EXPECT_EQ(by_remedy(a.opportunities, "onchip_reuse"), nullptr);
  m.l2_throughput_pct = 64;  // L2 busier than DRAM: not DRAM's
  EXPECT_NE(analyse(m).bottleneck.cause, "dram_bandwidth");
}

// Issue slots near saturation with the busiest pipe an auxiliary one well below them (PyTorch's reflection pad on
// the H200: issue 82.9%, ALU 68.8%, heavy FMA sub-pipe ~56% of integer work): instruction issue binds across pipes.
// An FP pipe stays the bound under the same issue reading (an FP16 polynomial: FMA 75%, issue 90%).
TEST(Advice, IssueFarAboveAnAuxiliaryPipeIsInstructionIssue) {
  CanonicalMetrics m;
  m.duration_ns = 785e3;
  m.sm_throughput_pct = 82.7;
  m.issue_active_pct = 82.9;
  m.alu_pipe_pct = 68.8;
  m.fma_pipe_pct = 28.0;
  m.memory_throughput_pct = 28.5;
  m.dram_throughput_pct = 28.5;
  m.grid_size = 1e5;
  m.waves_per_sm = 50;
  m.achieved_occupancy_pct = 85;
  m.theoretical_occupancy_pct = 100;
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "compute_bound");
  EXPECT_EQ(first_fix(a), "pipe_throughput");
  m.issue_active_pct = 75;  // issue not near saturation: the ALU names it
  EXPECT_EQ(analyse(m).bottleneck.cause, "int_pipe");
  m.issue_active_pct = 90;  // the busiest pipe an FP one: FP16 work on the FMA pipe
  m.alu_pipe_pct = 18.6;
  m.fma_pipe_pct = 74.6;
  m.fp16_pipe_instructions = 1.77e10;
  m.fma_pipe_instructions = 1.77e10;
  m.flops_fp16 = 1.42e11;
  m.flops_fp32 = 0;
  EXPECT_EQ(analyse(m).bottleneck.cause, "fp16_pipe");
}

// FP64 matrix math counted by its FLOPs only (the annotation list has no DMMA pipe counter): its busy share is the
// FLOP rate against the FP64 tensor peak (cuBLAS's DGEMM on the H200: 137.4 GFLOP in 2.26 ms, 91% of 67 TFLOP/s),
// and the kernel is FP64 pipe bound at its roof, not "register-limited occupancy".
TEST(Advice, Fp64MatrixMathAtItsPeakIsFp64PipeBound) {
  CanonicalMetrics m;
  m.duration_ns = 2.26e6;
  m.sm_throughput_pct = 22.7;
  m.issue_active_pct = 19.7;
  m.fp64_pipe_pct = 0.1;
  m.fma_pipe_pct = 0.5;
  m.alu_pipe_pct = 7.1;
  m.tensor_pipe_pct = 0.0;
  m.memory_throughput_pct = 45.6;
  m.dram_throughput_pct = 14.7;
  m.l2_throughput_pct = 45.8;
  m.l1_throughput_pct = 38;
  m.flops_tensor = 137438953472.0;
  m.tensor_precision = "fp64";
  m.registers_per_thread = 246;
  m.block_size = 128;
  m.grid_size = 2048;
  m.waves_per_sm = 7.8;
  m.achieved_occupancy_pct = 12.2;
  m.theoretical_occupancy_pct = 12.5;
  m.stalls = {{"math_pipe_throttle", 4.2}, {"barrier", 0.2}, {"selected", 1.0}};
  m.provenance["sm_throughput_pct"] = "max(issue active, FMA/ALU/FP64/XU/tensor/LSU pipes), % of peak over elapsed cycles";
  kprof::KernelGroup g;
  g.kernel = "sm90_xmma_gemm_f64f64_f64f64_f64_nn_n";
  g.signature = g.kernel + "()";
  g.metrics = m;
  g.launches.emplace_back();
  g.representative = 0;
  auto spec = *datasheet_db().find("h200-sxm");
  kprof::analyze::complete_metrics(g.metrics, &spec);
  EXPECT_NEAR(*g.metrics.fp64_pipe_pct, 137438953472.0 / 2.26e-3 / 67e12 * 100.0, 1e-6);
  EXPECT_NEAR(*g.metrics.sm_throughput_pct, *g.metrics.fp64_pipe_pct, 1e-9);
  auto a = kprof::analyze::analyze_group(g, {}, &spec, shipped());
  EXPECT_EQ(a.bottleneck.cause, "fp64_pipe");
  EXPECT_EQ(first_fix(a), "none");
  // Nsight Compute's own DMMA reading is kept, not replaced by the FLOP estimate.
  g.metrics = m;
  g.metrics.fp64_pipe_pct = 97.7;
  g.metrics.provenance["fp64_pipe_pct"] = "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active";
  kprof::analyze::complete_metrics(g.metrics, &spec);
  EXPECT_DOUBLE_EQ(*g.metrics.fp64_pipe_pct, 97.7);
  // Half the rate: the FP64 pipe is underfed, and the evidence reads the FP64 pipe, not the HMMA counter's 0%.
  g.metrics = m;
  g.metrics.duration_ns = 2 * 2.26e6;
  kprof::analyze::complete_metrics(g.metrics, &spec);
  auto b = kprof::analyze::analyze_group(g, {}, &spec, shipped());
  const Cause* underfed = nullptr;
  for (const auto& c : b.causes)
    if (c.id == "tensor_underfed") underfed = &c;
  ASSERT_NE(underfed, nullptr);
  EXPECT_NE(underfed->evidence.find("FP64 pipe (DMMA) busy 45"), std::string::npos) << underfed->evidence;
}

// A latency-bound kernel whose warps wait on dependent arithmetic more than on memory (PyTorch's unfold on the
// H200: math-pipe throttle and fixed-latency waits over long scoreboard) is told to add independent instructions or
// cut them, not to put more memory requests in flight; with memory waits ahead the remedy is memory parallelism.
TEST(Advice, TheLatencyRemedyFollowsWhatTheWarpsWaitOn) {
  CanonicalMetrics m;
  m.duration_ns = 29e3 * 10;
  m.sm_throughput_pct = 54;
  m.issue_active_pct = 55;
  m.memory_throughput_pct = 27;
  m.dram_throughput_pct = 11;
  m.alu_pipe_pct = 44;
  m.fma_pipe_pct = 50;
  m.grid_size = 1024;
  m.waves_per_sm = 7.8;
  m.achieved_occupancy_pct = 47;
  m.theoretical_occupancy_pct = 50;
  m.stalls = {{"not_selected", 2.8}, {"wait", 2.4}, {"math_pipe_throttle", 1.9}, {"long_scoreboard", 1.7},
              {"short_scoreboard", 1.1}, {"selected", 1.0}, {"dispatch_stall", 0.6}, {"barrier", 0.1},
              {"lg_throttle", 0.1}, {"mio_throttle", 0.2}, {"branch_resolving", 0.1}};
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "latency");
  EXPECT_EQ(first_fix(a), "pipe_throughput");
  m.stalls["long_scoreboard"] = 4.0;  // ... 25% of the waiting: still under the arithmetic's
  m.stalls["wait"] = 0.4;
  m.stalls["math_pipe_throttle"] = 0.4;
  EXPECT_EQ(first_fix(analyse(m)), "memory_parallelism");
}

// A partial last wave names the kernel only when filling it saves more than the bound of the full waves
// (PyTorch's embedding_bag on the H200: 1.29 waves worth 35.5% against memory latency worth 35.9%); the designed
// one-block-too-many grid still reads "tail wave".
TEST(Advice, APartialWaveLeadsOnlyWhenItSavesMoreThanTheFullWavesBound) {
  CanonicalMetrics m;
  m.duration_ns = 1.21e6;
  m.sm_throughput_pct = 51;
  m.issue_active_pct = 40;
  m.memory_throughput_pct = 36.5;
  m.dram_throughput_pct = 36.5;
  m.l2_hit_pct = 15;
  m.grid_size = 1024;
  m.block_size = 512;
  m.waves_per_sm = 1.29;
  m.achieved_occupancy_pct = 53;
  m.theoretical_occupancy_pct = 75;
  m.stalls = {{"long_scoreboard", 14.0}, {"math_pipe_throttle", 1.5}, {"selected", 1.0}, {"short_scoreboard", 0.5}};
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "memory_latency");
  EXPECT_NE(by_remedy(a.opportunities, "whole_waves"), nullptr);
  m.waves_per_sm = 1.02;  // a last wave of 2%: the GPU idles half the run
  EXPECT_EQ(analyse(m).bottleneck.cause, "tail_wave");
}

// A latency-bound kernel whose warps wait on several reasons, none of them dominant, with few warps resident by its
// registers and shared memory (CUB's onesweep radix sort on the H200: long scoreboard 27%, barrier 25%, short
// scoreboard 15% of waits; 2 blocks per SM, 37.5% theoretical occupancy): more resident warps hide every kind of
// wait, so occupancy is the remedy. Not when memory waits dominate (more requests per thread), nor when the
// occupancy is high, nor when the limit is the launch's block count rather than a resource.
TEST(Advice, MixedWaitsUnderAResourceLimitAskForOccupancy) {
  CanonicalMetrics m;
  m.duration_ns = 322e3;
  m.sm_throughput_pct = 39;
  m.issue_active_pct = 36;
  m.memory_throughput_pct = 51;
  m.dram_throughput_pct = 51;
  m.grid_size = 2048;
  m.block_size = 384;
  m.waves_per_sm = 7.8;
  m.achieved_occupancy_pct = 36.5;
  m.theoretical_occupancy_pct = 37.5;
  m.occupancy_limit_registers = 2, m.occupancy_limit_shared_mem = 2, m.occupancy_limit_warps = 5,
  m.occupancy_limit_blocks = 32;
  m.stalls = {{"long_scoreboard", 2.7}, {"barrier", 2.5}, {"short_scoreboard", 1.5}, {"wait", 1.2},
              {"selected", 1.0}, {"not_selected", 0.3}, {"branch_resolving", 0.4}, {"math_pipe_throttle", 0.2},
              {"mio_throttle", 0.5}, {"no_instruction", 0.4}, {"dispatch_stall", 0.1}};
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "latency");
  EXPECT_EQ(first_fix(a), "occupancy");
  EXPECT_NE(a.causes.front().evidence.find("set by registers and shared memory"), std::string::npos)
      << a.causes.front().evidence;
  auto high = m;
  high.theoretical_occupancy_pct = 62.5;  // enough warps resident by kprof's mixed-wait threshold (50%)
  EXPECT_EQ(first_fix(analyse(high)), "memory_parallelism");
  auto shape = m;
  shape.occupancy_limit_blocks = 1;  // the launch's block limit binds, not a resource
  EXPECT_EQ(first_fix(analyse(shape)), "memory_parallelism");
  auto partial = m;  // three reasons collected: the total is Little's law's, and no spread can be read from them
  partial.stalls = {{"long_scoreboard", 2.7}, {"barrier", 2.5}, {"selected", 1.0}};
  EXPECT_NE(first_fix(analyse(partial)), "occupancy");
  auto memory = m;
  memory.stalls["long_scoreboard"] = 7.0;  // 51% of the waiting: memory latency, more requests per thread
  auto b = analyse(memory);
  EXPECT_EQ(b.bottleneck.cause, "memory_latency");
  EXPECT_EQ(first_fix(b), "memory_parallelism");
}

// One-warp blocks at the 32-blocks-per-SM limit hold an SM at 50% occupancy; a kernel of chained dependent loads
// (set 33's B+-tree lookups on the H100: long scoreboard 80% of the stalls, SM 29%, memory 20%, achieved 49%) wants
// the other half, and larger blocks cost nothing: occupancy_blocks, not "more loads in flight". Nsight Compute
// reports the block cap as the shared-memory limit of a kernel without shared memory; that tie is not a shared-memory
// limit. Achieved far under the theoretical (short one-warp blocks: PyTorch's embedding gather at 20% of 50%) is not
// the limit holding the warps.
TEST(Advice, OneWarpBlocksAtTheBlockLimitOfALatencyBoundKernelAskForOccupancy) {
  CanonicalMetrics m;
  m.duration_ns = 818e3;
  m.sm_throughput_pct = 29.4;
  m.issue_active_pct = 20;
  m.memory_throughput_pct = 19.8;
  m.dram_throughput_pct = 10;
  m.grid_size = 262144;
  m.block_size = 32;
  m.waves_per_sm = 62;
  m.shared_mem_per_block_bytes = 0;
  m.achieved_occupancy_pct = 49.1;
  m.theoretical_occupancy_pct = 50;
  m.occupancy_limit_registers = 84, m.occupancy_limit_shared_mem = 32, m.occupancy_limit_warps = 64,
  m.occupancy_limit_blocks = 32;
  m.stalls = {{"long_scoreboard", 8.0}, {"selected", 1.0}, {"not_selected", 0.1}, {"wait", 0.5},
              {"no_instruction", 0.2}, {"dispatch_stall", 0.1}, {"branch_resolving", 0.1}};
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "occupancy_blocks");
  EXPECT_EQ(first_fix(a), "occupancy");
  auto churn = m;
  churn.achieved_occupancy_pct = 20;  // the blocks end before the SM fills its 32 slots
  EXPECT_NE(analyse(churn).bottleneck.cause, "occupancy_blocks");
  auto sixty_four = m;  // two-warp blocks at 100% would be another kernel; 64-thread blocks at 62.5% are enough
  sixty_four.theoretical_occupancy_pct = 62.5, sixty_four.achieved_occupancy_pct = 61;
  EXPECT_NE(analyse(sixty_four).bottleneck.cause, "occupancy_blocks");
  auto registers = m;  // a register limit at 50% is a trade (spills), not lifted at this occupancy
  registers.occupancy_limit_registers = 32, registers.occupancy_limit_blocks = 64;
  EXPECT_NE(analyse(registers).bottleneck.cause, "occupancy_registers");
}

// Busy in the SM by instruction issue alone, with issue slots to spare and no pipe near its roof, at a quarter of the
// warps its registers allow: the idle slots wait for warps, as a latency-bound kernel's do (a Triton kernel of 111
// registers per thread on the H200, Nsight Compute's full set: SM 60.2%, issue 60.8%, the FMA pipe 35%; the same
// kernel at SM 59.8% read latency-bound and got occupancy). Issue near its roof, or a pipe at its bound, keeps it.
TEST(Advice, IssueWithRoomToSpareUnderARegisterLimitAsksForOccupancy) {
  CanonicalMetrics m;
  m.duration_ns = 766e3;
  m.sm_throughput_pct = 60.2;
  m.issue_active_pct = 60.8;
  m.fma_pipe_pct = 35.3;
  m.alu_pipe_pct = 33.2;
  m.xu_pipe_pct = 8.4;
  m.lsu_pipe_pct = 2.9;
  m.memory_throughput_pct = 30.2;
  m.dram_throughput_pct = 30.2;
  m.l1_throughput_pct = 17;
  m.l2_throughput_pct = 28;
  m.grid_size = 131072;
  m.block_size = 128;
  m.waves_per_sm = 248;
  m.achieved_occupancy_pct = 23.8;
  m.theoretical_occupancy_pct = 25;
  m.occupancy_limit_registers = 4, m.occupancy_limit_shared_mem = 32, m.occupancy_limit_warps = 16,
  m.occupancy_limit_blocks = 32;
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "occupancy_registers");
  EXPECT_EQ(first_fix(a), "occupancy");
  // The idle slots are one waste with one fix: no "raise pipe throughput" item for the plain compute bound beside it.
  for (const auto& o : a.opportunities) EXPECT_NE(o.remedy, "pipe_throughput") << o.name;
  // ... the compute bound is still named, explained by the occupancy limit.
  bool compute = false;
  for (const auto& c : a.causes)
    if (c.id == "compute_bound") {
      compute = true;
      EXPECT_EQ(c.remedy, "none") << c.evidence;
    }
  EXPECT_TRUE(compute);
  auto issue = m;
  issue.issue_active_pct = 85;  // issue near its roof: more warps find no free slot
  issue.sm_throughput_pct = 85;
  EXPECT_NE(analyse(issue).bottleneck.cause, "occupancy_registers");
  auto pipe = m;
  pipe.fma_pipe_pct = 62;  // the FMA pipe at its bound
  EXPECT_NE(analyse(pipe).bottleneck.cause, "occupancy_registers");
  auto near = m;
  near.fma_pipe_pct = 58, near.issue_active_pct = 78;  // just under both cuts: still slots to spare
  EXPECT_EQ(analyse(near).bottleneck.cause, "occupancy_registers");
  // An absent count is not an idle unit: without the issue count, or without any pipe's, the SM at 60% is not
  // known to have slots to spare.
  auto no_issue = m;
  no_issue.issue_active_pct.reset();
  EXPECT_NE(analyse(no_issue).bottleneck.cause, "occupancy_registers");
  auto no_pipes = m;
  no_pipes.fma_pipe_pct.reset(), no_pipes.alu_pipe_pct.reset(), no_pipes.xu_pipe_pct.reset();
  EXPECT_NE(analyse(no_pipes).bottleneck.cause, "occupancy_registers");
  auto l1 = m;
  l1.l1_throughput_pct = 75;  // a memory unit busy: not the idle issue slots' case
  EXPECT_NE(analyse(l1).bottleneck.cause, "occupancy_registers");
}

// A memory-bound kernel with no single unit named is told to reuse data on chip only where something is re-read:
// global loads that fetch about what DRAM reads (cuFFT's strided pass on the H200: 1.08x) leave nothing for a tile
// to keep, and more bytes in flight is the remedy; loads fetching twice what DRAM reads keep the reuse advice.
TEST(Advice, ReuseOnChipNeedsBytesFetchedMoreThanOnce) {
  CanonicalMetrics m;
  m.duration_ns = 139e3;
  m.sm_throughput_pct = 25;
  m.issue_active_pct = 26;
  m.memory_throughput_pct = 62;
  m.dram_throughput_pct = 37;
  m.dram_measured_pct = 41;
  m.l2_throughput_pct = 62;
  m.l1_throughput_pct = 50;
  m.local_memory_bytes = 0;
  m.dram_read_bytes = 134e6, m.dram_write_bytes = 114e6, m.dram_bytes = 248e6;
  m.global_load_requests = 720896, m.global_load_sectors = 4521984;  // 145 MB: 1.08x DRAM's reads
  m.global_store_requests = 524288, m.global_store_sectors = 4194304;
  m.grid_size = 1024, m.block_size = 1024, m.waves_per_sm = 7.8;
  m.achieved_occupancy_pct = 47, m.theoretical_occupancy_pct = 50;
  auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "memory_bound");
  EXPECT_EQ(first_fix(a), "memory_parallelism");
  auto reread = m;
  reread.global_load_sectors = 2.0 * 134e6 / 32;  // the loads fetch twice what DRAM reads
  EXPECT_EQ(first_fix(analyse(reread)), "onchip_reuse");
  auto local = m;
  local.l1_bytes = 300e6;
  local.local_memory_bytes = 3e6;  // some local traffic (1% of L1's bytes, under the local-memory rule): not a plain stream
  EXPECT_EQ(first_fix(analyse(local)), "onchip_reuse");
  auto unseen = m;
  unseen.global_load_sectors = 1000;  // loads the counter does not see (TMA, cp.async): nothing is known of re-reads
  EXPECT_EQ(first_fix(analyse(unseen)), "onchip_reuse");
  auto l1_busier = m;
  l1_busier.l1_throughput_pct = 70;
  EXPECT_EQ(first_fix(analyse(l1_busier)), "onchip_reuse");
  auto no_local_reading = m;
  no_local_reading.local_memory_bytes.reset();
  EXPECT_EQ(first_fix(analyse(no_local_reading)), "onchip_reuse");
  // More bytes in flight gains at most the memory side's distance to saturation, not the roofline floor's.
  EXPECT_LE(a.opportunities.front().est_gain_pct, 100.0 * (1.0 - 62.0 / 80.0) + 0.01);
}

// Waiting for room in the local/global queue is the global path's stall: bank conflicts (shared memory, the MIO
// path) do not explain it, so it is named even where they were found; MIO-queue waits still defer to them.
TEST(Advice, TheGlobalQueueStallIsNotExplainedByBankConflicts) {
  CanonicalMetrics m;
  m.duration_ns = 139e3;
  m.sm_throughput_pct = 25;
  m.issue_active_pct = 26;
  m.memory_throughput_pct = 45;
  m.dram_throughput_pct = 30;
  m.l2_throughput_pct = 45;
  m.l1_throughput_pct = 50;
  m.shared_wavefronts = 7340032, m.shared_bank_conflicts = 3145728;  // 43% conflicted
  m.grid_size = 1024, m.block_size = 1024, m.waves_per_sm = 7.8;
  m.achieved_occupancy_pct = 47, m.theoretical_occupancy_pct = 50;
  m.stalls = {{"lg_throttle", 11.6}, {"long_scoreboard", 3.6}, {"barrier", 2.8}, {"mio_throttle", 2.7},
              {"short_scoreboard", 1.1}, {"selected", 1.0}, {"not_selected", 3.5}, {"wait", 0.6},
              {"drain", 0.8}, {"dispatch_stall", 0.4}, {"math_pipe_throttle", 0.4}};
  auto a = analyse(m);
  EXPECT_TRUE(std::any_of(a.causes.begin(), a.causes.end(), [](const Cause& c) { return c.id == "lsu_queue"; }));
  auto mio = m;
  std::swap(mio.stalls["lg_throttle"], mio.stalls["mio_throttle"]);  // the MIO queue full instead: the conflicts' own
  auto b = analyse(mio);
  EXPECT_FALSE(std::any_of(b.causes.begin(), b.causes.end(), [](const Cause& c) { return c.id == "mio_queue"; }));
  EXPECT_TRUE(std::any_of(b.causes.begin(), b.causes.end(),
                          [](const Cause& c) { return c.id == "smem_bank_conflicts"; }));
}

// Issue-bound with no pipe at its bound: the evidence names the busiest pipe, so the reader sees where the issued work
// goes (set 16's GELU through a double-precision erf: issue 92%, the FP64 pipe 57.7%, FMA 8.8%).
TEST(Advice, AnIssueBoundKernelNamesItsBusiestPipe) {
  CanonicalMetrics m;
  m.duration_ns = 328704;
  m.sm_throughput_pct = 91.7;
  m.issue_active_pct = 92.1;
  m.memory_throughput_pct = 32.8;
  m.dram_throughput_pct = 30.0;
  m.l1_throughput_pct = 20.0;
  m.l2_throughput_pct = 15.0;
  m.fp64_pipe_pct = 57.7;
  m.fma_pipe_pct = 8.8;
  m.alu_pipe_pct = 6.3;
  m.xu_pipe_pct = 35.1;
  m.tensor_pipe_pct = 0;
  m.grid_size = 16384;
  m.waves_per_sm = 15.5;
  auto a = analyse(m);
  ASSERT_FALSE(a.causes.empty());
  EXPECT_EQ(a.bottleneck.cause, "compute_bound");
  EXPECT_NE(a.causes.front().evidence.find("the busiest, the FP64 pipe, 57.7%"), std::string::npos)
      << a.causes.front().evidence;
  // With only the tensor pipe measured (older annotation lists), nothing is called the busiest.
  CanonicalMetrics one = m;
  one.fp64_pipe_pct.reset(), one.fma_pipe_pct.reset(), one.alu_pipe_pct.reset(), one.xu_pipe_pct.reset();
  auto b = analyse(one);
  ASSERT_FALSE(b.causes.empty());
  EXPECT_EQ(b.causes.front().evidence.find("the busiest"), std::string::npos) << b.causes.front().evidence;
}

// Set 25's 7x7 stride-1 average pool: issue slots 82% busy, no pipe above 60%, DRAM 6%, and its global loads fetch
// 58 times what DRAM reads (each input gathered again for every window it falls in, L1 hit 94%). The issue goes to
// those re-gathers and their address math: reuse in registers or shared memory, not more instructions in flight. A
// row-wise norm whose passes re-read rows held in L1 (about 10x) stays "raise pipe throughput".
TEST(Advice, AnIssueBoundKernelRegatheringTheSameBytesWantsReuseOnChip) {
  CanonicalMetrics m;
  m.duration_ns = 860000;
  m.sm_throughput_pct = 82.2;
  m.issue_active_pct = 82.6;
  m.memory_throughput_pct = 24.7;
  m.dram_throughput_pct = 6.1;
  m.l1_throughput_pct = 24.7;
  m.l2_throughput_pct = 8.0;
  m.fma_pipe_pct = 52.7;
  m.alu_pipe_pct = 46.0;
  m.xu_pipe_pct = 13.2;
  m.tensor_pipe_pct = 0;
  m.grid_size = 32768;
  m.waves_per_sm = 31.0;
  m.dram_read_bytes = 134e6;
  m.global_load_sectors = 58.0 * 134e6 / 32.0;
  m.l1_hit_pct = 94.1;
  auto a = analyse(m);
  ASSERT_FALSE(a.causes.empty());
  EXPECT_EQ(a.bottleneck.cause, "compute_bound");
  EXPECT_EQ(a.causes.front().remedy, "onchip_reuse");
  EXPECT_NE(a.causes.front().evidence.find("fetch 58x what DRAM reads"), std::string::npos) << a.causes.front().evidence;
  ASSERT_FALSE(a.opportunities.empty());
  EXPECT_EQ(a.opportunities.front().remedy, "onchip_reuse");
  CanonicalMetrics rows = m;
  rows.global_load_sectors = 10.0 * 134e6 / 32.0;
  auto b = analyse(rows);
  ASSERT_FALSE(b.causes.empty());
  EXPECT_EQ(b.causes.front().id, "compute_bound");
  EXPECT_EQ(b.causes.front().remedy, "pipe_throughput");
  // One pass over an input already in L2: little read from DRAM, but nothing hits in L1.
  CanonicalMetrics resident = m;
  resident.l1_hit_pct = 2.0;
  auto c = analyse(resident);
  ASSERT_FALSE(c.causes.empty());
  EXPECT_EQ(c.causes.front().remedy, "pipe_throughput");
}

// Set 24's frames uploaded widened to float and whole maps read back for a small window: per step a 0.9 ms copy
// between host and device from pinned memory and a 0.1 ms kernel, one after the other. The host link bounds the range
// (host_link: the stage's bound, ahead of its kernel's), and only fewer bytes over it help: overlapping hides at
// most the kernels' tenth. The same time in memsets of whole buffers (set 24's candidate buffer cleared each step)
// binds the range to DRAM, and dropping or narrowing them is the item. Copies that take the same bytes down to the
// host and back up (set 22's stages handing a 32 MiB intermediate over through host memory) are kept on the GPU.
TEST(Advice, ARangeOfCopiesIsBoundByTheLinkOrByDram) {
  auto steps = [](bool memsets, bool round_trip = false, bool upload_first = false) {
    Trace trace;
    trace.strings = {"", "frames", "k", "cudaLaunchKernel"};
    trace.info.api_traced = trace.info.nvtx_traced = true;
    std::int64_t t = 0;
    for (int rep = 0; rep < 3; ++rep) {
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      for (int i = 0; i < 4; ++i) {
        if (memsets) {
          TraceMemset m;
          m.start_ns = t + 1000, m.end_ns = t + 901000, m.bytes = 512u << 20;
          trace.memsets.push_back(m);
        } else {
          TraceMemcpy c;
          c.kind = round_trip && i % 2 == (upload_first ? 1 : 0) ? MemcpyKind::dtoh : MemcpyKind::htod;
          c.start_ns = t + 1000, c.end_ns = t + 901000, c.bytes = 48u << 20;
          trace.memcpys.push_back(c);
        }
        t = launch(trace, 3, 2, t + 901000, 4000, 5000, 100000, ri) + 2000;
      }
      r.end_ns = t;
      trace.nvtx.push_back(r);
      t += 1000000;
    }
    if (memsets) {  // a copy record elsewhere: the trace records copies
      TraceMemcpy c;
      c.kind = MemcpyKind::htod;
      c.start_ns = t, c.end_ns = t + 10;
      trace.memcpys.push_back(c);
    }
    return trace;
  };
  auto analysed = [](const Trace& trace) {
    ProfileRun run = one_stage_run("frames", "k", 100000, 12);
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run;
  };
  auto item = [](const ProfileRun& run, const std::string& metric) {
    const Opportunity* found = nullptr;
    for (const auto& o : run.program_opportunities)
      if (o.trigger_metric == metric) found = &o;
    return found;
  };
  ProfileRun link = analysed(steps(false));
  ASSERT_TRUE(link.stages[0].range);
  ASSERT_TRUE(link.stages[0].bound);
  EXPECT_EQ(link.stages[0].bound->cause, "host_link");
  EXPECT_EQ(link.stages[0].bound->unit, "host link");
  EXPECT_NE(link.stages[0].bound->key_issue.find("host-device copies"), std::string::npos);
  ASSERT_TRUE(link.overall);
  EXPECT_EQ(link.overall->cause, "host_link");
  const Opportunity* fewer = item(link, "link_copy_ns");
  ASSERT_NE(fewer, nullptr);
  EXPECT_EQ(fewer->remedy, "dram_traffic");
  EXPECT_EQ(fewer->scope, "stage");
  EXPECT_NEAR(fewer->est_gain_pct, 0.9 / 1.0 * 100.0, 2.0);  // the copies' time: an upper bound, and says so
  EXPECT_NE(fewer->assumes.find("upper bound"), std::string::npos);
  ProfileRun back = analysed(steps(false, true));
  const Opportunity* keep = item(back, "link_copy_ns");
  ASSERT_NE(keep, nullptr);
  EXPECT_EQ(keep->remedy, "fuse_stages");
  EXPECT_NE(keep->name.find("Keep the intermediate on the GPU"), std::string::npos) << keep->name;
  EXPECT_NEAR(keep->est_gain_pct, 0.9 / 1.0 * 100.0, 2.0);
  // A chunked pipeline of one size (upload x1, read back y1, upload x2, ...) brings new data in with its first upload:
  // no round trip. Its uploads and read-backs (blocking copies here) never ran side by side, so running them at once
  // on the two copy engines hides the shorter direction, half the copies' time: that item, not "fewer bytes" (an
  // upper bound without knowing which bytes can go), and no "keep it on the GPU".
  ProfileRun chunks = analysed(steps(false, true, true));
  EXPECT_EQ(item(chunks, "link_copy_ns"), nullptr);
  const Opportunity* chunked = item(chunks, "serial_direction_copy_ns");
  ASSERT_NE(chunked, nullptr);
  EXPECT_EQ(chunked->remedy, "host_sync");
  EXPECT_NE(chunked->name.find("cudaMemcpyAsync"), std::string::npos) << chunked->name;
  EXPECT_NEAR(chunked->est_gain_pct, 1.8 / 4.0 * 100.0, 3.0);
  EXPECT_NE(chunked->assumes.find("has not measured"), std::string::npos) << chunked->assumes;
  // Where the device moves less than twice the one-way rate both ways at once (kprof-peaks' both_pinned_gbps: 74
  // against 55 GB/s, as a virtualised H100's link might), only 2 (1 - 55/74) of the shorter direction hides.
  {
    ProfileRun run = one_stage_run("frames", "k", 100000, 12);
    auto db = datasheet_db();
    DeviceSpec spec = *db.find("h100-sxm");
    spec.measured["h2d_pinned_gbps"] = Peak{55.0, "kprof-peaks"};
    spec.measured["d2h_pinned_gbps"] = Peak{55.0, "kprof-peaks"};
    spec.measured["both_pinned_gbps"] = Peak{74.0, "kprof-peaks"};
    run.device_spec = spec;
    const Trace pipeline = steps(false, true, true);
    analyze_run(run, db, shipped(), &pipeline, false);
    const Opportunity* shared = item(run, "serial_direction_copy_ns");
    ASSERT_NE(shared, nullptr);
    EXPECT_NEAR(shared->est_gain_pct, chunked->est_gain_pct * 2.0 * (1.0 - 55.0 / 74.0), 1.0);
    EXPECT_NE(shared->assumes.find("74 GB/s both ways"), std::string::npos) << shared->assumes;
    // Twice the one-way rate or more: all of it hides; no faster both ways than one way: none (the item stays, as
    // the blocking calls also hold the host, at no estimated gain).
    auto estimate = [&](std::optional<double> both_gbps, bool one_way = true) {
      ProfileRun r = one_stage_run("frames", "k", 100000, 12);
      DeviceSpec sp = *db.find("h100-sxm");
      if (one_way) sp.measured["h2d_pinned_gbps"] = sp.measured["d2h_pinned_gbps"] = Peak{55.0, "kprof-peaks"};
      if (both_gbps) sp.measured["both_pinned_gbps"] = Peak{*both_gbps, "kprof-peaks"};
      r.device_spec = sp;
      analyze_run(r, db, shipped(), &pipeline, false);
      const Opportunity* o = item(r, "serial_direction_copy_ns");
      return o ? std::optional<std::pair<double, std::string>>({o->est_gain_pct, o->assumes}) : std::nullopt;
    };
    const auto full = estimate(120.0), none = estimate(50.0), half_known = estimate(74.0, false);
    ASSERT_TRUE(full && none && half_known);
    EXPECT_NEAR(full->first, chunked->est_gain_pct, 0.5);
    EXPECT_NEAR(none->first, 0.0, 0.5);
    // A two-way figure without the one-way ones scales nothing, and the assumption says it is unmeasured.
    EXPECT_NEAR(half_known->first, chunked->est_gain_pct, 0.5);
    EXPECT_NE(half_known->second.find("has not measured"), std::string::npos) << half_known->second;
  }
  // The round trip (read back, then the same bytes up again) has no such item: each upload waits for its read-back.
  EXPECT_EQ(item(back, "serial_direction_copy_ns"), nullptr);

  ProfileRun fills = analysed(steps(true));
  ASSERT_TRUE(fills.stages[0].bound);
  EXPECT_EQ(fills.stages[0].bound->cause, "dram_bandwidth");
  EXPECT_EQ(fills.stages[0].bound->unit, "DRAM");
  const Opportunity* drop = item(fills, "device_copy_ns");
  ASSERT_NE(drop, nullptr);
  EXPECT_EQ(drop->remedy, "dram_traffic");
  EXPECT_NE(drop->name.find("memsets"), std::string::npos) << drop->name;
  EXPECT_EQ(item(fills, "link_copy_ns"), nullptr);

  // The same 0.9 ms of copies made of 300 copies of 2 KiB (set 30's region of interest uploaded a row per copy): each
  // copy's fixed cost, not the link, sets their time. The range is bound by the copies' count (launch overhead), and
  // the item is fewer, larger copies, worth the time beyond moving 600 KiB at the link's rate.
  Trace rows = steps(false);
  std::vector<TraceMemcpy> pieces;
  for (const auto& c : rows.memcpys)
    for (int k = 0; k < 300; ++k) {
      TraceMemcpy p = c;
      p.start_ns = c.start_ns + k * 3000, p.end_ns = p.start_ns + 2900, p.bytes = 2048;
      pieces.push_back(p);
    }
  rows.memcpys = pieces;
  ProfileRun small = analysed(rows);
  ASSERT_TRUE(small.stages[0].range);
  EXPECT_GE(small.stages[0].range->link_copies, 1200);
  ASSERT_TRUE(small.stages[0].bound);
  EXPECT_EQ(small.stages[0].bound->cause, "launch_overhead");
  EXPECT_NE(small.stages[0].bound->key_issue.find("small host-device copies"), std::string::npos);
  const Opportunity* batch = item(small, "link_copy_ns");
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(batch->remedy, "launch_overhead");
  EXPECT_NE(batch->name.find("few large transfers"), std::string::npos) << batch->name;
  EXPECT_GT(batch->est_gain_pct, 80.0);
  // Less than the copies' whole time: their bytes still move, at the link's rate.
  const RangeTime& rt = *small.stages[0].range;
  EXPECT_LT(batch->est_gain_pct, rt.link_copy_ns / rt.span_ns * 100.0 - 0.5);
  // Small copies wholly under a kernel cost the range nothing and are not counted (the review's 1000 async 256-byte
  // copies beside a kernel beside one large upload).
  Trace hidden = rows;
  std::vector<TraceKernel> kernels = hidden.kernels;
  for (const auto& k : hidden.kernels) {
    TraceKernel cover = k;
    cover.start_ns = k.start_ns - 905000, cover.end_ns = k.start_ns - 1;  // over the 300 copies before the kernel
    kernels.push_back(cover);
  }
  std::sort(kernels.begin(), kernels.end(),
            [](const TraceKernel& a, const TraceKernel& b) { return a.start_ns < b.start_ns; });
  hidden.kernels = kernels;
  ProfileRun under = analysed(hidden);
  ASSERT_TRUE(under.stages[0].range);
  EXPECT_EQ(under.stages[0].range->link_copies, 0);
}

// Set 26's heat steps (and set 20's): per step a stencil waiting on memory at 42% of DRAM, then a device copy of the
// new grid back over the old one, 30% of the step. The range is memory bound as a whole (three blind labels of four),
// not its kernel's memory latency, and the copies are its first item; a kernel at the DRAM roof beside the same copies
// names the range itself (sets 16 and 23: DRAM bandwidth).
TEST(Advice, DeviceCopiesBesideAKernelWaitingOnMemoryMakeTheRangeMemoryBound) {
  Trace trace;
  trace.strings = {"", "heat", "k", "cudaLaunchKernel"};
  trace.info.api_traced = trace.info.nvtx_traced = true;
  std::int64_t t = 0;
  for (int rep = 0; rep < 2; ++rep) {
    TraceNvtxRange r;
    r.name = 1;
    r.start_ns = t;
    const int ri = static_cast<int>(trace.nvtx.size());
    for (int i = 0; i < 5; ++i) {
      t = launch(trace, 3, 2, t, 4000, 5000, 70000, ri) + 500;
      TraceMemcpy c;
      c.kind = MemcpyKind::dtod;
      c.start_ns = t, c.end_ns = t + 30000, c.bytes = 64u << 20;
      trace.memcpys.push_back(c);
      t += 30500;
    }
    r.end_ns = t;
    trace.nvtx.push_back(r);
    t += 1000000;
  }
  auto analysed = [&](double dram_pct) {
    ProfileRun run = one_stage_run("heat", "k", 70000, dram_pct);
    auto& m = run.stages[0].kernels[0].metrics;
    m.sm_throughput_pct = 30;
    m.stalls = {{"long_scoreboard", 12.0}, {"wait", 0.5}, {"selected", 1.0}};
    run.stages[0].kernels[0].duration_ns.count = 10;
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run;
  };
  ProfileRun waits = analysed(42);
  ASSERT_TRUE(waits.stages[0].kernels[0].analysis);
  EXPECT_EQ(waits.stages[0].kernels[0].analysis->bottleneck.cause, "memory_latency");
  ASSERT_TRUE(waits.stages[0].bound);
  EXPECT_EQ(waits.stages[0].bound->cause, "memory_bound");
  EXPECT_NE(waits.stages[0].bound->key_issue.find("device copies"), std::string::npos) << waits.stages[0].bound->key_issue;
  ProfileRun roof = analysed(92);
  EXPECT_EQ(roof.stages[0].kernels[0].analysis->bottleneck.cause, "dram_bandwidth");
  EXPECT_FALSE(roof.stages[0].bound) << roof.stages[0].bound->key_issue;
}

// Set 24's relaxation loop: per step a kernel, then a cudaStreamQuery told "not ready" (600) while it runs, a sleep
// and a second query on the same thread told "done" (0), then the next step's launch: the GPU idles from its finish to
// the second query. That is the polling's latency (spin_wait: wait on an event instead), not the host's work nor a
// launch gap. Queries that find the work done (PyTorch's caching allocator checking its events) or a second query on
// another thread poll nothing; the same gaps with no queries are the host's silent time, its work.
TEST(Advice, AHostPollingWithSleepsIsToldToStopPolling) {
  struct Loop {
    bool queries = true;
    std::int32_t first_rv = 600;
    std::uint32_t second_thread = 1;
    std::int64_t first_at = 12000;  // after the launch: the kernel runs from +6 us to +506 us
    std::int64_t sleep_to = 1400000;  // the stretch to the next kernel (910 us) stays under the 1 ms host-work gap
    int steps = 4;
  };
  auto loop = [](const Loop& l) {
    Trace trace;
    trace.strings = {"", "relax", "k", "cudaLaunchKernel", "cudaStreamQuery"};
    trace.info.api_traced = trace.info.nvtx_traced = true;
    std::int64_t t = 0;
    for (int rep = 0; rep < 3; ++rep) {
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      for (int step = 0; step < l.steps; ++step) {
        launch(trace, 3, 2, t, 5000, 6000, 500000, ri);
        trace.api_calls.back().thread = 1;
        if (l.queries) {
          TraceApiCall q;
          q.name = 4;
          q.thread = 1;
          q.return_value = l.first_rv;
          q.start_ns = t + l.first_at, q.end_ns = t + l.first_at + 3000;
          trace.api_calls.push_back(q);
          q.thread = l.second_thread;
          q.return_value = 0;
          q.start_ns = t + l.sleep_to, q.end_ns = t + l.sleep_to + 3000;
          trace.api_calls.push_back(q);
        }
        t += l.sleep_to + 10000;
      }
      r.end_ns = t;
      trace.nvtx.push_back(r);
      t += 2000000;
    }
    std::sort(trace.api_calls.begin(), trace.api_calls.end(),
              [](const TraceApiCall& a, const TraceApiCall& b) { return a.start_ns < b.start_ns; });
    return trace;
  };
  auto analysed = [](const Trace& trace) {
    ProfileRun run = one_stage_run("relax", "k", 500000, 42);
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run;
  };
  auto by = [](const ProfileRun& run, const std::string& remedy) {
    const Opportunity* found = nullptr;
    for (const auto& o : run.program_opportunities)
      if (o.remedy == remedy) found = &o;
    return found;
  };
  ProfileRun polls = analysed(loop({}));
  const Opportunity* stop = by(polls, "spin_wait");
  ASSERT_NE(stop, nullptr);
  EXPECT_EQ(stop->trigger_metric, "poll_wait_ns");
  EXPECT_NEAR(stop->est_gain_pct, (1400.0 - 506.0) / 1410.0 * 100.0, 3.0);  // idle from each finish to the query
  EXPECT_EQ(by(polls, "host_work"), nullptr);
  EXPECT_EQ(by(polls, "launch_overhead"), nullptr);
  ASSERT_TRUE(polls.stages[0].range);
  // (Over the GPU span, first kernel to last: the last step's wait lies after it.)
  EXPECT_NEAR(polls.stages[0].range->poll_wait_ns, 3 * (1400000.0 - 506000.0), 20000.0);
  EXPECT_LT(polls.stages[0].range->launch_gaps_ns, 100000.0);
  ASSERT_TRUE(polls.stages[0].bound);  // the GPU idles over half of each range
  EXPECT_NE(polls.stages[0].bound->key_issue.find("host polling"), std::string::npos) << polls.stages[0].bound->key_issue;
  // A 2.5 ms sleep: the idle stretches are long enough to read as the host's work; still the polling's.
  Loop slow;
  slow.sleep_to = 2500000;
  ProfileRun slept = analysed(loop(slow));
  ASSERT_NE(by(slept, "spin_wait"), nullptr);
  EXPECT_EQ(by(slept, "host_work"), nullptr);
  EXPECT_LT(slept.stages[0].range->host_work_ns, 100000.0);
  // Many steps (the program's launch-gap item reads them too): the polling's gaps are not launch gaps there either.
  Loop many;
  many.steps = 20;
  ProfileRun long_run = analysed(loop(many));
  EXPECT_NE(by(long_run, "spin_wait"), nullptr);
  double total = 0;
  for (const auto& o : long_run.program_opportunities) total += o.run_gain_pct;
  EXPECT_LE(total, 100.0);
  EXPECT_EQ(by(long_run, "launch_overhead"), nullptr);
  // Nothing polled: no queries; a first query that found the work done; the second on another thread.
  Loop none;
  none.queries = false;
  ProfileRun sleeps = analysed(loop(none));
  EXPECT_EQ(by(sleeps, "spin_wait"), nullptr);
  // The host sleeping with no CUDA call (0.9 ms before each launch) works on its own: not a launch gap, which a
  // graph would remove (AHostSilentForHundredsOfMicrosecondsBetweenLaunchesWorks).
  EXPECT_NE(by(sleeps, "host_work"), nullptr);
  EXPECT_EQ(by(sleeps, "launch_overhead"), nullptr);
  EXPECT_FALSE(sleeps.stages[0].bound && sleeps.stages[0].bound->key_issue.find("polling") != std::string::npos);
  Loop done;
  done.first_rv = 0;
  EXPECT_EQ(by(analysed(loop(done)), "spin_wait"), nullptr);
  Loop other;
  other.second_thread = 2;
  EXPECT_EQ(by(analysed(loop(other)), "spin_wait"), nullptr);
  // A shorter sleep (0.4 ms) polls all the same, for a shorter wait.
  Loop brief;
  brief.sleep_to = 900000;
  const Opportunity* shorter = by(analysed(loop(brief)), "spin_wait");
  ASSERT_NE(shorter, nullptr);
  EXPECT_NEAR(shorter->est_gain_pct, (900.0 - 506.0) / 910.0 * 100.0, 3.0);
}

// A fence per element in a kernel streaming near the DRAM roof (set 28's publish_agents on the H100: DRAM 89% of the
// measured roof, membar 51% of the waiting): the fences are the cause, worth the room left to the roof; at the roof
// they are worth too little to name the kernel.
TEST(Advice, FenceWaitsNearTheDramRoofAreWorthTheRoomLeftToIt) {
  CanonicalMetrics m;
  m.duration_ns = 1.06e5;
  m.sm_throughput_pct = 5.9;
  m.memory_throughput_pct = 81.7;
  m.dram_throughput_pct = 81.7;
  m.l1_throughput_pct = 23.9;
  m.l2_throughput_pct = 55.1;
  m.issue_active_pct = 4.8;
  m.fma_pipe_pct = 4.5;
  m.grid_size = 1056;
  m.block_size = 256;
  m.waves_per_sm = 1;
  m.achieved_occupancy_pct = 97;
  m.theoretical_occupancy_pct = 100;
  m.global_load_requests = 524288;
  m.global_load_sectors = 8388608;
  m.global_store_requests = 524288;
  m.global_store_sectors = 5242880;
  m.stalls = {{"membar", 162.2}, {"long_scoreboard", 149.2}, {"wait", 4.3}, {"lg_throttle", 0.9},
              {"mio_throttle", 0.8}, {"no_instruction", 0.7}, {"dispatch_stall", 0.6}, {"barrier", 0},
              {"sleeping", 0}, {"not_selected", 1.05}, {"selected", 1.0}};
  const KernelAnalysis a = analyse(m, "publish_agents");
  EXPECT_EQ(a.bottleneck.cause, "memory_fence");
  ASSERT_FALSE(a.opportunities.empty());
  EXPECT_EQ(a.opportunities.front().remedy, "fences");
  // Worth the membar share of the waiting times the room left to the roof: 51% of 18%.
  EXPECT_NEAR(a.opportunities.front().est_gain_pct, 162.2 / 320.8 * (100.0 - 81.7), 1.0);
  // At the roof the room left is too small for the fences to name the kernel: DRAM does.
  CanonicalMetrics roof = m;
  roof.dram_throughput_pct = 96;
  roof.memory_throughput_pct = 96;
  const KernelAnalysis r = analyse(roof, "publish_agents");
  EXPECT_EQ(r.bottleneck.cause, "dram_bandwidth");
  // Below the roof the room is the same distance to it, not to saturation: a fence holds each warp's next access
  // wherever the unit stands, and the estimate does not jump at the saturation line (set 35's seq_cst atomics: L2 74%
  // busy, membar 49% of the waiting; 1 - 74/80 made it 3%, against 12.5% a point above the line).
  CanonicalMetrics below = m;
  below.dram_throughput_pct = 74.4;
  below.memory_throughput_pct = 74.4;
  const KernelAnalysis b = analyse(below, "publish_agents");
  EXPECT_EQ(b.bottleneck.cause, "memory_fence");
  ASSERT_FALSE(b.opportunities.empty());
  EXPECT_NEAR(b.opportunities.front().est_gain_pct, 162.2 / 320.8 * (100.0 - 74.4), 1.0);
}

// Pageable copies up and back, each followed by its kernel on one stream, the copies longer than the kernels (set 45's
// CSV batches, set 33's ocean frames): overlapping them takes pinned, asynchronous copies, which also run at the host
// link's rate; the overlap item counts both and leads the pinned-copies item. Where the copies are the shorter, the
// overlap hides them whole and pinning adds nothing to it.
TEST(Advice, PageableCopiesLongerThanTheKernelsAreOverlappedFromPinnedMemory) {
  // `head_ns`: the range begins while the GPU still runs earlier work (another step's kernel, outside the range) for
  // that long before its first copy.
  auto pipeline = [](std::int64_t kernel_ns, std::int64_t head_ns = 0) {
    Trace trace;
    trace.strings = {"", "batches", "parse", "earlier"};
    std::int64_t t = 0;
    for (int rep = 0; rep < 2; ++rep) {
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      if (head_ns > 0) {
        TraceKernel e;
        e.name = e.function = 3;
        e.start_ns = t - 1000;
        e.end_ns = t + head_ns;
        trace.kernels.push_back(e);
        t += head_ns;
      }
      for (int i = 0; i < 8; ++i) {
        TraceMemcpy c;
        c.kind = i % 2 ? MemcpyKind::dtoh : MemcpyKind::htod;
        c.pageable = true;
        c.bytes = 16000000;  // 16 GB/s
        c.start_ns = t;
        c.end_ns = t + 1000000;
        trace.memcpys.push_back(c);
        TraceKernel k;
        k.name = k.function = 2;
        k.start_ns = c.end_ns;
        k.end_ns = k.start_ns + kernel_ns;
        k.nvtx_range = ri;
        trace.kernels.push_back(k);
        TraceApiCall a;
        a.name = 2;
        a.start_ns = c.end_ns;
        a.end_ns = c.end_ns + 3000;
        trace.api_calls.push_back(a);
        t = k.end_ns;
      }
      r.end_ns = t;
      trace.nvtx.push_back(r);
      t += 100000;
    }
    return trace;
  };
  const double pinned = shipped().param("opportunities.pinned_copy_gbps");
  auto items = [&](std::int64_t kernel_ns, std::int64_t head_ns = 0) {
    const Trace trace = pipeline(kernel_ns, head_ns);
    return range_advice(one_stage_run("batches", "parse", static_cast<double>(kernel_ns), 2), trace,
                        static_cast<double>(trace.nvtx.back().end_ns), shipped());
  };
  auto by_metric = [](const std::vector<Opportunity>& ops, const std::string& metric) -> const Opportunity* {
    for (const auto& o : ops)
      if (o.trigger_metric == metric) return &o;
    return nullptr;
  };
  // Copies 8 ms and kernels 4.8 ms of each 12.8 ms range: overlapped, the kernels' 4.8 ms hide; pinned, the copies
  // take 16/45 of their time, at least the kernels' 4.8 ms: 3.2 ms more.
  const auto longer = items(600000);
  const Opportunity* overlap = by_metric(longer, "serial_copy_ns");
  const Opportunity* pin = by_metric(longer, "pageable_copy_ns");
  ASSERT_NE(overlap, nullptr);
  ASSERT_NE(pin, nullptr);
  EXPECT_EQ(overlap->remedy, "overlap_stages");
  EXPECT_NEAR(overlap->est_gain_pct, (4.8 + 3.2) / 12.8 * 100.0, 1.0);
  EXPECT_NEAR(pin->est_gain_pct, 8.0 / 12.8 * (1.0 - 16.0 / pinned) * 100.0, 1.0);
  EXPECT_GT(overlap->est_gain_pct, pin->est_gain_pct);
  EXPECT_NE(overlap->rationale.find("pageable"), std::string::npos) << overlap->rationale;
  // Kernels of 1.2 ms (9.6 ms a range against 8 ms of copies): the copies are the shorter and hide whole.
  const auto shorter = items(1200000);
  const Opportunity* hidden = by_metric(shorter, "serial_copy_ns");
  ASSERT_NE(hidden, nullptr);
  EXPECT_NEAR(hidden->est_gain_pct, 8.0 / 17.6 * 100.0, 1.0);
  EXPECT_EQ(hidden->rationale.find("pageable"), std::string::npos) << hidden->rationale;
  // Each range entered while the GPU still runs 10 ms of earlier work (set 36's loader: its first pageable copy call
  // waits 13 ms for the previous case's kernels): that time is not the range's, and the shares stay those of its own
  // 12.8 ms.
  const auto behind = items(600000, 10000000);
  const Opportunity* same = by_metric(behind, "serial_copy_ns");
  ASSERT_NE(same, nullptr);
  EXPECT_NEAR(same->est_gain_pct, (4.8 + 3.2) / 12.8 * 100.0, 1.0);
}

// One range of a GEMM and the bias and GELU kernels it leaves unfused (set 41's MLP, set 46's Canny chain): the
// DRAM-bound kernels together outlast the GEMM, so the range is DRAM-bound as a whole (its own row in the contract,
// and the run's heading); the GEMM's row keeps its own cause. Where the GEMM outlasts them, nothing is added.
TEST(Advice, ARangeWhoseKernelTimeRunsMostlyUnderAnotherCauseThanItsLongestKernelsIsBoundByIt) {
  auto make_run = [](double gemm_ns) {
    ProfileRun run;
    run.device.name = "NVIDIA H200";
    Stage s;
    s.name = "mlp_fc";
    s.kernels.push_back(stage_group("nvjet_sm90_tst_gemm", gemm_ns, 2e8, 6e8, 30));
    s.kernels.back().metrics.tensor_pipe_pct = 78;
    s.kernels.back().metrics.flops_tensor = 4.6e11;
    s.kernels.push_back(stage_group("add_bias_bf16", 400e3, 6e8, 6e8, 88));
    s.kernels.push_back(stage_group("gelu_bf16", 400e3, 6e8, 6e8, 88));
    RangeTime r;
    r.instances = 2;
    r.span_ns = gemm_ns + 800e3;
    s.range = r;
    run.stages.push_back(s);
    analyze_run(run, datasheet_db(), shipped());
    return run;
  };
  const ProfileRun chain = make_run(650e3);
  const Stage& st = chain.stages[0];
  ASSERT_TRUE(st.kernels[0].analysis.has_value());
  EXPECT_EQ(st.kernels[0].analysis->bottleneck.cause, "tensor_pipe");
  ASSERT_TRUE(st.time_bound.has_value());
  EXPECT_FALSE(st.bound.has_value());
  EXPECT_EQ(st.time_bound->cause, "dram_bandwidth");
  EXPECT_NE(st.time_bound->key_issue.find("2 kernels"), std::string::npos) << st.time_bound->key_issue;
  ASSERT_TRUE(chain.overall.has_value());
  EXPECT_EQ(chain.overall->cause, "dram_bandwidth");
  const auto view = render::build_contract_view(chain, nullptr);
  bool range_row = false;
  for (const auto& row : view.stages) range_row = range_row || (row.scope == "range" && row.bottleneck == "memory");
  EXPECT_TRUE(range_row);
  // The GEMM outlasts the two (0.9 ms against 0.8 ms): the range is its longest kernel's.
  const ProfileRun gemm = make_run(900e3);
  EXPECT_FALSE(gemm.stages[0].time_bound.has_value());
  ASSERT_TRUE(gemm.overall.has_value());
  EXPECT_EQ(gemm.overall->cause, "tensor_pipe");
}

// A two-kernel chain whose fusion leads its range, both kernels on the memory side (set 30's Euler step: the
// right-hand side waiting on memory at 48% of the DRAM roof, the update at 96% moving most of the pair's bytes): the
// range is DRAM-bound, whatever its longest kernel reads. None of the chain at the roof (set 45's decode-filter-sum):
// memory-bound. Most of the bytes below the roof, or a kernel bound elsewhere, or no fusion leading: no chain bound.
TEST(Advice, AFusedChainOfMemoryBoundKernelsBindsItsRangeByWhereItsBytesMove) {
  auto kernel = [](const std::string& name, double ns, double bytes, const char* cause, double first_gain) {
    return analysed_group(stage_group(name, ns, bytes / 2, bytes / 2, 50), cause, first_gain);
  };
  auto stage = [&](const char* rhs_cause, const char* update_cause, double update_bytes) {
    Stage s;
    s.name = "euler_step";
    s.kernels.push_back(kernel("rd_rhs", 130e3, 0.25e9, rhs_cause, 5));
    s.kernels.push_back(kernel("rd_update", 92e3, update_bytes, update_cause, 1));
    return s;
  };
  Opportunity fuse;
  fuse.remedy = "fuse_stages";
  fuse.scope = "pipeline";
  fuse.kernels = {"euler_step · rd_rhs", "euler_step · rd_update"};
  fuse.run_gain_pct = 8;
  const std::vector<Opportunity> program = {fuse};
  auto bound = chain_bound(stage("memory_latency", "dram_bandwidth", 0.38e9), program);
  ASSERT_TRUE(bound.has_value());
  EXPECT_EQ(bound->cause, "dram_bandwidth");
  EXPECT_NE(bound->root_cause.find("at the DRAM roof in rd_update"), std::string::npos) << bound->root_cause;
  bound = chain_bound(stage("memory_latency", "memory_latency", 0.38e9), program);
  ASSERT_TRUE(bound.has_value());
  EXPECT_EQ(bound->cause, "memory_bound");
  // Most of the bytes in the kernel below the roof: the kernels' own causes stand.
  EXPECT_FALSE(chain_bound(stage("memory_latency", "dram_bandwidth", 0.2e9), program).has_value());
  // A kernel bound in the SM: not a memory chain.
  EXPECT_FALSE(chain_bound(stage("compute_bound", "dram_bandwidth", 0.38e9), program).has_value());
  // A kernel's own first item worth more of the run than the fusion: the fusion does not lead.
  std::vector<Opportunity> small = program;
  small[0].run_gain_pct = 2;
  EXPECT_FALSE(chain_bound(stage("memory_latency", "dram_bandwidth", 0.38e9), small).has_value());
}

// Set 32's top-p sampling: a radix sort's pass (the longest kernel, waiting on latency) beside a scan and a softmax
// over one 64-block row each. Filling the GPU in those two saves more of the run than any kernel's own first item:
// the range is bound by its grid.
TEST(Advice, AStageWhoseLeadingItemFillsTheGpuInSeveralKernelsIsBoundByItsGrid) {
  auto kernel = [](const std::string& name, double ns, const char* cause, double first_gain) {
    return analysed_group(stage_group(name, ns, 1e7, 1e7, 20), cause, first_gain);
  };
  Stage s;
  s.name = "top_p";
  s.kernels.push_back(kernel("onesweep", 400e3, "latency", 6));
  s.kernels.push_back(kernel("scan_innermost", 210e3, "grid_too_small", 5));
  s.kernels.push_back(kernel("softmax_forward", 130e3, "grid_too_small", 3));
  Opportunity fill;
  fill.remedy = "grid_fill";
  fill.scope = "stage";
  fill.kernels = {"top_p · scan_innermost", "top_p · softmax_forward"};
  fill.trigger_value = 64;
  fill.run_gain_pct = 9;
  auto bound = shape_bound(s, {fill});
  ASSERT_TRUE(bound.has_value());
  EXPECT_EQ(bound->cause, "grid_too_small");
  EXPECT_NE(bound->root_cause.find("onesweep"), std::string::npos) << bound->root_cause;
  // A kernel's own first item worth more of the run: the grid does not lead.
  fill.run_gain_pct = 5;
  EXPECT_FALSE(shape_bound(s, {fill}).has_value());
  // One kernel named: no stage of several kernels to speak for.
  fill.run_gain_pct = 9;
  fill.kernels = {"top_p · scan_innermost"};
  EXPECT_FALSE(shape_bound(s, {fill}).has_value());
}

// 128 blocks of four warps for 132 SMs at 0.12 waves, warps waiting on memory (set 47's paged-attention decode): the
// SMs that have a block idle most of their block slots too, so more blocks gain far more than the 4 idle SMs' 3%. A
// kernel of a few microseconds gains at most down to a launch's own time (tiny_kernel_us).
TEST(Advice, AGridUnderOneWaveThatLeavesSmsIdleAlsoCountsTheIdleSlotsOfTheBusyOnes) {
  CanonicalMetrics m;
  m.duration_ns = 3.0e6;
  m.sm_throughput_pct = 10.8;
  m.memory_throughput_pct = 9.3;
  m.dram_throughput_pct = 9.3;
  m.l1_throughput_pct = 8;
  m.l2_throughput_pct = 9;
  m.issue_active_pct = 4;
  m.fma_pipe_pct = 3;
  m.grid_size = 128;
  m.block_size = 128;
  m.waves_per_sm = 0.12;
  m.achieved_occupancy_pct = 6.2;
  m.theoretical_occupancy_pct = 50;
  m.stalls = {{"long_scoreboard", 60.0}, {"wait", 8.0}, {"short_scoreboard", 5.0}, {"barrier", 0.0},
              {"membar", 0.0}, {"sleeping", 0.0}, {"lg_throttle", 1.0}, {"mio_throttle", 1.0},
              {"not_selected", 0.3}, {"selected", 1.0}};
  const KernelAnalysis a = analyse(m, "paged_attention_decode");
  EXPECT_EQ(a.bottleneck.cause, "grid_too_small");
  ASSERT_FALSE(a.opportunities.empty());
  EXPECT_EQ(a.opportunities.front().remedy, "grid_fill");
  // (1 - 0.12 waves) x (1 - the active SMs' 10.8% x 132/128).
  EXPECT_NEAR(a.opportunities.front().est_gain_pct, (1.0 - 0.12) * (1.0 - 10.8 * 132.0 / 128.0 / 100.0) * 100.0, 1.0);
  // The same grid in an 8-us kernel: at most down to a launch's 5 us.
  CanonicalMetrics tiny = m;
  tiny.duration_ns = 8000;
  const KernelAnalysis t = analyse(tiny, "paged_attention_decode");
  const Opportunity* fill = by_remedy(t.opportunities, "grid_fill");
  ASSERT_NE(fill, nullptr);
  EXPECT_LE(fill->est_gain_pct, (1.0 - 5.0 / 8.0) * 100.0 + 0.5);
}

// One 2-byte element per thread behind 64-bit index divisions (set 47's KV-cache append, set 7's 5-D permute): the
// index arithmetic is paid per element, and 16 bytes a lane cut it, worth the instructions that go, down to DRAM's
// time; a kernel whose integer work writes little (a hash over its input) is not told so.
TEST(Advice, IndexArithmeticAroundNarrowAccessesIsNamedOnTheIntegerPipesItem) {
  CanonicalMetrics m;
  m.duration_ns = 9.2e5;
  m.sm_throughput_pct = 79;
  m.memory_throughput_pct = 17;
  m.dram_throughput_pct = 17;
  m.l1_throughput_pct = 9;
  m.l2_throughput_pct = 11;
  m.issue_active_pct = 79;
  m.fma_pipe_pct = 67;
  m.fma_integer_share = 1.0;
  m.alu_pipe_pct = 46;
  m.grid_size = 524288;
  m.block_size = 256;
  m.waves_per_sm = 496;
  m.achieved_occupancy_pct = 90;
  m.theoretical_occupancy_pct = 100;
  m.global_load_requests = 8388608;
  m.global_load_sectors = 12582912;
  m.global_store_requests = 4194304;
  m.global_store_sectors = 8388074;
  m.global_load_bytes_per_sector = 24;
  const KernelAnalysis a = analyse(m, "reshape_and_cache_flat");
  EXPECT_EQ(a.bottleneck.cause, "int_pipe");
  ASSERT_FALSE(a.opportunities.empty());
  const Opportunity& item = a.opportunities.front();
  EXPECT_EQ(item.remedy, "wider_accesses");
  EXPECT_NE(item.rationale.find("16 bytes a lane"), std::string::npos) << item.rationale;
  // 1.7 bytes a lane: a 16-byte lane does a ninth of the instructions, under DRAM's 17%: about 83% (timed: 79.2%).
  const double per_lane = (12582912.0 + 8388074.0) / (8388608.0 + 4194304.0);
  EXPECT_NEAR(item.est_gain_pct, (1.0 - std::max(per_lane / 16.0, 0.17)) * 100.0, 1.5);
  // A kernel whose integer work writes little (a hash over its input) keeps the pipe's own item.
  CanonicalMetrics hash = m;
  hash.global_store_sectors = 1e5;
  const KernelAnalysis h = analyse(hash, "sha_like");
  EXPECT_EQ(by_remedy(h.opportunities, "wider_accesses"), nullptr);
  EXPECT_NE(by_remedy(h.opportunities, "pipe_throughput"), nullptr);
  // Nor one that loads nothing and stores a word a thread (runtime divisions are its work).
  CanonicalMetrics divs = m;
  divs.global_load_requests = 0;
  divs.global_load_sectors = 0;
  divs.global_store_requests = 8448;
  divs.global_store_sectors = 33792;
  divs.dram_throughput_pct = 0.1;
  divs.memory_throughput_pct = 0.1;
  EXPECT_EQ(by_remedy(analyse(divs, "int_div").opportunities, "wider_accesses"), nullptr);
}

// Uploads from pageable host memory: each cudaMemcpy call stages its bytes through a pinned buffer, the GPU idle
// between the DMA pieces while the host copies the next (set 48's GPS traces: 6.8 ms of DMA and 5.7 ms of the GPU
// idle inside the calls, of a 13.3 ms range). That time is the copies', so the range is bound by its host-device
// copies, not by the host waiting; the same calls from pinned memory (no staging) leave the idle time a wait.
TEST(Advice, PageableCopiesStagingTimeIsTheCopiesNotTheHostWaiting) {
  auto make = [](bool pageable) {
    Trace trace;
    trace.strings = {"", "gps_batches", "trace_lengths", "cudaMemcpy", "cudaLaunchKernel"};
    std::int64_t t = 0;
    for (int rep = 0; rep < 2; ++rep) {
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      for (int b = 0; b < 6; ++b) {
        TraceApiCall call;  // 1 ms in the call: 0.45 ms staging, then 0.55 ms of DMA
        call.name = 3;
        call.start_ns = t;
        call.end_ns = t + 1000000;
        trace.api_calls.push_back(call);
        TraceMemcpy c;
        c.kind = MemcpyKind::htod;
        c.pageable = pageable;
        c.bytes = 8u << 20;
        c.start_ns = t + 450000;
        c.end_ns = t + 1000000;
        trace.memcpys.push_back(c);
        TraceApiCall launch;
        launch.name = 4;
        launch.start_ns = t + 1000000;
        launch.end_ns = t + 1003000;
        trace.api_calls.push_back(launch);
        TraceKernel k;
        k.name = k.function = 2;
        k.start_ns = t + 1005000;
        k.end_ns = k.start_ns + 40000;
        k.nvtx_range = ri;
        trace.kernels.push_back(k);
        t = k.end_ns;
      }
      r.end_ns = t;
      trace.nvtx.push_back(r);
      t += 100000;
    }
    ProfileRun run = one_stage_run("gps_batches", "trace_lengths", 40000, 10);
    run.stages[0].kernels[0].duration_ns.count = 12;
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run;
  };
  const ProfileRun paged = make(true);
  ASSERT_TRUE(paged.stages[0].range);
  ASSERT_TRUE(paged.stages[0].bound);
  EXPECT_EQ(paged.stages[0].bound->cause, "host_link");
  EXPECT_GT(paged.stages[0].range->link_copy_ns, 0.9 * paged.stages[0].range->span_ns);
  EXPECT_LT(paged.stages[0].range->host_blocked_ns, 0.05 * paged.stages[0].range->span_ns);
  // From pinned memory the GPU's idle time in the calls stays the host's wait, not the copies' time.
  const ProfileRun pinned = make(false);
  ASSERT_TRUE(pinned.stages[0].range);
  EXPECT_GT(pinned.stages[0].range->host_blocked_ns, 0.3 * pinned.stages[0].range->span_ns);
  EXPECT_LT(pinned.stages[0].range->link_copy_ns, 0.6 * pinned.stages[0].range->span_ns);
}

// Uploads of a few hundred KiB from pageable tensors, each followed by a synchronisation (set 51's Criteo columns):
// the driver stages each whole in the cudaMemcpyAsync call (50 us, the GPU idle) and its DMA (8 us) starts as the
// call returns, so only the copy's correlation id ties the call's time to it. That time is the copy's: with the
// host's 25 us between copies, the copies take more of the range than its idle time, and bind it (host_link). A call
// during which the GPU runs a kernel waited for that kernel (cudaMemcpyToSymbol after each step, set 30): a wait, not
// staging.
TEST(Advice, StagedPageableUploadsAfterTheirCallsAreTheCopiesTime) {
  enum Kind { staged, uncorrelated, behind_kernel };
  auto make = [](Kind kind) {
    Trace trace;
    trace.strings = {"", "columns_to_device", "k", "cudaMemcpyAsync", "cudaStreamSynchronize", "cudaLaunchKernel"};
    trace.info.api_traced = trace.info.nvtx_traced = true;
    std::int64_t t = 0;
    std::uint32_t corr = 1;
    // A launch call at t of a kernel that runs ns, starting 4 us later, in range ri.
    auto launch = [&](std::int64_t ns, int ri) {
      TraceApiCall call;
      call.name = 5, call.start_ns = t, call.end_ns = t + 3000, call.correlation = corr;
      trace.api_calls.push_back(call);
      TraceKernel k;
      k.name = k.function = 2, k.start_ns = t + 4000, k.end_ns = t + 4000 + ns, k.correlation = corr++;
      k.nvtx_range = ri;
      trace.kernels.push_back(k);
      return k.end_ns;
    };
    for (int rep = 0; rep < 2; ++rep) {
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      for (int c = 0; c < 20; ++c) {
        if (kind == behind_kernel) {  // a step's kernel, then the copy call that waits for it
          launch(40000, ri);
          t += 5000;
        }
        TraceApiCall call;
        call.name = 3, call.start_ns = t, call.end_ns = t + 50000, call.correlation = corr;
        trace.api_calls.push_back(call);
        TraceMemcpy m;
        m.kind = MemcpyKind::htod, m.pageable = true, m.bytes = 256u << 10;
        m.correlation = kind == uncorrelated ? 0 : corr;
        ++corr;
        m.start_ns = t + 50500;
        m.end_ns = t + 58500;
        trace.memcpys.push_back(m);
        TraceApiCall sync;
        sync.name = 4, sync.start_ns = t + 50500, sync.end_ns = t + 62000, sync.correlation = corr++;
        trace.api_calls.push_back(sync);
        t += 62000 + 25000;  // the host's Python between columns
      }
      t = launch(10000, ri);
      r.end_ns = t;
      trace.nvtx.push_back(r);
      t += 100000;
    }
    ProfileRun run = one_stage_run("columns_to_device", "k", 10000, 10);
    run.stages[0].kernels[0].duration_ns.count = kind == behind_kernel ? 42 : 2;
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run;
  };
  const ProfileRun run = make(staged);
  ASSERT_TRUE(run.stages[0].range);
  const RangeTime& r = *run.stages[0].range;
  EXPECT_GT(r.link_copy_ns, 0.6 * r.span_ns);
  EXPECT_LT(r.host_blocked_ns, 0.05 * r.span_ns);
  ASSERT_TRUE(run.stages[0].bound);
  EXPECT_EQ(run.stages[0].bound->cause, "host_link") << run.stages[0].bound->key_issue;
  // Without the correlation ids, the calls end before their copies begin: the time is the host's.
  const ProfileRun apart = make(uncorrelated);
  ASSERT_TRUE(apart.stages[0].range);
  EXPECT_LT(apart.stages[0].range->link_copy_ns, 0.2 * apart.stages[0].range->span_ns);
  // A call while the GPU runs the step's kernel is a wait for it.
  const ProfileRun waits = make(behind_kernel);
  ASSERT_TRUE(waits.stages[0].range);
  EXPECT_LT(waits.stages[0].range->link_copy_ns, 0.2 * waits.stages[0].range->span_ns);
  // The staged range's idle time (the host's Python between columns) alone outweighs what its kernel could save: the
  // copies, longer, bind it first.
  EXPECT_GT(r.idle_ns, 0.2 * r.span_ns);
  EXPECT_GT(r.link_copy_ns, r.idle_ns);
  // The pageable copies' item counts each copy's call with its DMA: 58 of every 87 us, at the pageable rate.
  const Opportunity* paged = nullptr;
  for (const auto& o : run.program_opportunities)
    if (o.trigger.find("pageable_") != std::string::npos) paged = &o;
  ASSERT_NE(paged, nullptr);
  EXPECT_NE(paged->trigger.find("at 4.5 GB/s"), std::string::npos) << paged->trigger;
}

// A loss of 30 small ops (2-us kernels), each issued by the host in 17 us (a 5-us launch call and 12 us of the
// framework's dispatch), called twice, each time right after a 2-ms kernel of another range: its kernels queue behind
// that one and run back to back, so its GPU span shows no gaps. Run on its own the call is host-paced (set 32's Dice
// loss and detection-head decode): the host's issuing beyond the GPU's span is launch gaps, and a graph removes them.
// Kernels of 8 us (over tiny_kernel_us), issued as slowly, are the host's other work hidden behind the queue: no gaps.
TEST(Advice, AQueuedRangeOfShortKernelsIssuedSlowerThanTheyRunIsLaunchBound) {
  auto make = [](std::int64_t kernel_ns) {
    Trace trace;
    trace.strings = {"", "dice_loss", "k_small", "cudaLaunchKernel", "prologue", "k_big"};
    trace.info.api_traced = trace.info.nvtx_traced = true;
    std::int64_t t = 0;
    std::uint32_t corr = 1;
    auto launch = [&](std::int64_t at, StringId fn, std::int64_t start, std::int64_t ns, int range) {
      TraceApiCall call;
      call.name = 3;
      call.start_ns = at;
      call.end_ns = at + 5000;
      call.correlation = corr;
      trace.api_calls.push_back(call);
      TraceKernel k;
      k.name = k.function = fn;
      k.start_ns = start;
      k.end_ns = start + ns;
      k.correlation = corr++;
      k.nvtx_range = range;
      trace.kernels.push_back(k);
      return k.end_ns;
    };
    for (int rep = 0; rep < 2; ++rep) {
      TraceNvtxRange pro;
      pro.name = 4;
      pro.start_ns = t;
      pro.end_ns = t + 10000;
      trace.nvtx.push_back(pro);
      std::int64_t gpu = launch(t, 5, t + 6000, 2000000, static_cast<int>(trace.nvtx.size()) - 1);
      t += 10000;
      TraceNvtxRange r;
      r.name = 1;
      r.start_ns = t;
      const int ri = static_cast<int>(trace.nvtx.size());
      trace.nvtx.push_back(r);
      for (int i = 0; i < 30; ++i, t += 17000) gpu = launch(t, 2, gpu + 1000, kernel_ns, ri);
      trace.nvtx[ri].end_ns = t;
      t = gpu + 50000;
    }
    std::sort(trace.api_calls.begin(), trace.api_calls.end(),
              [](const TraceApiCall& a, const TraceApiCall& b) { return a.start_ns < b.start_ns; });
    std::sort(trace.kernels.begin(), trace.kernels.end(),
              [](const TraceKernel& a, const TraceKernel& b) { return a.start_ns < b.start_ns; });
    ProfileRun run = one_stage_run("dice_loss", "k_small", static_cast<double>(kernel_ns), 10);
    run.stages[0].kernels[0].duration_ns.count = 60;
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run;
  };
  const ProfileRun paced = make(2000);
  const Stage& s = paced.stages[0];
  ASSERT_TRUE(s.range);
  // Issued over 30 x 17 us = 510 us; run back to back in 30 x 3 us = 89 us.
  EXPECT_NEAR(s.range->paced_gaps_ns, 510000 - 5000 - 89000, 20000);
  EXPECT_GT(s.range->idle_ns, 0.7 * s.range->span_ns);
  ASSERT_TRUE(s.bound);
  EXPECT_EQ(s.bound->cause, "launch_overhead");
  EXPECT_NE(s.bound->root_cause.find("issues its many short launches slower"), std::string::npos)
      << s.bound->root_cause;
  bool graph = false;
  for (const auto& o : paced.program_opportunities)
    if (o.remedy == "launch_overhead" && o.scope == "stage") {
      graph = true;
      EXPECT_GT(o.est_gain_pct, 70.0) << o.trigger;
      EXPECT_NE(o.rationale.find("queued behind earlier work"), std::string::npos) << o.rationale;
    }
  EXPECT_TRUE(graph);
  const ProfileRun longer = make(8000);
  ASSERT_TRUE(longer.stages[0].range);
  EXPECT_EQ(longer.stages[0].range->paced_gaps_ns, 0.0);
  EXPECT_LT(longer.stages[0].range->idle_ns, 0.2 * longer.stages[0].range->span_ns);
}

// Random 4-byte gathers into a table partly held by L2 (set 32's count-min sketch queries on the H200: 31 sectors per
// load request, L1 hit 0%, L2 hit 60% and 99% busy, 4.85 bytes used a sector, DRAM reading 2.2 GB for the 0.67 GB the
// lanes use): the L2 hits re-read hot entries, not a strided walk's sectors, so the loads are gathers (locality), not
// uncoalesced. A strided walk with the same hits uses about what DRAM reads (0.45-1.04x): uncoalesced.
TEST(Advice, L2HitsOfGathersThatLeaveMostOfWhatDramReadsUnusedAreNotAStridedWalk) {
  CanonicalMetrics m;
  m.duration_ns = 705e3;
  m.sm_throughput_pct = 45;
  m.issue_active_pct = 20;
  m.memory_throughput_pct = 98.8;
  m.dram_throughput_pct = 49.5;
  m.dram_measured_pct = 54.3;
  m.l1_throughput_pct = 40;
  m.l2_throughput_pct = 98.8;
  m.l1_hit_pct = 0.14;
  m.l2_hit_pct = 60;
  m.grid_size = 4096;
  m.waves_per_sm = 4;
  m.achieved_occupancy_pct = 80;
  m.theoretical_occupancy_pct = 100;
  m.global_load_requests = 4456448;
  m.global_load_sectors = 138404126;
  m.global_load_bytes_per_sector = 4.85;
  m.global_store_requests = 262144;
  m.global_store_sectors = 4194304;
  m.global_store_bytes_per_sector = 32;
  m.dram_read_bytes = 2215136512.0;
  m.dram_write_bytes = 134612224.0;
  m.dram_bytes = 2349748736.0;
  const auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "scattered_access");
  ASSERT_FALSE(a.opportunities.empty());
  EXPECT_EQ(a.opportunities.front().remedy, "locality");
  m.dram_read_bytes = 0.9 * 138404126 * 4.85;  // DRAM reads about what the lanes use: a strided walk's sectors
  m.dram_bytes = *m.dram_read_bytes + *m.dram_write_bytes;
  EXPECT_EQ(analyse(m).bottleneck.cause, "uncoalesced_global");
}

// Gathers mixed with coalesced loads (set 40's cuSPARSE CSR product over a permuted torus Laplacian on the H200: 10.2
// sectors a load request on average, 11.7 bytes used a sector, DRAM reading 9.0 GB for the 2.3 GB the lanes use, 1.43x
// the loads' sectors, L1 hit 10%, L2 hit 15%): under the sector count of a gather, the bytes say gathers (locality).
// A strided walk wasting the same share reads each sector once from DRAM: partially coalesced (coalesce).
TEST(Advice, GathersAmongCoalescedLoadsAreScatteredByTheBytesDramReads) {
  CanonicalMetrics m;
  m.duration_ns = 4.11e6;
  m.sm_throughput_pct = 40;
  m.issue_active_pct = 25;
  m.memory_throughput_pct = 66.3;
  m.dram_throughput_pct = 66.3;
  m.dram_measured_pct = 72.7;
  m.l1_throughput_pct = 15.9;
  m.l2_throughput_pct = 52.5;
  m.l1_hit_pct = 9.9;
  m.l2_hit_pct = 15.1;
  m.grid_size = 65536;
  m.waves_per_sm = 15;
  m.achieved_occupancy_pct = 80;
  m.theoretical_occupancy_pct = 100;
  m.global_load_requests = 19169280;
  m.global_load_sectors = 196173208;
  m.global_load_bytes_per_sector = 11.66;
  m.global_store_requests = 2621440;
  m.global_store_sectors = 17040191;
  m.global_store_bytes_per_sector = 7.69;
  m.dram_read_bytes = 9003420928.0;
  m.dram_write_bytes = 135776512.0;
  m.dram_bytes = 9139197440.0;
  const auto a = analyse(m);
  EXPECT_EQ(a.bottleneck.cause, "scattered_access");
  ASSERT_FALSE(a.opportunities.empty());
  EXPECT_EQ(a.opportunities.front().remedy, "locality");
  // The same loads as a sliver of L2's traffic (tiles moving by TMA beside a few scalar loads): not gathers.
  CanonicalMetrics tma = m;
  tma.l2_bytes = 32.0 * 1e12;
  EXPECT_NE(analyse(tma).bottleneck.cause, "scattered_access");
  // The same waste with each sector read once from DRAM (a walk stepping over unused fields): not gathers.
  m.dram_read_bytes = 1.0 * 32.0 * 196173208;
  m.dram_bytes = *m.dram_read_bytes + *m.dram_write_bytes;
  EXPECT_EQ(analyse(m).bottleneck.cause, "uncoalesced_global");
}

// A range called once (ncu mode ran sets 43 and 49's Python programs with one repetition, each case warmed up before
// the ranges): 40 kernels of 2 us, each launched 25 us after the last. One instance cannot tell a first call's set-up
// from the steady state, unless nothing was set up in it: with no module or library loaded inside, its figures stand
// (launch-bound); with CUDA's lazy loading inside (a cuLibraryLoadData call, or CUPTI's overhead record of it), they
// do not.
TEST(Advice, ARangeCalledOnceAfterAWarmUpHasItsFiguresAndAColdOneHasNone) {
  enum class Load { none, driver_call, overhead_record };
  auto make = [](Load load) {
    Trace trace;
    trace.strings = {"", "sgd_step", "k_small", "cudaLaunchKernel", "cuLibraryLoadData"};
    trace.info.api_traced = trace.info.nvtx_traced = true;
    TraceNvtxRange r;
    r.name = 1;
    r.start_ns = 0;
    trace.nvtx.push_back(r);
    std::int64_t t = 1000;
    if (load == Load::driver_call) {
      TraceApiCall call;
      call.name = 4;
      call.start_ns = t;
      call.end_ns = t + 3000;
      trace.api_calls.push_back(call);
    } else if (load == Load::overhead_record) {  // a tracer that kept CUPTI's overhead records, no driver call names
      TraceOverhead o;
      o.kind = 5u << 16;  // CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING
      o.start_ns = t;
      o.end_ns = t + 3000;
      trace.overheads.push_back(o);
    }
    t += 4000;
    for (std::uint32_t i = 1; i <= 40; ++i, t += 25000) {
      TraceApiCall call;
      call.name = 3;
      call.start_ns = t;
      call.end_ns = t + 5000;
      call.correlation = i;
      trace.api_calls.push_back(call);
      TraceKernel k;
      k.name = k.function = 2;
      k.start_ns = t + 7000;
      k.end_ns = k.start_ns + 2000;
      k.correlation = i;
      k.nvtx_range = 0;
      trace.kernels.push_back(k);
    }
    trace.nvtx[0].end_ns = t;
    ProfileRun run = one_stage_run("sgd_step", "k_small", 2000, 5);
    run.stages[0].kernels[0].duration_ns.count = 40;
    analyze_run(run, datasheet_db(), shipped(), &trace, false);
    return run;
  };
  const ProfileRun warm = make(Load::none);
  ASSERT_TRUE(warm.stages[0].range);
  EXPECT_EQ(warm.stages[0].range->instances, 1);
  EXPECT_GT(warm.stages[0].range->idle_ns, 0.8 * warm.stages[0].range->span_ns);
  ASSERT_TRUE(warm.stages[0].bound);
  EXPECT_EQ(warm.stages[0].bound->cause, "launch_overhead");
  for (const Load cold : {Load::driver_call, Load::overhead_record}) {
    const ProfileRun run = make(cold);
    EXPECT_FALSE(run.stages[0].range);
    EXPECT_FALSE(run.stages[0].bound);
  }
}

// A loop of 50 launches of a 1-us kernel whose launch calls take 7 us each, one right after another (the bundled
// streams program's 2000-launch phase): the gaps are the launch calls' own time. A graph issues its nodes without a
// call each (graph_node_ns apiece on the GPU), so it removes them; the call's cost is not left standing (it was: no
// item, "None identified").
TEST(Advice, LaunchGapsAsLongAsTheLaunchCallsAreWhatAGraphRemoves) {
  Trace trace;
  trace.strings = {"", "tiny_loop", "tiny", "cudaLaunchKernel"};
  trace.info.api_traced = trace.info.nvtx_traced = true;
  std::int64_t t = 0;
  std::uint32_t corr = 1;
  for (int rep = 0; rep < 2; ++rep) {
    TraceNvtxRange r;
    r.name = 1;
    r.start_ns = t;
    const int ri = static_cast<int>(trace.nvtx.size());
    trace.nvtx.push_back(r);
    for (int i = 0; i < 50; ++i, ++corr) {
      TraceApiCall call;
      call.name = 3;
      call.start_ns = t;
      call.end_ns = t + 7000;
      call.correlation = corr;
      trace.api_calls.push_back(call);
      TraceKernel k;
      k.name = k.function = 2;
      k.start_ns = t + 6500;
      k.end_ns = k.start_ns + 1000;
      k.correlation = corr;
      k.nvtx_range = ri;
      trace.kernels.push_back(k);
      t += 7000;
    }
    t += 1000;
    trace.nvtx[ri].end_ns = t;
    t += 20000;
  }
  ProfileRun run = one_stage_run("tiny_loop", "tiny", 1000, 1);
  run.stages[0].kernels[0].duration_ns.count = 100;
  analyze_run(run, datasheet_db(), shipped(), &trace, false);
  ASSERT_TRUE(run.stages[0].range);
  bool graph = false;
  for (const auto& o : run.program_opportunities)
    if (o.remedy == "launch_overhead" && o.trigger_metric == "range_gap_ns") {
      graph = true;
      // About 6 us of each 7 us goes: (50 x 6 - 50 x 1) / 351 us.
      EXPECT_NEAR(o.est_gain_pct, (50 * 6.0 - 50 * 1.0) / 351.0 * 100.0, 3.0) << o.trigger;
    }
  EXPECT_TRUE(graph);
}
