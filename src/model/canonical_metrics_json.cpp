// to_json and from_json of the types canonical_metrics.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "model/canonical_metrics.hpp"

namespace kprof {
KPROF_JSON_WIDE_DEFINE(CanonicalMetrics, (duration_ns, sm_throughput_pct, memory_throughput_pct, dram_throughput_pct,
           tensor_pipe_pct, achieved_occupancy_pct, theoretical_occupancy_pct, l2_hit_pct, l1_hit_pct, waves_per_sm,
           dram_bytes, dram_read_bytes, dram_write_bytes, l2_bytes, sysmem_bytes, l1_bytes, local_memory_bytes,
           local_memory_instructions, spill_requests, flops_fp64, flops_fp32, flops_fp16, flops_tensor,
           registers_per_thread, shared_mem_per_block_bytes, grid_size, block_size, sm_clock_hz, fma_pipe_pct,
           fma_pipe_instructions), (fp16_pipe_instructions, fp32_fusable_pairs, fp32_fma_instructions, fma_integer_share, alu_pipe_pct, fp64_pipe_pct, xu_pipe_pct, lsu_pipe_pct, issue_active_pct,
           l1_throughput_pct, l2_throughput_pct, idc_pct, global_load_sectors, global_load_requests, global_store_sectors,
           global_store_requests, global_atomic_requests, shared_wavefronts, shared_bank_conflicts,
           shared_atomic_wavefronts, shared_atomic_instructions,
           threads_per_instruction, global_load_bytes_per_sector, global_store_bytes_per_sector, sm_active_pct, stalls, occupancy_limit_registers, occupancy_limit_shared_mem,
           occupancy_limit_warps, occupancy_limit_blocks, dram_measured_pct, l2_measured_pct, tensor_pipe_includes_hfma2, tensor_pipe_imma,
           tensor_precision, provenance, unavailable))
}  // namespace kprof
