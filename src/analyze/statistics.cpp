#include "analyze/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace kprof::analyze {

MannWhitneyResult mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  MannWhitneyResult r;
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  if (a.empty() || b.empty()) return r;

  // Pool, sort, give tied values their average rank; collect tie-group sizes for the variance correction.
  std::vector<std::pair<double, int>> pooled;  // value, sample (0 = a)
  for (double v : a) pooled.emplace_back(v, 0);
  for (double v : b) pooled.emplace_back(v, 1);
  std::sort(pooled.begin(), pooled.end());
  const double n = n1 + n2;
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double avg_rank = (static_cast<double>(i) + 1 + static_cast<double>(j)) / 2.0;  // ranks i+1..j
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second == 0) rank_sum_a += avg_rank;
    tie_term += t * t * t - t;
    i = j;
  }
  r.u = rank_sum_a - n1 * (n1 + 1) / 2.0;
  const double mu = n1 * n2 / 2.0;
  const double var = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (var <= 0) return r;  // all values tied: no evidence of a difference
  const double diff = r.u - mu;
  // Continuity correction: move |U - mu| half a step toward zero.
  const double corrected = std::max(std::abs(diff) - 0.5, 0.0);
  r.z = (diff < 0 ? -corrected : corrected) / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(std::abs(r.z) / std::sqrt(2.0)));
  return r;
}

}  // namespace kprof::analyze
