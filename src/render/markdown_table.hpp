// Markdown table building: every renderer goes through here, so cells are escaped in one place.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace kprof::render {

// Text from a profile (kernel, range and file names, versions) never becomes markup: the escapers below are
// the only way it reaches a Markdown page.

// A name in a heading or prose: one line, Markdown's and HTML's active characters backslash-escaped
// ("<script>" → "\<script\>", "`" → "\`", "](" → "\]("), so it shows as written.
std::string md_text(std::string_view text);

// A name as a code span: one line, fenced with one backtick more than its longest backtick run.
std::string md_code(std::string_view text);

// kprof's own prose with names in it (warnings, triggers): one line; "<" outside code spans escaped, so no HTML
// reaches the page; an unclosed backtick is escaped too.
std::string md_line(std::string_view text);

// A cell's text made safe for a pipe table: md_line, and "|" becomes "\|".
std::string escape_cell(const std::string& text);

// "| a | b |\n|---|---|\n| 1 | 2 |\n": header and rows escaped; short rows are padded with empty cells.
std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

}  // namespace kprof::render
