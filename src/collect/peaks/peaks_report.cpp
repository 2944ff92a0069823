#include "collect/peaks/peaks_report.hpp"

namespace kprof {

const std::vector<std::string>& peak_keys() {
  static const std::vector<std::string> keys = {"dram_gbps",   "l2_gbps",     "smem_gbps",
                                                "fp64_tflops", "fp32_tflops", "tf32_tflops",
                                                "bf16_tflops", "fp16_tflops", "fp8_tflops",
                                                "h2d_pinned_gbps", "d2h_pinned_gbps", "both_pinned_gbps"};
  return keys;
}

const std::vector<std::string>& peak_info_keys() {
  static const std::vector<std::string> keys = {"dram_read_gbps", "dram_copy_kernel_gbps", "dram_memcpy_gbps"};
  return keys;
}

}  // namespace kprof
