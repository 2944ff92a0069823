// Rank statistics for deciding whether two sets of timings differ beyond noise.
#pragma once
#include <vector>

namespace kprof::analyze {

struct MannWhitneyResult {
  double u = 0;        // U statistic of the first sample: pairs (a, b) with a > b, ties counting 1/2
  double z = 0;        // normal approximation, continuity-corrected, tie-corrected variance
  double p_value = 1;  // two-sided
};

// Two-sided Mann-Whitney U test with the normal approximation (continuity and tie corrections), as in
// google/benchmark's compare.py and SciPy's "asymptotic" method. p = 1 when every value is tied or a side is empty.
MannWhitneyResult mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace kprof::analyze
