// Host float64 reference for MLA decode on a sample of query rows, and the error metric.
//
// Error bound.  The kernels read bf16 operands exactly (the reference uses the same bf16 values, widened), so the
// differences come from: fp32 accumulation (~1e-6 relative, negligible); in v2/v3 the softmax probabilities
// rounded to bf16 before P V (8 significant bits: ~2^-9 = 2e-3 relative per weight, averaging down over t); and
// the bf16 output itself (~2^-9 relative per element, about 1e-3 in the norm).  Expected ||out - ref|| / ||ref||:
// about 1e-3 for v1, 1e-3 .. 1e-2 for v2/v3.  The pass bound is 2e-2: above every rounding source with margin,
// while real indexing, masking or softmax bugs produce errors of order 1e-1 .. 1.  NaN or Inf never passes.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace mla {

inline constexpr double kMlaErrorBound = 2e-2;

struct MlaShape {
  int b = 0, s = 0, t = 0, h = 0, d = 0, p = 0;
  long long query_rows() const { return static_cast<long long>(b) * s * h; }
  int dk() const { return d + p; }
};

// `count` distinct query rows (flattened b*s*h index), always including the first and the last, drawn from `seed`.
std::vector<long long> mla_sample_rows(const MlaShape& shape, int count, std::uint64_t seed);

// Reference output for each sampled row (rows.size() * d values, row after row) from bf16 bit patterns of
// q [b, s, h, d+p] and kv [b, t, d+p]; float64 throughout.
std::vector<double> mla_reference_rows(const MlaShape& shape, const std::uint16_t* q_bf16, const std::uint16_t* kv_bf16,
                                       const std::vector<long long>& rows, double scale);

// ||out - ref|| / ||ref|| over the sampled rows (all d columns each); NaN if any sampled output is not finite.
double mla_relative_error(const MlaShape& shape, const std::uint16_t* o_bf16, const std::vector<long long>& rows,
                          const std::vector<double>& ref);

// Elements of the whole output that are not finite (unwritten poison, or a NaN produced by the kernel).
long long mla_count_nonfinite(const std::uint16_t* o_bf16, long long count);

inline bool mla_error_passes(double rel_err) { return std::isfinite(rel_err) && rel_err <= kMlaErrorBound; }

}  // namespace mla
