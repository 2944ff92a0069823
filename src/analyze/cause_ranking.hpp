// The ranking policy of the diagnosis: how the causes the rules found bound each other's estimates and which
// leads. Specific causes before the plain bounds they explain, each group by estimated gain; no estimate above
// the roofline headroom, or above a saturated unit's headroom unless the cause explains that unit.
#pragma once
#include <vector>

#include "analyze/diagnosis_rule.hpp"
#include "analyze/thresholds.hpp"

namespace kprof::analyze {

// Bounds and orders `causes` (in the order the rules found them), best first; `headroom` is 0..1.
void rank_causes(std::vector<Finding>& causes, double headroom, const Thresholds& t);

}  // namespace kprof::analyze
