// Small helpers shared by the page parsers (internal to src/collect/ncu).
#pragma once
#include <map>
#include <string>
#include <utility>
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

// Launch index by (process ID, launch ID), appending a new launch on first sight. Two processes' launches are two
// launches even when their IDs are equal (two exports of different processes, concatenated).
class LaunchIndex {
 public:
  explicit LaunchIndex(LaunchPage& page) : page_(page) {}
  KernelLaunch& get_or_add(const LaunchColumns& cols, const StreamItem& row, const std::string& file);

 private:
  LaunchPage& page_;
  long first_pid_ = 0;
  bool have_pid_ = false;
  std::vector<long> slot_by_id_;  // the first process's IDs → index in page.launches (+1), 0 when unseen; dense
  std::map<std::pair<long, long>, std::size_t> others_;  // (pid, ID) of other processes, and very large IDs
};

}  // namespace kprof::ncu::detail
