#include "model/canonical_metrics.hpp"

#include <algorithm>

namespace kprof {

std::optional<double> CanonicalMetrics::total_flops() const {
  bool any = false;
  double sum = 0;
  for (const auto& f : {flops_fp64, flops_fp32, flops_fp16, flops_tensor})
    if (f) { any = true; sum += *f; }
  return any ? std::optional<double>(sum) : std::nullopt;
}

std::optional<double> CanonicalMetrics::achieved_tflops() const {
  auto f = total_flops();
  if (!f || !duration_ns || *duration_ns <= 0) return std::nullopt;
  return *f / (*duration_ns * 1e-9) / 1e12;
}

std::optional<double> CanonicalMetrics::achieved_dram_gbps() const {
  if (!dram_bytes || !duration_ns || *duration_ns <= 0) return std::nullopt;
  return *dram_bytes / (*duration_ns * 1e-9) / 1e9;
}

std::optional<double> CanonicalMetrics::arithmetic_intensity() const {
  auto f = total_flops();
  if (!f || !dram_bytes || *dram_bytes <= 0) return std::nullopt;
  return *f / *dram_bytes;
}

std::string CanonicalMetrics::dominant_precision() const {
  std::string best;
  double best_v = 0;
  auto consider = [&](const std::optional<double>& v, const std::string& name) {
    if (v && *v > best_v) { best_v = *v; best = name; }
  };
  // FP64 on the tensor cores (DMMA) has a peak of its own, twice the FP64 vector rate on Hopper.
  consider(flops_tensor, tensor_precision.empty()    ? std::string("bf16")
                         : tensor_precision == "fp64" ? std::string("fp64_tensor")
                                                      : tensor_precision);
  consider(flops_fp32, "fp32");
  consider(flops_fp64, "fp64");
  consider(flops_fp16, "fp16_vector");  // HFMA2 on the FMA pipe: its roof is not the tensor-core fp16 peak
  return best;
}

std::optional<double> CanonicalMetrics::shared_atomic_wavefronts_per_instruction() const {
  if (!shared_atomic_wavefronts || !shared_atomic_instructions || *shared_atomic_instructions <= 0) return std::nullopt;
  return *shared_atomic_wavefronts / *shared_atomic_instructions;
}

std::optional<double> CanonicalMetrics::shared_atomic_share() const {
  if (!shared_atomic_wavefronts || *shared_atomic_wavefronts <= 0) return std::nullopt;
  return *shared_atomic_wavefronts / (*shared_atomic_wavefronts + shared_wavefronts.value_or(0));
}

namespace {
std::optional<double> ratio(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || *b <= 0) return std::nullopt;
  return *a / *b;
}
}  // namespace

std::optional<double> CanonicalMetrics::load_sectors_per_request() const {
  return ratio(global_load_sectors, global_load_requests);
}
std::optional<double> CanonicalMetrics::store_sectors_per_request() const {
  return ratio(global_store_sectors, global_store_requests);
}
namespace {
std::optional<double> bytes_used(const std::optional<double>& sectors, const std::optional<double>& per_sector) {
  if (!sectors || !per_sector || *per_sector < 1.0) return std::nullopt;
  return *sectors * *per_sector;
}
}  // namespace
std::optional<double> CanonicalMetrics::load_bytes_used() const {
  return bytes_used(global_load_sectors, global_load_bytes_per_sector);
}
std::optional<double> CanonicalMetrics::store_bytes_used() const {
  return bytes_used(global_store_sectors, global_store_bytes_per_sector);
}
std::optional<double> CanonicalMetrics::fma_pipe_float_instructions() const {
  if (!fma_pipe_instructions || !fma_integer_share) return std::nullopt;
  return std::max(0.0, *fma_pipe_instructions * (1.0 - std::clamp(*fma_integer_share, 0.0, 1.0)));
}
std::optional<double> CanonicalMetrics::bank_conflict_share() const {
  return ratio(shared_bank_conflicts, shared_wavefronts);
}

double CanonicalMetrics::waiting_stalls(std::initializer_list<std::string_view> reasons) const {
  double sum = 0;
  for (const auto& [reason, v] : stalls) {
    if (reason == "selected" || reason == "not_selected") continue;
    if (reasons.size() == 0 || std::find(reasons.begin(), reasons.end(), reason) != reasons.end()) sum += v;
  }
  return sum;
}

std::pair<std::string, double> CanonicalMetrics::top_waiting_stall() const {
  std::pair<std::string, double> top{"", 0.0};
  for (const auto& [reason, v] : stalls)
    if (reason != "selected" && reason != "not_selected" && v > top.second) top = {reason, v};
  return top;
}

std::optional<double> CanonicalMetrics::shared_wait_share() const {
  if (!stalls.count("short_scoreboard")) return std::nullopt;
  const double total = waiting_stalls();
  if (total <= 0) return std::nullopt;
  return waiting_stalls({"short_scoreboard", "mio_throttle"}) / total;
}

}  // namespace kprof
