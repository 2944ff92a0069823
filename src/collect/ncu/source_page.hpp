// `ncu --csv --page source --print-source cuda,sass|sass|cuda`: blocks introduced by "File Path" /
// "Function Name" (CUDA view) or "Kernel Name" (SASS-only view) rows, each followed by a header row and data rows.
#pragma once
#include "collect/ncu/csv_stream.hpp"
#include "model/source_view.hpp"

namespace kprof::ncu {

// CUDA rows carry a line number; SASS rows (empty line number, an address) attach to the CUDA line above them.
// "..." rows (elided instructions) are skipped. A block whose file was already seen for the current kernel, or
// a new "Kernel Name" row, starts a new SourceKernel (ncu prints one block per profiled launch).
// Throws ParseError on rows before any header, rows wider than their header, or a header with neither
// "Line No" nor "Address".
SourceView parse_source_page(const CsvStream& stream);

}  // namespace kprof::ncu
