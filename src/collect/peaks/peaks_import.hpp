// Reading kprof-peaks output into the model: measured Peak figures with a source that says when and how.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "collect/peaks/peaks_report.hpp"
#include "model/device_spec.hpp"

namespace kprof {

// Parses and checks a kprof-peaks JSON document (schema, positive values, min <= value <= max, runs >= 1).
// Throws ParseError naming `source` on malformed input.
PeaksReport parse_peaks_json(const std::string& text, const std::string& source);

// One Peak per known key; source "kprof-peaks 2026-11-30, median of 7 (4213..4301 GB/s); <method>".
// Unknown keys are left out.
std::map<std::string, Peak> peaks_from_report(const PeaksReport& report);

// Puts the report's peaks into spec.measured (replacing those keys). Returns warnings for the reader:
// a device name that matches neither the spec's name nor its aliases, keys kprof does not know.
std::vector<std::string> merge_measured(DeviceSpec& spec, const PeaksReport& report);

}  // namespace kprof
