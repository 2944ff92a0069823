// The long format: `ncu --csv --page details` (sections, labelled metrics, rule results) and the output of a
// live `ncu --csv --metrics a,b,c` run (one raw metric per row, program output and ==PROF== lines mixed in).
#pragma once
#include "collect/ncu/csv_stream.hpp"
#include "collect/ncu/launch_columns.hpp"

namespace kprof::ncu {

// Rows are routed by content:
//   a non-empty "Rule Name"              → KernelLaunch::rules (speedup parsed from "Estimated Speedup")
//   "Metric Name" holding "__" (raw name) → KernelLaunch::metrics[name], base units
//   any other metric row                  → KernelLaunch::sections (label as printed, value in base units)
// Rows may have fewer fields than the header (ncu ends metric rows early); more is a ParseError.
LaunchPage parse_details_page(const CsvStream& stream);

}  // namespace kprof::ncu
