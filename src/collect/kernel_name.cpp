#include "collect/kernel_name.hpp"

#include <cctype>
#include <map>
#include <tuple>
#include <vector>

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

namespace {
// Matching ')' for every '(' of `s` (npos when unbalanced), in one pass.
std::vector<std::size_t> paren_matches(const std::string& s) {
  std::vector<std::size_t> match(s.size(), std::string::npos), open;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') open.push_back(i);
    else if (s[i] == ')' && !open.empty()) {
      match[open.back()] = i;
      open.pop_back();
    }
  }
  return match;
}
bool digits_at(const std::string& s, std::size_t i, std::size_t* end) {
  std::size_t e = i;
  while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
  *end = e;
  return e > i;
}
}  // namespace

std::string instantiation_key(std::string_view demangled) {
  // 1. Anonymous namespaces, in either spelling.
  std::string a;
  a.reserve(demangled.size());
  // ncu also prints "unnamed>::" (its '<' lost); a "<unnamed>::" right after a name is that spelling behind a
  // template's own '<' ("k<unnamed>::Tile<64>>"), which stays.
  for (std::size_t i = 0; i < demangled.size();) {
    const bool after_name = i > 0 && (std::isalnum(static_cast<unsigned char>(demangled[i - 1])) || demangled[i - 1] == '_');
    if (demangled.compare(i, 23, "(anonymous namespace)::") == 0) i += 23;
    else if (demangled.compare(i, 11, "<unnamed>::") == 0 && after_name) a += '<', i += 11;
    else if (demangled.compare(i, 11, "<unnamed>::") == 0) i += 11;
    else if (demangled.compare(i, 10, "unnamed>::") == 0) i += 10;
    else a += demangled[i++];
  }
  // 2. Lambdas: "{lambda(P)#N}" (c++filt) and "[lambda(P) (instance N)]" (ncu) both become "lambda(P)#N".
  std::string b;
  b.reserve(a.size());
  {
    const auto match = paren_matches(a);
    for (std::size_t i = 0; i < a.size();) {
      if ((a[i] == '{' || a[i] == '[') && a.compare(i + 1, 7, "lambda(") == 0 && match[i + 7] != std::string::npos) {
        const std::size_t close = match[i + 7];
        std::size_t e = 0;
        if (a[i] == '{' && close + 1 < a.size() && a[close + 1] == '#' && digits_at(a, close + 2, &e) && e < a.size() &&
            a[e] == '}') {
          b.append(a, i + 1, close - i).append("#").append(a, close + 2, e - close - 2);
          i = e + 1;
          continue;
        }
        if (a[i] == '[' && a.compare(close + 1, 11, " (instance ") == 0 && digits_at(a, close + 12, &e) &&
            a.compare(e, 2, ")]") == 0) {
          b.append(a, i + 1, close - i).append("#").append(a, close + 12, e - close - 12);
          i = e + 2;
          continue;
        }
      }
      b += a[i++];
    }
  }
  // 3. Without the return type, up to the kernel's own parameter list; a parameter list of an enclosing function
  //    ("f(T1, float)::lambda..." or "operator()() const::") is dropped: ncu prints template parameter names there.
  if (b.rfind("void ", 0) == 0) b.erase(0, 5);
  std::string c;
  c.reserve(b.size());
  {
    const auto match = paren_matches(b);
    int angle = 0;
    for (std::size_t i = 0; i < b.size();) {
      const char ch = b[i];
      if (ch == '<') ++angle;
      else if (ch == '>' && angle > 0) --angle;
      else if (ch == '(') {
        const bool op = i >= 8 && b.compare(i - 8, 8, "operator") == 0;
        const bool lambda = i >= 6 && b.compare(i - 6, 6, "lambda") == 0;
        const std::size_t close = match[i];
        if (!op && !lambda && close != std::string::npos) {
          std::size_t after = close + 1;
          if (b.compare(after, 6, " const") == 0) after += 6;
          if (b.compare(after, 2, "::") == 0) {
            i = after;  // the enclosing function's parameters (and const) go; "::" stays
            continue;
          }
        }
        if (angle == 0 && !op && !lambda) break;  // the kernel's own parameter list
      }
      c += ch;
      ++i;
    }
  }
  // 4. Qualifiers (identifier followed by "::"), "void " return types, casts before numbers ("(int)-2"), integer suffixes ("3ul"), spaces.
  std::string r;
  r.reserve(c.size());
  for (std::size_t i = 0; i < c.size();) {
    const char ch = c[i];
    if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
      std::size_t e = i;
      while (e < c.size() && (std::isalnum(static_cast<unsigned char>(c[e])) || c[e] == '_')) ++e;
      if (c.compare(e, 2, "::") == 0) {
        i = e + 2;
        continue;
      }
      if (c.compare(i, e - i, "void") == 0 && e < c.size() && c[e] == ' ') {  // a nested function's return type
        i = e + 1;                                                              // (ncu prints it, c++filt not)
        continue;
      }
      r.append(c, i, e - i);
      i = e;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      std::size_t e = i;
      while (e < c.size() && std::isdigit(static_cast<unsigned char>(c[e]))) ++e;
      r.append(c, i, e - i);
      while (e < c.size() && (c[e] == 'u' || c[e] == 'l' || c[e] == 'U' || c[e] == 'L')) ++e;
      i = e;
      continue;
    }
    if (ch == '(') {  // "(int)" or "(unsigned long)" right before a number: a cast (looked for within 32 characters)
      std::size_t e = i + 1;
      while (e < c.size() && e < i + 32 && (std::isalpha(static_cast<unsigned char>(c[e])) || c[e] == ' ')) ++e;
      if (e > i + 1 && e + 1 < c.size() && c[e] == ')' &&
          (std::isdigit(static_cast<unsigned char>(c[e + 1])) || c[e + 1] == '-')) {
        i = e + 1;
        continue;
      }
    }
    if (!std::isspace(static_cast<unsigned char>(ch))) r += ch;
    ++i;
  }
  return r;
}

