// `kprof devices`: the known devices with their peaks, and one device in detail with every peak's source.
#pragma once
#include <string>
#include <vector>
#include "model/device_spec.hpp"

namespace kprof::render {

// One row per device: peaks as used (measured over datasheet) and which kind they are.
std::string render_devices(const std::vector<DeviceSpec>& specs);
// Every property and every peak figure, datasheet and measured, with its source; ridge points per precision.
std::string render_device_detail(const DeviceSpec& spec);

}  // namespace kprof::render
