#include "model/profile.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace kprof {

std::string stage_kernel_label(const Stage& s, const KernelGroup& g) {
  // As the tables name it: the label, else the function's name, else its signature (an export without names).
  const std::string kernel = !g.label.empty() ? g.label : !g.kernel.empty() ? g.kernel : g.signature;
  if (s.name.empty() || s.name == kernel) return kernel;
  return s.kernels.size() > 1 ? s.name + " · " + kernel : s.name;
}

std::string LaunchConfig::str() const {
  return fmt::format("grid ({},{},{}) block ({},{},{})", grid[0], grid[1], grid[2], block[0], block[1], block[2]);
}

namespace {
// Linear interpolation between closest ranks (the "type 7" quantile of R and NumPy).
double quantile_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return 0;
  double pos = q * (s.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  auto hi = std::min(lo + 1, s.size() - 1);
  double frac = pos - lo;
  return s[lo] + (s[hi] - s[lo]) * frac;
}
}  // namespace

SampleStats SampleStats::of(std::vector<double> samples) {
  SampleStats st;
  st.count = samples.size();
  if (samples.empty()) return st;
  std::sort(samples.begin(), samples.end());
  st.min = samples.front();
  st.max = samples.back();
  st.median = quantile_sorted(samples, 0.5);
  st.p10 = quantile_sorted(samples, 0.1);
  st.p90 = quantile_sorted(samples, 0.9);
  double sum = 0;
  for (double v : samples) sum += v;
  st.mean = sum / samples.size();
  if (samples.size() > 1) {
    double ss = 0;
    for (double v : samples) ss += (v - st.mean) * (v - st.mean);
    st.stdev = std::sqrt(ss / (samples.size() - 1));
  }
  return st;
}

double Stage::total_duration_ns() const {
  double t = 0;
  for (const auto& k : kernels) t += k.gpu_time_ns();
  return t;
}

DeclaredWork Stage::declared_for(const KernelGroup& g) const {
  DeclaredWork d = g.declared;
  if (kernels.size() == 1) {
    if (!d.flops) d.flops = declared.flops;
    if (!d.min_bytes) d.min_bytes = declared.min_bytes;
    if (d.precision.empty()) d.precision = declared.precision;
  }
  return d;
}

}  // namespace kprof
