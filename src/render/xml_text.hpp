// Text from a profile inside XML (SVG, JUnit): the five markup characters as entities, and the control characters
// XML 1.0 does not allow dropped (tab and newline kept).
#pragma once
#include <string>
#include <string_view>

namespace kprof::render {

std::string xml_text(std::string_view text);

}  // namespace kprof::render
