// The JSON kprof-peaks writes and `kprof` imports: the device as the CUDA runtime describes it, and the
// measured peaks keyed like DeviceSpec (dram_gbps, l2_gbps, smem_gbps, fp64_tflops, fp32_tflops, tf32_tflops,
// bf16_tflops, fp16_tflops, fp8_tflops, and the host link: h2d_pinned_gbps, d2h_pinned_gbps, both_pinned_gbps).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "collect/peaks/peak_measurement.hpp"
#include "model/json_support.hpp"

namespace kprof {

KPROF_JSON_DECLARE(PeakMeasurement)

struct PeaksDevice {
  std::string name;                 // cudaDeviceProp::name ("NVIDIA H200")
  std::string compute_capability;   // "9.0"
  int sm_count = 0;
  double sm_clock_mhz = 0;          // peak SM clock the runtime reports
  double memory_clock_mhz = 0;
  int memory_bus_width_bits = 0;
  double l2_bytes = 0;
  double memory_bytes = 0;
  double smem_per_sm_bytes = 0;
  std::string pci_bus_id;
  int driver_version = 0;           // cudaDriverGetVersion (13000 = 13.0)
  int runtime_version = 0;
};
KPROF_JSON_DECLARE(PeaksDevice)

struct PeaksReport {
  std::string schema = "kprof.peaks/1";
  std::string tool = "kprof-peaks";
  std::string version;
  std::string timestamp;            // ISO 8601 UTC, when the run started
  PeaksDevice device;
  std::map<std::string, PeakMeasurement> measured;
  std::vector<std::string> skipped; // "fp8_tflops: cuBLASLt found no algorithm (...)"
  double seconds = 0;               // wall time of the whole run
};
KPROF_JSON_DECLARE(PeaksReport)

// The DeviceSpec peak keys kprof-peaks may report, in display order.
const std::vector<std::string>& peak_keys();
// Figures kprof-peaks reports for the reader that have no DeviceSpec key ("dram_read_gbps": read-only HBM).
const std::vector<std::string>& peak_info_keys();

}  // namespace kprof
