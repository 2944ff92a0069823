// CanonicalMetrics of the H200 probe kernels, typed in by hand from tests/fixtures/h200-probe/full_raw.csv
// (row = launch "ID", column named in each comment; ms/Gbyte columns converted to ns/bytes).
// FLOPs: smsp__sass_thread_inst_executed_op_{fadd,fmul,ffma}_pred_on.sum.per_cycle_elapsed x
// sm__cycles_elapsed.avg, with FMA counted twice.
#pragma once
#include "model/canonical_metrics.hpp"

namespace probe {

// ID 5 copy_f4: float4 copy of 1 GiB.
inline kprof::CanonicalMetrics copy_f4() {
  kprof::CanonicalMetrics m;
  m.duration_ns = 536672.0;              // gpu__time_duration.sum 0.536672 ms
  m.sm_throughput_pct = 6.006983;        // sm__throughput.avg.pct_of_peak_sustained_elapsed
  m.memory_throughput_pct = 82.352146;   // gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
  m.dram_throughput_pct = 82.352146;     // gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed
  m.tensor_pipe_pct = 0.0;               // sm__pipe_tensor_op_hmma_cycles_active...pct_of_peak_sustained_active
  m.achieved_occupancy_pct = 97.530061;  // sm__warps_active.avg.pct_of_peak_sustained_active
  m.theoretical_occupancy_pct = 100.0;   // sm__maximum_warps_per_active_cycle_pct
  m.l2_hit_pct = 51.61874;               // lts__t_sector_hit_rate.pct
  m.waves_per_sm = 1.0;                  // launch__waves_per_multiprocessor
  m.dram_read_bytes = 1.073780e9;        // dram__bytes_read.sum 1.073780 Gbyte
  m.dram_write_bytes = 1.052746e9;       // dram__bytes_write.sum 1.052746 Gbyte
  m.dram_bytes = 2.126526e9;
  m.local_memory_instructions = 0.0;     // smsp__sass_inst_executed_op_local_{ld,st}.sum
  m.flops_fp32 = 0.0;                    // no FP instructions
  return m;
}

// ID 6 fma_loop: FP32 FMA chain, full grid (1056 blocks).
inline kprof::CanonicalMetrics fma_loop_full() {
  kprof::CanonicalMetrics m;
  m.duration_ns = 1026528.0;             // 1.026528 ms
  m.sm_throughput_pct = 67.823304;
  m.memory_throughput_pct = 0.028255;
  m.dram_throughput_pct = 0.000109;
  m.tensor_pipe_pct = 1.978111;
  m.achieved_occupancy_pct = 57.517271;
  m.theoretical_occupancy_pct = 100.0;
  m.l2_hit_pct = 97.454507;
  m.waves_per_sm = 1.0;
  m.dram_bytes = 5000.0;                 // dram__bytes_read.sum 0.000005 Gbyte + write 0.000000
  m.local_memory_instructions = 0.0;
  m.flops_fp32 = (2 * 10623.603450 + 0.398385 + 0.265590) * 2035738.636364;  // ffma, fadd, fmul x cycles
  m.flops_fp16 = 2 * 166.259394 * 2035738.636364;                           // hfma x cycles
  return m;
}

// ID 8 wmma_gemm: 4096^3 bf16 GEMM through WMMA.
inline kprof::CanonicalMetrics wmma_gemm() {
  kprof::CanonicalMetrics m;
  m.duration_ns = 4641920.0;             // 4.641920 ms
  m.sm_throughput_pct = 12.09944;
  m.memory_throughput_pct = 96.675518;
  m.dram_throughput_pct = 2.513654;
  m.tensor_pipe_pct = 4.672657;
  m.achieved_occupancy_pct = 73.36752;
  m.theoretical_occupancy_pct = 75.0;
  m.l2_hit_pct = 88.043722;
  m.waves_per_sm = 10.34;
  m.dram_bytes = 0.496563e9 + 0.064912e9;
  m.local_memory_instructions = 0.0;
  m.flops_tensor = 137438953472.0;       // sm__ops_path_tensor_src_bf16_dst_fp32.sum (= 2 x 4096^3)
  m.tensor_precision = "bf16";
  return m;
}

// ID 9 spill_kernel: 1 KiB local array indexed at run time.
inline kprof::CanonicalMetrics spill_kernel() {
  kprof::CanonicalMetrics m;
  m.duration_ns = 365568.0;              // 0.365568 ms
  m.sm_throughput_pct = 8.851291;
  m.memory_throughput_pct = 72.147377;
  m.dram_throughput_pct = 72.147377;
  m.tensor_pipe_pct = 0.0;
  m.achieved_occupancy_pct = 69.201921;
  m.theoretical_occupancy_pct = 75.0;
  m.l2_hit_pct = 83.515067;
  m.waves_per_sm = 5.17;
  m.dram_bytes = 0.214118e9 + 1.054964e9;
  // l1tex__t_sectors_pipe_lsu_mem_local_op_{ld,st}.sum (8386208 + 33551640 sectors) x 32 B
  m.local_memory_bytes = (8386208.0 + 33551640.0) * 32.0;
  m.local_memory_instructions = 2 * 2097152.0;
  m.l1_bytes = 42205184.0 * 32.0;        // SM_B.TriageCompute.l1tex__t_sectors.sum x 32 B
  m.flops_fp32 = 464.074919 * 720779.621212;  // fadd x sm__cycles_elapsed.avg
  return m;
}

// ID 10 fma_loop on 66 blocks: the under-filled launch.
inline kprof::CanonicalMetrics fma_loop_small() {
  kprof::CanonicalMetrics m;
  m.duration_ns = 1279840.0;             // 1.279840 ms
  m.sm_throughput_pct = 34.072587;
  m.memory_throughput_pct = 0.010766;
  m.dram_throughput_pct = 0.000087;
  m.tensor_pipe_pct = 1.980066;
  m.achieved_occupancy_pct = 12.499916;
  m.theoretical_occupancy_pct = 100.0;
  m.l2_hit_pct = 173.122624;             // as exported (> 100%: counted per sector request)
  m.waves_per_sm = 0.06;
  m.grid_size = 66;
  m.block_size = 256;
  m.dram_bytes = 5000.0;
  m.local_memory_instructions = 0.0;
  m.flops_fp32 = (2 * 5339.452509 + 0.020023 + 0.013349) * 2531495.5;
  return m;
}

}  // namespace probe
