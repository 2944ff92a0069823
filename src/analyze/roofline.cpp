#include "analyze/roofline.hpp"

#include <algorithm>

namespace kprof::analyze {

namespace {

struct Inputs {
  std::string precision;
  std::optional<double> flops;
  std::string flops_source;
  std::optional<double> bytes;
  std::string gap;  // first missing input
};

// A counter that is present but zero (a copy kernel has no FP instructions) cannot place a kernel:
// fall back to the declaration as if the counter were missing.
std::optional<double> positive(const std::optional<double>& v) {
  return v && *v > 0 ? v : std::nullopt;
}

std::optional<double> level_bytes(const CanonicalMetrics& m, const std::string& level) {
  if (level == "dram") return positive(m.dram_bytes);
  if (level == "l2") return positive(m.l2_bytes);
  if (level == "l1") return positive(m.l1_bytes);
  return std::nullopt;
}

Inputs gather(const CanonicalMetrics& m, const DeclaredWork& declared, const DeviceSpec& spec, const std::string& level) {
  Inputs in;
  if (auto f = positive(m.total_flops())) {
    in.flops = f;
    in.flops_source = "counters";
    in.precision = m.dominant_precision();
  } else if (auto d = positive(declared.flops)) {
    in.flops = d;
    in.flops_source = "declared";
    in.precision = declared.precision;
  }
  if (in.precision.empty()) in.precision = declared.precision;
  // A device file without an FP64 tensor peak (B200 here, a user's own) keeps the FP64 one for DMMA work.
  if (in.precision == "fp64_tensor" && !spec.peak("fp64_tensor_tflops")) in.precision = "fp64";
  in.bytes = level_bytes(m, level);
  if (!in.bytes && level == "dram") in.bytes = positive(declared.min_bytes);

  if (!in.flops) in.gap = "FLOPs unavailable";
  else if (!in.bytes) in.gap = level + " bytes unavailable";
  else if (!m.duration_ns || *m.duration_ns <= 0) in.gap = "duration unavailable";
  else if (in.precision.empty()) in.gap = "precision unknown";
  else if (!spec.peak(in.precision + "_tflops")) in.gap = "no " + in.precision + "_tflops peak for " + spec.id;
  else if (!spec.peak(bandwidth_key(level))) in.gap = "no " + bandwidth_key(level) + " peak for " + spec.id;
  return in;
}

std::string describe(const DeviceSpec& spec, const std::string& key) {
  auto p = spec.peak(key);
  return spec.peak_kind(key) + ": " + (p ? p->source : std::string());
}

}  // namespace

std::string bandwidth_key(const std::string& level) { return level + "_gbps"; }

std::string roofline_gap(const CanonicalMetrics& m, const DeclaredWork& declared, const DeviceSpec& spec,
                         const std::string& level) {
  return gather(m, declared, spec, level).gap;
}

std::optional<RooflinePlacement> place(const CanonicalMetrics& m, const DeclaredWork& declared, const DeviceSpec& spec,
                                       const std::string& level) {
  Inputs in = gather(m, declared, spec, level);
  if (!in.gap.empty()) return std::nullopt;

  const std::string flops_key = in.precision + "_tflops";
  const std::string bw_key = bandwidth_key(level);
  RooflinePlacement p;
  p.precision = in.precision;
  p.memory_level = level;
  p.peak_tflops = spec.peak(flops_key)->value;
  p.peak_gbps = spec.peak(bw_key)->value;
  p.peak_source = describe(spec, flops_key);
  if (auto bw_source = describe(spec, bw_key); bw_source != p.peak_source) p.peak_source += " | " + bw_source;
  // TFLOP/s over GB/s is 1e3 FLOP/byte per unit ratio.
  p.ridge_flop_per_byte = p.peak_tflops * 1e12 / (p.peak_gbps * 1e9);
  p.arithmetic_intensity = *in.flops / *in.bytes;
  p.achieved_tflops = *in.flops / (*m.duration_ns * 1e-9) / 1e12;
  const double bandwidth_roof_tflops = p.arithmetic_intensity * p.peak_gbps * 1e9 / 1e12;
  p.roof_tflops = std::min(p.peak_tflops, bandwidth_roof_tflops);
  p.pct_of_roof = p.roof_tflops > 0 ? p.achieved_tflops / p.roof_tflops * 100.0 : 0.0;
  p.bound_by = p.arithmetic_intensity < p.ridge_flop_per_byte ? "memory" : "compute";
  p.flops_source = in.flops_source;
  return p;
}

}  // namespace kprof::analyze
