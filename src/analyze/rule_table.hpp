// The diagnosis rules, in the order find_causes runs them, and what the table says about each cause.
#pragma once
#include <vector>

#include "analyze/diagnosis_rule.hpp"

namespace kprof::analyze {

const std::vector<Rule>& diagnosis_rules();

// The row of a cause in the rule that names it (each cause belongs to one rule: tests/test_rule_table.cpp).
const CauseSpec& cause_spec(CauseId id);

// Whether a specific cause accounts for a plain bound (the bound keeps its name but not its own remedy).
bool explains(CauseId specific, CauseId bound);
// Plain bounds that name one saturating unit (DRAM or a pipe; the bounds rule adds them only at/above their
// thresholds).
bool throughput_bound(CauseId cause);
// Bounds on a unit each SM has its own of (a pipe, L1): their busy shares are over the active SMs' cycles, so they
// bound nothing on the SMs a small grid leaves idle.
bool per_sm_unit(CauseId cause);

}  // namespace kprof::analyze
