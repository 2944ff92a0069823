#include "util/toml_text.hpp"

#include "util/errors.hpp"

namespace kprof {

void check_toml_text(const std::string& t, const std::string& origin) {
  enum class In { code, comment, basic, literal, multi_basic, multi_literal } in = In::code;
  long line = 1;
  auto starts = [&](std::size_t i, const char* s) { return t.compare(i, std::char_traits<char>::length(s), s) == 0; };
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '\n') {
      ++line;
      if (in == In::comment || in == In::basic || in == In::literal) in = In::code;  // (an open string is toml++'s error)
      continue;
    }
    switch (in) {
      case In::code:
        if (static_cast<unsigned char>(c) >= 0x80)
          throw ParseError(origin, line, "non-ASCII character outside a string or comment");
        if (c == '#') in = In::comment;
        else if (starts(i, "\"\"\"")) { in = In::multi_basic; i += 2; }
        else if (starts(i, "'''")) { in = In::multi_literal; i += 2; }
        else if (c == '"') in = In::basic;
        else if (c == '\'') in = In::literal;
        break;
      case In::comment: break;
      case In::basic:
        if (c == '\\') ++i;  // an escaped character (a newline after it is counted on the next pass only if it is one)
        else if (c == '"') in = In::code;
        if (i < t.size() && t[i] == '\n' && c == '\\') ++line;
        break;
      case In::literal:
        if (c == '\'') in = In::code;
        break;
      case In::multi_basic:
        if (c == '\\') { if (i + 1 < t.size() && t[i + 1] == '\n') ++line; ++i; }
        else if (starts(i, "\"\"\"")) { in = In::code; i += 2; }
        break;
      case In::multi_literal:
        if (starts(i, "'''")) { in = In::code; i += 2; }
        break;
    }
  }
}

}  // namespace kprof
