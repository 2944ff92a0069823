// The counters file as the collector writes it (layout: collect/counters/counters_format.hpp).
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "collect/cupti/kernel_record.hpp"

namespace kprof::cupti {

// The session-wide part of the file.
struct CounterFileSummary {
  std::string chip, device_name, compute_capability;
  int sm_count = 0;
  std::size_t passes = 0;
  double setup_ms = 0;
  std::vector<std::pair<std::string, double>> setup_steps;  // setup_ms by step, in order
  std::vector<std::string> metrics, unsupported;
  std::map<std::string, std::string> units;
  std::uint64_t launches_seen = 0, launches_profiled = 0, launches_captured = 0;
  std::vector<std::string> errors;
  std::uint64_t error_count = 0;
};

// Writes the whole document to `path` atomically (a temporary file beside it that no planted link can redirect,
// util/atomic_file.hpp, then rename). Never throws: a failure is printed to stderr (the profiled program must not
// die of the collector).
void write_counters_file(const std::string& path, const CounterFileSummary& summary,
                         const std::deque<KernelRecord>& records, bool interrupted);

}  // namespace kprof::cupti
