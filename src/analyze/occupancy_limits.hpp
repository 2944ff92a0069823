// Blocks per SM each resource allows: what the occupancy rule compares when Nsight Compute did not report it.
#pragma once
#include "model/canonical_metrics.hpp"
#include "model/device_spec.hpp"

namespace kprof::analyze {

// Blocks per SM each resource allows, computed from the launch's registers, shared memory and block size with
// the device's SM limits (Nsight Compute's launch__occupancy_limit_* where the profile lacks them). Fields stay
// empty when an input is missing.
void fill_occupancy_limits(CanonicalMetrics& m, const SmLimits& limits);

}  // namespace kprof::analyze
