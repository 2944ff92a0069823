#include "collect/kernel_name.hpp"

namespace kprof {

namespace {
// Index of the bracket opening the group that closes at `close` (scanning backwards), or npos.
std::size_t matching_open(std::string_view s, std::size_t close, char open_c, char close_c) {
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (s[i] == close_c) ++depth;
    else if (s[i] == open_c && --depth == 0) return i;
  }
  return std::string_view::npos;
}
}  // namespace

std::string function_base_name(std::string_view in) {
  // Nsight Compute prints "(anonymous namespace)" as "unnamed>" (the demangler's "<unnamed>" with its '<' lost),
  // which unbalances the template brackets: "void unnamed>::k<unnamed>::Tile<64, 32>, 1>(unnamed>::Params)".
  // Other exports keep the '<' ("void at::<unnamed>::k<...>"): a "<unnamed>" right after "::", a space or the
  // start is that namespace; after a name, the '<' opens a template argument list.
  std::string fixed;
  if (in.find("unnamed>::") != std::string_view::npos) {
    fixed.assign(in);
    for (std::size_t p = fixed.find("<unnamed>::"); p != std::string::npos; p = fixed.find("<unnamed>::", p)) {
      bool ns = p == 0 || fixed[p - 1] == ' ' || fixed[p - 1] == ':';
      if (ns) fixed.replace(p, 9, "(anonymous namespace)"), p += 21;
      else p += 1;
    }
    for (std::size_t p = fixed.find("unnamed>::"); p != std::string::npos; p = fixed.find("unnamed>::", p))
      fixed.replace(p, 8, "(anonymous namespace)"), p += 21;
    in = fixed;
  }
  std::string_view s = in;
  // Trailing qualifiers after the parameter list (" const", " [clone .kd]").
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (!s.empty() && s.back() == ']') {
    if (auto p = matching_open(s, s.size() - 1, '[', ']'); p != std::string_view::npos) s = s.substr(0, p);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  }
  if (!s.empty() && s.back() == ')') {
    if (auto p = matching_open(s, s.size() - 1, '(', ')'); p != std::string_view::npos) s = s.substr(0, p);
  }
  if (!s.empty() && s.back() == '>') {
    if (auto p = matching_open(s, s.size() - 1, '<', '>'); p != std::string_view::npos) s = s.substr(0, p);
  }
  // The last "::" or space at template depth 0 separates the base name from namespaces / a return type.
  int depth = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(') ++depth;
    else if ((c == '>' || c == ')') && depth > 0) --depth;
    else if (depth == 0 && c == ' ') begin = i + 1;
    else if (depth == 0 && c == ':' && i + 1 < s.size() && s[i + 1] == ':') begin = i + 2;
  }
  std::string out(s.substr(begin));
  return out.empty() ? std::string(s) : out;
}

}  // namespace kprof
