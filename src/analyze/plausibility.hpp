// Physical plausibility: the checks between the model and the analysis that catch impossible numbers before
// they are interpreted (a roof exceeded, hit rates over 100%, fewer bytes than the work needs, FLOPs that
// disagree with the declared work, counters of one launch next to another launch's time). Each finding is a
// sentence on the kernel and in the contract; the metric it concerns is never shown as healthy.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analyze/thresholds.hpp"
#include "model/analysis.hpp"
#include "model/profile.hpp"

namespace kprof::analyze {

struct Implausible {
  std::string metric;   // canonical field ("l2_hit_pct"), or "roofline", "duration_ns", "declared"
  std::string message;  // one sentence with the numbers
};

std::vector<Implausible> check_plausibility(const KernelGroup& g, const CanonicalMetrics& m,
                                            const DeclaredWork& declared,
                                            const std::optional<RooflinePlacement>& roofline,
                                            const std::vector<RooflinePlacement>& hierarchical, const Thresholds& t);

}  // namespace kprof::analyze
