// Small helpers shared by the page parsers (internal to src/collect/ncu).
#pragma once
#include <string>
#include <vector>

#include "collect/ncu/csv_stream.hpp"
#include "collect/ncu/launch_columns.hpp"

namespace kprof::ncu::detail {

// Throws ParseError when `row` is wider than `header`, or (exact) narrower (ncu never prints that: a field was split,
// shifted or lost).
void check_width(const StreamItem& row, std::size_t header_size, long header_line, const std::string& file,
                 bool exact = false);

// Copies the non-CSV lines of the stream into the page.
void collect_messages(const CsvStream& stream, LaunchPage& page);

// Launch index by ID, appending a new launch on first sight.
class LaunchIndex {
 public:
  explicit LaunchIndex(LaunchPage& page) : page_(page) {}
  KernelLaunch& get_or_add(const LaunchColumns& cols, const StreamItem& row, const std::string& file);

 private:
  LaunchPage& page_;
  std::vector<long> slot_by_id_;  // ID → index in page.launches (+1), 0 when unseen; IDs are small and dense
  std::vector<std::pair<long, std::size_t>> sparse_;  // very large IDs, unlikely
};

}  // namespace kprof::ncu::detail
