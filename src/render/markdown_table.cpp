#include "render/markdown_table.hpp"

namespace kprof::render {

std::string escape_cell(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '|') {
      out += "\\|";
    } else if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

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
