// Text from profiles (kernel names, NVTX ranges, program output) is bytes: anything that is not valid UTF-8 is
// replaced with U+FFFD before it reaches JSON (which refuses it) or a report.
#pragma once
#include <string>
#include <string_view>

namespace kprof {

bool is_valid_utf8(std::string_view s);
std::string valid_utf8(std::string_view s);  // each invalid byte becomes U+FFFD
inline void make_valid_utf8(std::string& s) {
  if (!is_valid_utf8(s)) s = valid_utf8(s);
}

// Text for a terminal (error messages that quote a CSV cell, a path, a name): valid UTF-8 as above, and control
// characters that a terminal would act on (ESC sequences, CR, BEL, C1 controls) written as "\x1b" / "\u009b";
// line feeds and tabs are kept.
std::string terminal_text(std::string_view s);

}  // namespace kprof
