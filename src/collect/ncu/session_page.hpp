// `ncu --csv --page session`: titled key/value tables ("Launch Settings", "Session Info", "Processes",
// "Device Attributes"), each a title line, a two-column header and rows.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "collect/ncu/csv_stream.hpp"

namespace kprof::ncu {

struct SessionInfo {
  std::string profiler_command_line;  // "Profiler Command Line": the full ncu invocation, application included
  std::string ncu_version;            // "2025.3.1.0" from "Nsight Compute Target"
  std::string cuda_version;           // "13.0"
  std::string device_name;            // display_name of the first device
  std::string compute_capability;     // "9.0" from compute_capability_major/minor
  int sm_count = 0;                   // multiprocessor_count
  std::vector<std::string> process_names;  // "Process Name" column of "Processes"
  // Every table: title → key → value (first value column; for "Device Attributes" that is device 0).
  std::map<std::string, std::map<std::string, std::string>> tables;
};

// Throws ParseError when no key/value table is found or a table row is wider than its header.
SessionInfo parse_session_page(const CsvStream& stream);

// True when the first CSV row looks like a session table header ("Launch Attribute", "Session Attribute", ...).
bool is_session_header(const std::vector<std::string>& fields);

}  // namespace kprof::ncu
