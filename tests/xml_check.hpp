// A small XML well-formedness check for renderer tests: balanced tags, quoted attributes, known entities,
// no stray '<' or '&' in text. Returns "" when well-formed, else what is wrong and where.
#pragma once
#include <cctype>
#include <string>
#include <vector>

namespace kprof::xmltest {

inline std::string check_entities(const std::string& t, size_t at) {
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '<') return "raw '<' at " + std::to_string(at + i);
    if (t[i] != '&') continue;
    size_t semi = t.find(';', i);
    if (semi == std::string::npos) return "bare '&' at " + std::to_string(at + i);
    std::string e = t.substr(i + 1, semi - i - 1);
    if (e != "amp" && e != "lt" && e != "gt" && e != "quot" && e != "apos" && !(e.size() > 1 && e[0] == '#'))
      return "unknown entity &" + e + "; at " + std::to_string(at + i);
  }
  return "";
}

inline std::string xml_problem(const std::string& x) {
  std::vector<std::string> stack;
  size_t i = 0;
  bool root_seen = false;
  while (i < x.size()) {
    size_t lt = x.find('<', i);
    std::string text = x.substr(i, (lt == std::string::npos ? x.size() : lt) - i);
    if (auto p = check_entities(text, i); !p.empty()) return p;
    if (stack.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos) return "text outside the root";
    if (lt == std::string::npos) break;
    if (x.compare(lt, 4, "<!--") == 0) {
      size_t end = x.find("-->", lt);
      if (end == std::string::npos) return "unterminated comment";
      i = end + 3;
      continue;
    }
    if (x.compare(lt, 2, "<?") == 0) {
      size_t end = x.find("?>", lt);
      if (end == std::string::npos) return "unterminated declaration";
      i = end + 2;
      continue;
    }
    // Find the tag end, skipping quoted attribute values.
    size_t j = lt + 1;
    char quote = 0;
    for (; j < x.size(); ++j) {
      if (quote) {
        if (x[j] == quote) quote = 0;
        else if (x[j] == '<') return "'<' inside an attribute value at " + std::to_string(j);
      } else if (x[j] == '"' || x[j] == '\'') {
        quote = x[j];
      } else if (x[j] == '>') {
        break;
      }
    }
    if (j >= x.size()) return "unterminated tag at " + std::to_string(lt);
    std::string tag = x.substr(lt + 1, j - lt - 1);
    i = j + 1;
    if (!tag.empty() && tag[0] == '/') {
      std::string name = tag.substr(1);
      while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
      if (stack.empty() || stack.back() != name)
        return "closing </" + name + "> does not match <" + (stack.empty() ? "" : stack.back()) + ">";
      stack.pop_back();
      continue;
    }
    bool self = !tag.empty() && tag.back() == '/';
    if (self) tag.pop_back();
    size_t sp = tag.find_first_of(" \t\r\n");
    std::string name = tag.substr(0, sp);
    if (name.empty()) return "empty tag name at " + std::to_string(lt);
    // Attributes: name="value" pairs.
    size_t k = sp == std::string::npos ? tag.size() : sp;
    while (k < tag.size()) {
      while (k < tag.size() && std::isspace(static_cast<unsigned char>(tag[k]))) ++k;
      if (k >= tag.size()) break;
      size_t eq = tag.find('=', k);
      if (eq == std::string::npos || eq + 1 >= tag.size() || (tag[eq + 1] != '"' && tag[eq + 1] != '\''))
        return "unquoted attribute in <" + name + "> at " + std::to_string(lt);
      size_t close = tag.find(tag[eq + 1], eq + 2);
      if (close == std::string::npos) return "unterminated attribute in <" + name + ">";
      if (auto p = check_entities(tag.substr(eq + 2, close - eq - 2), lt); !p.empty()) return p;
      k = close + 1;
    }
    if (stack.empty() && root_seen) return "second root element <" + name + ">";
    root_seen = true;
    if (!self) stack.push_back(name);
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (!root_seen) return "no root element";
  return "";
}

}  // namespace kprof::xmltest
