// Markdown table building: every renderer goes through here, so cells are escaped in one place.
#pragma once
#include <string>
#include <vector>

namespace kprof::render {

// A cell's text made safe for a pipe table: "|" becomes "\|", line breaks become spaces.
std::string escape_cell(const std::string& text);

// "| a | b |\n|---|---|\n| 1 | 2 |\n": header and rows escaped; short rows are padded with empty cells.
std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

}  // namespace kprof::render
