// A CSV cell holding text from a profile (kernel, range, API and file names, SASS): the one escaper of every CSV
// kprof writes (kernels.csv, api.csv, the SASS pages).
#pragma once
#include <string>
#include <string_view>

namespace kprof::render {

// RFC 4180 quoting when the text holds ',', '"', CR or LF ('"' doubled), and formula injection defused: text a
// spreadsheet would run as a formula (starting with '=', '+', '-', '@', tab or CR) gets a leading "'" and is
// quoted. A plain number ("-3", "1e-5") is left as it is.
std::string csv_cell(std::string_view text);

}  // namespace kprof::render
