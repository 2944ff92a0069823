#include "util/toml_text.hpp"

#include "util/errors.hpp"

namespace kprof {

void check_toml_text(const std::string& t, const std::string& origin) {
  long line = 1;
  for (char ch : t) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') { ++line; continue; }
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
      throw ParseError(origin, line, "control character (byte " + std::to_string(c) + ") in TOML text");
    if (c >= 0x80)
      throw ParseError(origin, line, "non-ASCII character: kprof's TOML files must be ASCII (toml++ 3.3.0 has "
                                     "undefined behaviour on some non-ASCII text)");
  }
}

toml::table parse_toml(const std::string& text, const std::string& origin) {
  try {
    check_toml_text(text, origin);
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw ParseError(origin, static_cast<long>(e.source().begin.line), std::string(e.description()));
  }
}

long toml_line(const toml::node& n) { return static_cast<long>(n.source().begin.line); }

}  // namespace kprof
