// docs/devices/<id>.md: one device's peaks (datasheet vs measured, with sources), ridge points per precision and
// memory level, memory hierarchy, and what kprof measured when. Pure function: model in, Markdown out.
#pragma once
#include <string>

#include "model/device_spec.hpp"

namespace kprof::render {

std::string render_device_page(const DeviceSpec& spec);

}  // namespace kprof::render
