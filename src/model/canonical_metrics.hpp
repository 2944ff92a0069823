// The handful of quantities kprof reasons with, derived from whatever a profile holds.
// Every field is optional: a quantity the export cannot support stays empty and is listed in `unavailable`.
#pragma once
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <string_view>
#include <vector>
#include "model/json_support.hpp"

namespace kprof {

struct CanonicalMetrics {
  std::optional<double> duration_ns;
  std::optional<double> sm_throughput_pct;        // sm__throughput...pct_of_peak_sustained_elapsed
  std::optional<double> memory_throughput_pct;    // gpu__compute_memory_throughput (max over memory units)
  std::optional<double> dram_throughput_pct;
  // Tensor-pipe utilisation by matrix instructions only: on Hopper sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma
  // (HMMA + HGMMA + QGMMA). The plain sm__pipe_tensor_op_hmma_cycles_active also counts HFMA2.MMA, which the
  // compiler uses for FP16 vector math and to move constants into registers; it is the fallback, and
  // `tensor_pipe_includes_hfma2` says when it was used.
  std::optional<double> tensor_pipe_pct;
  std::optional<double> achieved_occupancy_pct;
  std::optional<double> theoretical_occupancy_pct;
  std::optional<double> l2_hit_pct;
  std::optional<double> l1_hit_pct;
  std::optional<double> waves_per_sm;
  std::optional<double> dram_bytes;               // read + write
  std::optional<double> dram_read_bytes;
  std::optional<double> dram_write_bytes;
  std::optional<double> l2_bytes;
  // Bytes the SMs read or wrote in host memory through L2 (zero-copy, mapped pinned memory): they cross the host link.
  std::optional<double> sysmem_bytes;
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

  // Pipes and issue (% of peak sustained while the SM is active).
  std::optional<double> fma_pipe_pct;             // FP32 FFMA/FADD/FMUL, HFMA2 and IMAD share the FMA pipe
  std::optional<double> fma_pipe_instructions;    // thread instructions executed on the FMA pipe (FP32, FP16, IMAD)
  std::optional<double> fp16_pipe_instructions;   // HFMA2/HADD2/HMUL2 threads on the FMA pipe (not HFMA2.MMA)
  // FP32 multiply and add thread instructions that FFMAs could replace in pairs: min(FADD, FMUL) from the SASS
  // opcode counts (Nsight Compute patches the code to count them; the CUPTI range profiler has none). An upper
  // bound: a multiply and an add pair only where the add takes the product.
  std::optional<double> fp32_fusable_pairs;
  std::optional<double> fp32_fma_instructions;    // FFMA thread instructions (the same SASS counts)
  // Share of the FMA pipe's work that is integer (IMAD, which only its heavy sub-pipe runs), 0..1; above one half,
  // fma_pipe_pct is the heavy sub-pipe's reading.
  std::optional<double> fma_integer_share;
  std::optional<double> alu_pipe_pct;             // integer and logic (IADD3, LOP3, shifts), FP compare/min/max
  std::optional<double> fp64_pipe_pct;
  std::optional<double> xu_pipe_pct;              // special functions: MUFU (sin, cos, exp2, rcp, rsqrt)
  std::optional<double> lsu_pipe_pct;             // load/store instructions issued
  std::optional<double> issue_active_pct;         // cycles an instruction was issued
  std::optional<double> l1_throughput_pct;        // L1/TEX unit (incl. shared memory)
  std::optional<double> l2_throughput_pct;        // L2 slices
  // Indexed constant cache (IDC) busy, % of peak elapsed: constant loads whose index differs across a warp's lanes
  // are served one address at a time there (Nsight Compute counts it in sm__throughput).
  std::optional<double> idc_pct;
  // Memory access patterns.
  std::optional<double> global_load_sectors;      // 32-byte sectors requested by global loads
  std::optional<double> global_load_requests;     // warp-level global load requests
  std::optional<double> global_store_sectors;
  std::optional<double> global_store_requests;
  std::optional<double> global_atomic_requests;   // warp-level global atom + red requests
  std::optional<double> shared_wavefronts;        // shared-memory load + store wavefronts
  std::optional<double> shared_bank_conflicts;    // extra wavefronts caused by bank conflicts (loads + stores)
  std::optional<double> shared_atomic_wavefronts;   // shared-memory wavefronts of atomics (ATOMS)
  std::optional<double> shared_atomic_instructions;  // warp-level shared atomic instructions executed
  std::optional<double> threads_per_instruction;  // active threads per warp instruction (32 = no divergence)
  // Bytes of each fetched 32-byte sector that global loads / stores use (32 = every byte used; a stride-2 float
  // access uses 16). Nsight Compute counts them by patching SASS
  // (smsp__sass_average_data_bytes_per_sector_mem_global_op_{ld,st}.ratio); the CUPTI range profiler cannot.
  std::optional<double> global_load_bytes_per_sector;
  std::optional<double> global_store_bytes_per_sector;
  // Share of the elapsed cycles the average SM was active (had a resident warp), % (sm__cycles_active.avg over
  // sm__cycles_elapsed.avg): idle SMs (a small grid, a partial wave, uneven blocks) show as less than 100.
  std::optional<double> sm_active_pct;
  // Warps stalled per issued instruction, by reason ("long_scoreboard", "lg_throttle", ...).
  std::map<std::string, double> stalls;
  // Blocks per SM each resource allows (Nsight Compute's launch__occupancy_limit_*, or computed from the launch's
  // registers, shared memory and block size with the device's SM limits).
  std::optional<double> occupancy_limit_registers;
  std::optional<double> occupancy_limit_shared_mem;
  std::optional<double> occupancy_limit_warps;
  std::optional<double> occupancy_limit_blocks;
  // DRAM throughput as a share of the device's measured copy bandwidth (dram_throughput_pct is Nsight
  // Compute's share of its own peak, which the practical copy never reaches); set by the analysis layer.
  std::optional<double> dram_measured_pct;
  // L2 throughput as a share of the device's measured L2 read bandwidth (l2_bytes / duration; l2_throughput_pct is
  // the busiest L2 sub-unit's share of its own peak); set by the analysis layer.
  std::optional<double> l2_measured_pct;
  bool tensor_pipe_includes_hfma2 = false;
  bool tensor_pipe_imma = false;  // tensor_pipe_pct is the integer matrix (IMMA) reading: int8 work

