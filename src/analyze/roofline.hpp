// Roofline placement of one kernel against one device's peaks, per memory level.
#pragma once
#include <optional>
#include <string>

#include "model/analysis.hpp"
#include "model/canonical_metrics.hpp"
#include "model/device_spec.hpp"
#include "model/profile.hpp"

namespace kprof::analyze {

// Places the kernel on the roofline of `level` ("dram", "l2", "l1"). FLOPs come from counters, else from
// the declaration; bytes from that level's counters, else (DRAM only) the declared minimum bytes.
// nullopt when FLOPs, bytes, duration or a device peak are missing; roofline_gap() says which.
std::optional<RooflinePlacement> place(const CanonicalMetrics& m, const DeclaredWork& declared, const DeviceSpec& spec,
                                       const std::string& level = "dram");

// Why place() returned nullopt ("FLOPs unavailable", "no l2_gbps peak for h200-sxm", ...); empty if it can place.
std::string roofline_gap(const CanonicalMetrics& m, const DeclaredWork& declared, const DeviceSpec& spec,
                         const std::string& level = "dram");

// Device peak key for a memory level: "dram" → "dram_gbps", "l2" → "l2_gbps", "l1" → "l1_gbps".
std::string bandwidth_key(const std::string& level);

}  // namespace kprof::analyze
