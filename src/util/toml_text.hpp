// A check run on TOML text before toml++ sees it. Debian's toml++ 3.3.0 reaches TOML_UNREACHABLE (undefined
// behaviour; found by fuzz/fuzz_sweep) for some non-ASCII characters outside strings and comments, e.g. "Ѕ" (U+0405)
// in a key. TOML allows non-ASCII only inside strings and comments, so such text is rejected here with the line.
#pragma once
#include <string>

namespace kprof {

// Throws ParseError(origin, line) at the first non-ASCII byte outside a string or comment.
void check_toml_text(const std::string& text, const std::string& origin);

}  // namespace kprof
