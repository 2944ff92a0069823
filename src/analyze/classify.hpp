// Bottleneck classification: which unit limits the kernel, in the spirit of Nsight Compute's SpeedOfLight rule.
#pragma once
#include <optional>

#include "analyze/thresholds.hpp"
#include "model/analysis.hpp"
#include "model/canonical_metrics.hpp"
#include "model/profile.hpp"

namespace kprof::analyze {

// Rules, first match wins (docs/analysis.md):
//  1. DRAM high and TC low → memory (DRAM).        2. TC high and DRAM low → compute (tensor pipe).
//  3. SM or memory throughput busy → compute (FP32/FP64/FP16 pipe by dominant FLOPs, else "SM pipes"),
//     memory (DRAM or on-chip L1/L2), or balanced, by the larger of the two.
//  4. Both below busy → latency ("grid too small" when waves/SM < 1).
// The locality flag (L2 hit under threshold) is cleared for a streaming kernel whose DRAM bytes are within
// classify.streaming_bytes_ratio of `declared.min_bytes`. `roofline` settles rule 3 when SM% and memory%
// are too close to call.
Bottleneck classify(const CanonicalMetrics& m, const Thresholds& t, const std::optional<RooflinePlacement>& roofline,
                    const DeclaredWork& declared = {});

}  // namespace kprof::analyze
