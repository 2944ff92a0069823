// The handful of quantities kprof reasons with, derived from whatever a profile holds.
// Every field is optional: a quantity the export cannot support stays empty and is listed in `unavailable`.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>
#include "model/json_support.hpp"

namespace kprof {

struct CanonicalMetrics {
  std::optional<double> duration_ns;
  std::optional<double> sm_throughput_pct;        // sm__throughput...pct_of_peak_sustained_elapsed
  std::optional<double> memory_throughput_pct;    // gpu__compute_memory_throughput (max over memory units)
  std::optional<double> dram_throughput_pct;
  std::optional<double> tensor_pipe_pct;          // sm__pipe_tensor_op_hmma_cycles_active (HMMA + HGMMA on Hopper)
  std::optional<double> achieved_occupancy_pct;
  std::optional<double> theoretical_occupancy_pct;
  std::optional<double> l2_hit_pct;
  std::optional<double> l1_hit_pct;
  std::optional<double> waves_per_sm;
  std::optional<double> dram_bytes;               // read + write
  std::optional<double> dram_read_bytes;
  std::optional<double> dram_write_bytes;
  std::optional<double> l2_bytes;
  std::optional<double> l1_bytes;
  std::optional<double> local_memory_bytes;       // local loads + stores reaching L1 (spills and local arrays)
  std::optional<double> local_memory_instructions;
  std::optional<double> spill_requests;           // derived__local_spilling_requests (register spills only)
  std::optional<double> flops_fp64;
  std::optional<double> flops_fp32;
  std::optional<double> flops_fp16;
  std::optional<double> flops_tensor;
  std::optional<double> registers_per_thread;
  std::optional<double> shared_mem_per_block_bytes;  // static + dynamic
  std::optional<double> grid_size;                   // blocks
  std::optional<double> block_size;                  // threads per block
  std::optional<double> sm_clock_hz;

  std::string tensor_precision;     // "bf16", "fp16", "tf32", "fp8", "int8", "fp64" when tensor ops were counted
  std::map<std::string, std::string> provenance;  // field → metric expression it came from
  std::vector<std::string> unavailable;           // fields the export could not support

  // FLOPs of all kinds, if any kind was counted.
  std::optional<double> total_flops() const;
  std::optional<double> achieved_tflops() const;    // total_flops / duration
  std::optional<double> achieved_dram_gbps() const; // dram_bytes / duration
  std::optional<double> arithmetic_intensity() const;  // total_flops / dram_bytes
  // The precision whose FLOPs dominate: "bf16"/"fp16"/... (tensor), "fp32", "fp64", "fp16"; empty if none.
  std::string dominant_precision() const;
};
KPROF_JSON(CanonicalMetrics, duration_ns, sm_throughput_pct, memory_throughput_pct, dram_throughput_pct,
           tensor_pipe_pct, achieved_occupancy_pct, theoretical_occupancy_pct, l2_hit_pct, l1_hit_pct, waves_per_sm,
           dram_bytes, dram_read_bytes, dram_write_bytes, l2_bytes, l1_bytes, local_memory_bytes,
           local_memory_instructions, spill_requests, flops_fp64, flops_fp32, flops_fp16, flops_tensor,
           registers_per_thread, shared_mem_per_block_bytes, grid_size, block_size, sm_clock_hz, tensor_precision,
           provenance, unavailable)

}  // namespace kprof
