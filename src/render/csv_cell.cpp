#include "render/csv_cell.hpp"

#include <cstdlib>

namespace kprof::render {

namespace {
bool is_number(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  const std::string t(s);
  char* end = nullptr;
  std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size() && t.find_first_of(" \t\r\n") == std::string::npos;
}
}  // namespace

std::string csv_cell(std::string_view text) {
  const bool formula = !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos &&
                       !is_number(text);
  if (!formula && text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = formula ? "\"'" : "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace kprof::render
