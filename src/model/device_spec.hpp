// Device peaks: datasheet figures with their source, optionally overridden by measured ones.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include "model/json_support.hpp"

namespace kprof {

// One peak figure and where it came from ("NVIDIA H200 datasheet, 2024", "kprof peaks --measure 2026-11-30").
struct Peak {
  double value = 0;
  std::string source;
};
KPROF_JSON_DECLARE(Peak)

// Per-SM resources an occupancy calculation needs (CUDA C++ Programming Guide, technical specifications per
// compute capability). Zero means unknown.
struct SmLimits {
  int max_warps = 0;                       // resident warps per SM
  int max_blocks = 0;                      // resident blocks per SM
  int registers = 0;                       // 32-bit registers per SM
  int register_alloc_unit = 256;           // registers are allocated per warp in units of this many
  std::int64_t shared_mem_bytes = 0;       // shared memory per SM usable by blocks
  std::int64_t shared_mem_reserved_per_block = 0;  // the system's share per resident block
  int shared_mem_alloc_unit = 128;
};
KPROF_JSON_DECLARE(SmLimits)

// Keys used in `datasheet` / `measured` (units in the key name):
//   dram_gbps, l2_gbps, smem_gbps, fp64_tflops, fp32_tflops, tf32_tflops, bf16_tflops, fp16_tflops (tensor),
//   fp16_vector_tflops (HFMA2 on the FMA pipe), fp8_tflops, fp64_tensor_tflops (DMMA), h2d_pinned_gbps and
//   d2h_pinned_gbps (the host link, copies from and to pinned host memory), both_pinned_gbps (an upload and a
//   read-back at once, the bytes of both)
struct DeviceSpec {
  std::string name;                  // "NVIDIA H200 SXM"
  std::string id;                    // "h200-sxm": short key, used in file names
  std::vector<std::string> aliases;  // names profilers print ("NVIDIA H200")
  std::string compute_capability;    // "9.0"
  int sm_count = 0;
  double boost_clock_mhz = 0;
  double memory_clock_mhz = 0;
  double l2_mb = 0;
  double memory_gb = 0;
  SmLimits sm_limits;
  std::map<std::string, Peak> datasheet;
  std::map<std::string, Peak> measured;  // overrides datasheet values key by key
  std::string notes;

  // Measured value if present, else datasheet; nullopt when neither has the key.
  std::optional<Peak> peak(const std::string& key) const;
  // "measured" or "datasheet" for the value peak(key) returns.
  std::string peak_kind(const std::string& key) const;
  // Ridge point (FLOP/byte) for a precision ("bf16", "fp32", ...) against DRAM bandwidth.
  std::optional<double> ridge(const std::string& precision) const;
};
KPROF_JSON_DECLARE(DeviceSpec)

// What the profile says about the GPU it ran on.
struct DeviceInfo {
  std::string name;                // as printed by the profiler ("NVIDIA H200"); may be empty
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  double sm_clock_mhz = 0;         // from the profile when present
  double memory_clock_mhz = 0;
  std::string matched_spec;        // DeviceSpec::id it was matched to, empty when none
};
KPROF_JSON_DECLARE(DeviceInfo)

}  // namespace kprof
