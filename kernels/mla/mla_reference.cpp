// Float64 reference for sampled MLA decode rows; see mla_reference.hpp for the error bound.
#include "mla_reference.hpp"

#include "bf16_host.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>

namespace mla {

std::vector<long long> mla_sample_rows(const MlaShape& shape, int count, std::uint64_t seed) {
  const long long total = shape.query_rows();
  if (total <= 0) throw std::invalid_argument("mla_sample_rows: empty shape");
  std::set<long long> picked{0, total - 1};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long long> pick(0, total - 1);
  const long long want = std::min<long long>(std::max(count, 2), total);
  while (static_cast<long long>(picked.size()) < want) picked.insert(pick(rng));
  return {picked.begin(), picked.end()};
}

std::vector<double> mla_reference_rows(const MlaShape& shape, const std::uint16_t* q_bf16, const std::uint16_t* kv_bf16,
                                       const std::vector<long long>& rows, double scale) {
  const int dk = shape.dk();
  const long long rows_per_batch = static_cast<long long>(shape.s) * shape.h;
  std::vector<double> out(rows.size() * static_cast<std::size_t>(shape.d), 0.0);
  std::vector<double> q(dk), score(shape.t);
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    const long long row = rows[ri];
    const long long batch = row / rows_per_batch;
    for (int c = 0; c < dk; ++c) q[c] = bf16_bits_to_float(q_bf16[row * dk + c]);
    const std::uint16_t* kv_b = kv_bf16 + batch * shape.t * dk;
    double m = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < shape.t; ++j) {
      const std::uint16_t* k = kv_b + static_cast<long long>(j) * dk;
      double dot = 0.0;
      for (int c = 0; c < dk; ++c) dot += q[c] * bf16_bits_to_float(k[c]);
      score[j] = dot * scale;
      m = std::max(m, score[j]);
    }
    double l = 0.0;
    double* o = out.data() + ri * shape.d;
    for (int j = 0; j < shape.t; ++j) {
      const double w = std::exp(score[j] - m);
      l += w;
      const std::uint16_t* v = kv_b + static_cast<long long>(j) * dk;
      for (int c = 0; c < shape.d; ++c) o[c] += w * bf16_bits_to_float(v[c]);
    }
    for (int c = 0; c < shape.d; ++c) o[c] /= l;
  }
  return out;
}

double mla_relative_error(const MlaShape& shape, const std::uint16_t* o_bf16, const std::vector<long long>& rows,
                          const std::vector<double>& ref) {
  double diff2 = 0.0, ref2 = 0.0;
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    const std::uint16_t* o = o_bf16 + rows[ri] * shape.d;
    const double* r = ref.data() + ri * shape.d;
    for (int c = 0; c < shape.d; ++c) {
      const double got = bf16_bits_to_float(o[c]);
      if (!std::isfinite(got)) return std::numeric_limits<double>::quiet_NaN();
      diff2 += (got - r[c]) * (got - r[c]);
      ref2 += r[c] * r[c];
    }
  }
  return std::sqrt(diff2) / std::sqrt(ref2);
}

long long mla_count_nonfinite(const std::uint16_t* o_bf16, long long count) {
  long long bad = 0;
  for (long long i = 0; i < count; ++i) bad += (o_bf16[i] & 0x7f80u) == 0x7f80u ? 1 : 0;  // exponent all ones
  return bad;
}

}  // namespace mla
