#include "collect/kernel_name.hpp"

#include <cctype>

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

std::string instantiation_key(std::string_view demangled) {
  std::string s(demangled);
  auto erase_all = [&](std::string_view what) {
    for (std::size_t p; (p = s.find(what)) != std::string::npos;) s.erase(p, what.size());
  };
  erase_all("(anonymous namespace)::");
  erase_all("<unnamed>::");
  // Lambdas: "{lambda(float)#1}" (c++filt) and "[lambda(float) (instance 1)]" (ncu) → "lambda".
  for (char open : {'{', '['}) {
    const char close = open == '{' ? '}' : ']';
    for (std::size_t p = 0; (p = s.find(std::string(1, open) + "lambda", p)) != std::string::npos;) {
      int depth = 0;
      std::size_t e = p;
      for (; e < s.size(); ++e) {
        if (s[e] == open) ++depth;
        else if (s[e] == close && --depth == 0) break;
      }
      if (e >= s.size()) break;
      s.replace(p, e - p + 1, "lambda");
      p += 6;
    }
  }
  // Drop the return type ("void "), keep the name and template arguments up to the parameter list.
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  std::string out;
  int angle = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') ++angle;
    else if (c == '>' && angle > 0) --angle;
    else if (c == '(' && angle == 0 && !(i >= 8 && s.compare(i - 8, 8, "operator") == 0)) break;
    out += c;
  }
  // Qualifiers (identifier followed by "::"), casts before numbers ("(int)-2"), integer suffixes ("3ul"), spaces.
  std::string r;
  for (std::size_t i = 0; i < out.size();) {
    const char c = out[i];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t e = i;
      while (e < out.size() && (std::isalnum(static_cast<unsigned char>(out[e])) || out[e] == '_')) ++e;
      if (out.compare(e, 2, "::") == 0) {
        i = e + 2;
        continue;
      }
      r.append(out, i, e - i);
      i = e;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t e = i;
      while (e < out.size() && std::isdigit(static_cast<unsigned char>(out[e]))) ++e;
      r.append(out, i, e - i);
      while (e < out.size() && (out[e] == 'u' || out[e] == 'l' || out[e] == 'U' || out[e] == 'L')) ++e;
      i = e;
      continue;
    }
    if (c == '(') {  // "(int)" before a number: a cast
      std::size_t e = out.find(')', i);
      if (e != std::string::npos && e + 1 < out.size() &&
          (std::isdigit(static_cast<unsigned char>(out[e + 1])) || out[e + 1] == '-')) {
        i = e + 1;
        continue;
      }
    }
    if (!std::isspace(static_cast<unsigned char>(c))) r += c;
    ++i;
  }
  return r;
}

}  // namespace kprof
