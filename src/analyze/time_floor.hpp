// The shortest time a kernel's work can take on a device: what its roofline headroom is measured against.
#pragma once
#include <optional>

#include "model/canonical_metrics.hpp"
#include "model/device_spec.hpp"
#include "model/profile.hpp"

namespace kprof::analyze {

// Time floor of the kernel (seconds), from the roofline at every level known: the longest of FLOPs at the
// precision's peak and bytes at each level's bandwidth. nullopt without peaks or inputs.
std::optional<double> time_floor_s(const CanonicalMetrics& m, const DeclaredWork& declared, const DeviceSpec& spec);

}  // namespace kprof::analyze