  std::string tensor_precision;     // "bf16", "fp16", "tf32", "fp8", "int8", "fp64" when tensor ops were counted
  std::map<std::string, std::string> provenance;  // field → metric expression it came from
  std::vector<std::string> unavailable;           // fields the export could not support

  // FLOPs of all kinds, if any kind was counted.
  std::optional<double> total_flops() const;
  std::optional<double> achieved_tflops() const;    // total_flops / duration
  std::optional<double> achieved_dram_gbps() const; // dram_bytes / duration
  std::optional<double> arithmetic_intensity() const;  // total_flops / dram_bytes
  // The precision whose FLOPs dominate: "bf16"/"fp16"/... (tensor), "fp32", "fp64", "fp16_vector"; empty if none.
  std::string dominant_precision() const;
  // Sectors per warp-level request of global loads / stores (4 = coalesced 4-byte, 16 = coalesced 16-byte).
  std::optional<double> load_sectors_per_request() const;
  std::optional<double> store_sectors_per_request() const;
  // Bytes the global loads / stores use (their sectors times Nsight Compute's used bytes per sector); none without
  // both counts, or where the count reads under 1 byte a sector (the loads are not LDG: cp.async or TMA fill shared
  // memory, which the SASS count does not see).
  std::optional<double> load_bytes_used() const;
  std::optional<double> store_bytes_used() const;
  // The FMA pipe's floating-point thread instructions: its thread instructions less its integer share (IMAD, from
  // the heavy/lite split). Where no SASS opcode counts exist (CUPTI's counters) they stand for the FP32 (and FP16)
  // math; none without both counts.
  std::optional<double> fma_pipe_float_instructions() const;
  // Share of shared-memory wavefronts spent on bank conflicts, 0..1.
  std::optional<double> bank_conflict_share() const;
  // Shared-memory wavefronts per shared atomic instruction (1 when a warp's lanes do not collide), and the shared
  // atomics' share of all shared wavefronts, 0..1; none without the shared-atomic counts.
  std::optional<double> shared_atomic_wavefronts_per_instruction() const;
  std::optional<double> shared_atomic_share() const;
  // Warp cycles spent waiting: the stall reasons in `reasons` (every reason when empty), never selected or
  // not selected (those issued or could have).
  double waiting_stalls(std::initializer_list<std::string_view> reasons = {}) const;
  // The waiting stall reason with the most warp cycles, and those cycles ({"", 0} without stall data).
  std::pair<std::string, double> top_waiting_stall() const;
  // Share of waiting stalls spent on shared memory (short scoreboard, which also covers special-function results,
  // plus MIO throttle), 0..1; none without stall data.
  std::optional<double> shared_wait_share() const;
};
KPROF_JSON_DECLARE(CanonicalMetrics)

}  // namespace kprof