namespace {

// A name in instantiation_key's spelling as a tree: the head ("gemm"), its template arguments, what follows them
// ("::lambda(float)#2" of a lambda inside a template), and the whole text.
struct NameNode {
  std::string text, head, tail;
  std::vector<NameNode> args;
};

NameNode parse_name(std::string_view s) {
  NameNode n;
  n.text = std::string(s);
  const std::size_t lt = s.find('<');
  if (lt == std::string_view::npos) {
    n.head = n.text;
    return n;
  }
  int depth = 0;
  std::size_t start = lt + 1, close = std::string_view::npos;
  for (std::size_t i = lt + 1; i < s.size() && close == std::string_view::npos; ++i) {
    const char c = s[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    else if (c == '>' && depth == 0) close = i;
    else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if ((c == ',' && depth == 0) || close == i) {
      n.args.push_back(parse_name(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (close == std::string_view::npos) {  // unbalanced: one opaque name
    n.args.clear();
    n.head = n.text;
    return n;
  }
  n.head = std::string(s.substr(0, lt));
  n.tail = std::string(s.substr(close + 1));
  return n;
}

// At most ~40 characters: the head and the end, where a functor's name usually sits
// ("func_wrapper_t<…MaxNanFunctor<float>>").
std::string shortened(const std::string& s) {
  constexpr std::size_t kMax = 40, kHead = 16;
  return s.size() <= kMax ? s : s.substr(0, kHead) + "…" + s.substr(s.size() - (kMax - kHead - 1));
}

// What tells `nodes` apart, one string per node: the head with the fewest differing template arguments (in order,
// each narrowed down the same way) that give every two different nodes different strings.
std::vector<std::string> what_differs(const std::vector<const NameNode*>& nodes) {
  std::vector<std::string> out(nodes.size());
  bool same_shape = true;
  for (const NameNode* n : nodes)
    same_shape = same_shape && n->head == nodes[0]->head && n->tail == nodes[0]->tail &&
                 n->args.size() == nodes[0]->args.size();
  if (nodes[0]->args.empty() && same_shape) {
    for (std::size_t i = 0; i < nodes.size(); ++i) out[i] = shortened(nodes[i]->text);
    return out;
  }
  if (!same_shape) {
    // Nodes of several shapes (uniform_and_transform<…> beside two normal_and_transform<…>): each shape class is
    // told apart within itself; a node alone in its class is named by its head when no other node shares it.
    std::map<std::tuple<std::string, std::string, std::size_t>, std::vector<std::size_t>> classes;
    std::map<std::string, int> heads;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      classes[{nodes[i]->head, nodes[i]->tail, nodes[i]->args.size()}].push_back(i);
      ++heads[nodes[i]->head];
    }
    for (const auto& [key, members] : classes) {
      if (members.size() == 1) {
        const NameNode* n = nodes[members[0]];
        out[members[0]] = n->text.size() > 40 && heads[n->head] == 1 ? n->head + (n->args.empty() ? "" : "<…>")
                                                                         : shortened(n->text);
        continue;
      }
      std::vector<const NameNode*> sub;
      for (std::size_t i : members) sub.push_back(nodes[i]);
      const std::vector<std::string> d = what_differs(sub);
      for (std::size_t k = 0; k < members.size(); ++k) out[members[k]] = d[k];
    }
    return out;
  }
  const std::size_t arity = nodes[0]->args.size();
  std::vector<std::size_t> differing;
  for (std::size_t a = 0; a < arity; ++a)
    for (const NameNode* n : nodes)
      if (n->args[a].text != nodes[0]->args[a].text) {
        differing.push_back(a);
        break;
      }
  std::vector<std::vector<std::string>> parts(nodes.size());
  std::vector<std::size_t> shown;
  for (std::size_t a : differing) {
    std::vector<const NameNode*> sub;
    for (const NameNode* n : nodes) sub.push_back(&n->args[a]);
    const std::vector<std::string> d = what_differs(sub);
    for (std::size_t i = 0; i < nodes.size(); ++i) parts[i].push_back(d[i]);
    shown.push_back(a);
    bool apart = true;
    for (std::size_t i = 0; i < nodes.size() && apart; ++i)
      for (std::size_t j = i + 1; j < nodes.size() && apart; ++j)
        apart = nodes[i]->text == nodes[j]->text || parts[i] != parts[j];
    if (apart) break;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::string s = nodes[i]->head + "<";
    std::size_t next = 0;  // the next argument position to account for
    for (std::size_t k = 0; k < shown.size(); ++k) {
      if (shown[k] > next) s += "…,";
      s += parts[i][k];
      if (shown[k] + 1 < arity) s += ",";
      next = shown[k] + 1;
    }
    if (next < arity) s += "…";
    out[i] = s + ">";  // what follows the arguments (a lambda's name) is the same for all: left out
  }
  return out;
}

}  // namespace

std::vector<std::string> distinguishing_names(const std::vector<std::string>& demangled) {
  std::vector<NameNode> nodes;
  for (const auto& d : demangled) nodes.push_back(parse_name(instantiation_key(d)));
  std::vector<const NameNode*> ptrs;
  for (const auto& n : nodes) ptrs.push_back(&n);
  if (ptrs.empty()) return {};
  return what_differs(ptrs);
}

}  // namespace kprof
