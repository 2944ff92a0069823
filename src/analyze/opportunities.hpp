// Candidate optimisations, each tied to a trigger metric, with an estimated share of kernel time saved.
#pragma once
#include <optional>
#include <vector>

#include "analyze/thresholds.hpp"
#include "model/analysis.hpp"
#include "model/canonical_metrics.hpp"
#include "model/profile.hpp"

namespace kprof::analyze {

// kprof's own candidates (formulas in docs/analysis.md) plus NCU OPT rule results from `rules` (the
// representative launch's), deduplicated by remedy category, every gain bounded by the roofline headroom
// (1 - achieved/roof) when `roofline` is known, ranked best first. Candidates under
// opportunities.min_gain_pct are dropped.
std::vector<Opportunity> find_opportunities(const CanonicalMetrics& m, const Bottleneck& bottleneck,
                                            const std::optional<RooflinePlacement>& roofline,
                                            const std::vector<RuleResult>& rules, const Thresholds& t,
                                            const DeclaredWork& declared = {});

// "AchievedOccupancy" → "Achieved occupancy": a readable short name from an NCU rule name.
std::string rule_short_name(const std::string& rule_name);

}  // namespace kprof::analyze
