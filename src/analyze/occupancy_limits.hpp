// Blocks per SM each resource allows: what the occupancy rule compares when Nsight Compute did not report it.
#pragma once
#include "model/canonical_metrics.hpp"
#include "model/device_spec.hpp"

#include <optional>

namespace kprof::analyze {

// Blocks per SM each resource allows, computed from the launch's registers, shared memory and block size with
// the device's SM limits (Nsight Compute's launch__occupancy_limit_* where the profile lacks them). Fields stay
// empty when an input is missing.
void fill_occupancy_limits(CanonicalMetrics& m, const SmLimits& limits);

// Blocks per SM the launch's shared memory per block allows at the SM's full shared-memory carveout; empty without the
// block's shared memory or the device's limit.
std::optional<double> shared_mem_blocks_at_full_carveout(const CanonicalMetrics& m, const SmLimits& limits);

}  // namespace kprof::analyze
