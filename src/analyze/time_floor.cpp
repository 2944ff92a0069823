#include "analyze/time_floor.hpp"

#include <algorithm>
#include <string>

namespace kprof::analyze {

std::optional<double> time_floor_s(const CanonicalMetrics& m, const DeclaredWork& declared, const DeviceSpec& spec) {
  double floor = 0;
  bool any = false;
  auto bound = [&](std::optional<double> amount, const std::string& key, double scale) {
    auto peak = spec.peak(key);
    if (!amount || *amount <= 0 || !peak || peak->value <= 0) return;
    floor = std::max(floor, *amount / (peak->value * scale));
    any = true;
  };
  // FLOPs per precision at that precision's peak.
  std::string tensor_prec = m.tensor_precision.empty() ? "bf16"
                            : m.tensor_precision == "fp64"
                                ? (spec.peak("fp64_tensor_tflops") ? "fp64_tensor" : "fp64")  // no DMMA peak: FP64's
                                : m.tensor_precision;
  bound(m.flops_tensor, tensor_prec + "_tflops", 1e12);
  bound(m.flops_fp32, "fp32_tflops", 1e12);
  bound(m.flops_fp64, "fp64_tflops", 1e12);
  bound(m.flops_fp16, "fp16_vector_tflops", 1e12);
  if (!m.total_flops() && declared.flops) bound(declared.flops, (declared.precision.empty() ? "fp32" : declared.precision) + "_tflops", 1e12);
  bound(m.dram_bytes ? m.dram_bytes : declared.min_bytes, "dram_gbps", 1e9);
  return any ? std::optional<double>(floor) : std::nullopt;
}

}  // namespace kprof::analyze
