#include "render/markdown_table.hpp"

#include <algorithm>

namespace kprof::render {

namespace {

// Line breaks (CR, LF, CRLF) to one space each.
std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::size_t backtick_run(std::string_view s, std::size_t i) {
  std::size_t n = 0;
  while (i + n < s.size() && s[i + n] == '`') ++n;
  return n;
}

// md_line's body; `pipes`: escape "|" too (inside code spans as well: GFM tables need it there).
std::string escape_outside_code(std::string_view text, bool pipes) {
  std::string s = one_line(text), out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '`') {
      std::size_t n = backtick_run(s, i), close = std::string::npos;
      for (std::size_t j = i + n; j < s.size();) {
        std::size_t m = backtick_run(s, j);
        if (m == n) {
          close = j;
          break;
        }
        j += m ? m : 1;
      }
      if (close == std::string::npos) {  // an unclosed run is text: escaped, so it opens nothing
        for (std::size_t k = 0; k < n; ++k) out += "\\`";
        i += n;
        continue;
      }
      for (std::size_t k = i; k < close + n; ++k) out += (pipes && s[k] == '|') ? std::string("\\|") : std::string(1, s[k]);
      i = close + n;
      continue;
    }
    char c = s[i++];
    if (c == '<') out += '\\';  // "<" is what opens HTML; ">" alone never does inside a line
    if (pipes && c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string md_text(std::string_view text) {
  std::string s = one_line(text), out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    // "](" is what makes a link or an image; "[66x1x1]" alone stays as it is.
    bool link = c == ']' && i + 1 < s.size() && s[i + 1] == '(';
    if (c == '\\' || c == '`' || c == '*' || c == '<' || c == '>' || c == '|' || link) out += '\\';
    out += c;
  }
  return out;
}

std::string md_code(std::string_view text) {
  std::string s = one_line(text);
  std::size_t longest = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = backtick_run(s, i);
    longest = std::max(longest, n);
    i += n ? n : 1;
  }
  std::string fence(longest + 1, '`');
  bool pad = !s.empty() && (s.front() == '`' || s.back() == '`');
  return fence + (pad ? " " : "") + s + (pad ? " " : "") + fence;
}

std::string md_line(std::string_view text) { return escape_outside_code(text, false); }

std::string escape_cell(const std::string& text) { return escape_outside_code(text, true); }

namespace {
std::string table_row(const std::vector<std::string>& cells, std::size_t width) {
  std::string line = "|";
  for (std::size_t i = 0; i < width; ++i) {
    line += ' ';
    line += i < cells.size() ? escape_cell(cells[i]) : std::string();
    line += " |";
  }
  return line + "\n";
}
}  // namespace

std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string out = table_row(header, header.size());
  out += "|";
  for (std::size_t i = 0; i < header.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& r : rows) out += table_row(r, header.size());
  return out;
}

}  // namespace kprof::render
