// Reading kprof's TOML files (thresholds, sweeps): the text is checked before toml++ sees it, then parsed, and
// toml++'s errors become kprof's ParseError, so both readers fail alike.
//
// The check run on TOML text before toml++ sees it. Debian's toml++ 3.3.0 reaches TOML_UNREACHABLE (undefined
// behaviour) in is_non_ascii_horizontal_whitespace for most characters from U+00A0 on, e.g. "Ѕ" (U+0405) in a key;
// fuzz_sweep found it three times, the last two with the character inside a quoted string on a line toml++ then
// rejects. The only check that rules it out is to let no non-ASCII byte through: kprof's TOML files (thresholds,
// sweeps) are ASCII, and every shipped one is.
#pragma once
#include <toml++/toml.h>

#include <string>

namespace kprof {

// Throws ParseError(origin, line) at the first non-ASCII byte, or the first control character other than tab, CR
// and LF (which TOML does not allow anywhere).
void check_toml_text(const std::string& text, const std::string& origin);

// The document in `text`: check_toml_text, then toml++; a syntax error throws ParseError(origin, line, toml++'s
// description of it).
toml::table parse_toml(const std::string& text, const std::string& origin);

// The line a node starts on, for a ParseError about its value.
long toml_line(const toml::node& n);

}  // namespace kprof
