// Runs Nsight Compute on a program and leaves CSV pages (and, in ncu mode, the .ncu-rep) in a work directory.
// Parsing is not done here: the files go through the same importer as `kprof analyze`.
#pragma once
#include <string>
#include <vector>

#include "util/process.hpp"

namespace kprof::ncu {

// What ncu collects: a compact metric list (annotation mode) or every section with the source (ncu mode).
enum class NcuCollection { metric_list, full_set };

struct NcuRunOptions {
  NcuCollection collection = NcuCollection::metric_list;
  std::vector<std::string> command;     // program and its arguments
  std::string work_dir;                 // where CSVs, logs and the report go
  std::string ncu = "ncu";              // executable (PATH lookup)
  std::string clock_control = "none";   // passed as --clock-control
  std::vector<std::string> metrics;     // the metric list (metric_list); full_set: added to the set
  std::string kernel_regex;             // -k regex:<re>
  std::string nvtx_include;             // --nvtx-include
  int launch_skip = 0;                  // -s
  int launch_count = 0;                 // -c (0 = no limit)
  // One launch per kernel and launch configuration (--launch-count 1 --filter-mode per-launch-config): the
  // counters of every kernel group, once. Off with --all-launches or the user's own -s/-c.
  bool first_launch_per_kernel = true;
  // Tell kernels apart by mangled name (ncu --kernel-name-base mangled): off when the kernel regex is the
  // user's, which is searched in the function's base name as documented.
  bool mangled_identity = false;
  std::vector<std::string> extra_args;  // passed to ncu verbatim
};

struct NcuRunResult {
  ProcessResult process;            // ncu's own exit status
  std::vector<std::string> csv_files;  // pages written (raw first)
  std::string report_file;          // .ncu-rep (full_set)
  std::string log_file;             // ncu's and the program's console output
  std::vector<std::string> messages;   // ==ERROR==/==WARNING== lines
  bool program_failed = false;      // "The application returned an error code"
  std::string failure;              // one-line reason when something went wrong
};

// The argument vector for the collection run (exposed for tests and for --dry-run).
std::vector<std::string> ncu_collect_args(const NcuRunOptions& opt);

// Runs ncu. Throws Error with a specific exit code for: ncu missing (5), no counter permission (6),
// no GPU (4). A program that fails or is interrupted is reported in the result, not thrown, so the
// caller can still write whatever was measured.
NcuRunResult run_ncu(const NcuRunOptions& opt);

// Exports the pages the importer reads (raw, details, source, session; base units) from an .ncu-rep report with
// `<ncu_exe> --import <report> --csv --page <page>` into <out_dir>/ncu_<page>.csv. Returns the files written;
// a page that fails to export is a line in `messages`. ncu mode runs it on its report; `kprof analyze x.ncu-rep`
// on the user's.
std::vector<std::string> export_report_pages(const std::string& ncu_exe, const std::string& report,
                                             const std::string& out_dir, std::vector<std::string>& messages);

// Reads ncu's console log and classifies known failures (exposed for tests on captured text).
void classify_ncu_log(const std::string& log, NcuRunResult& result);

}  // namespace kprof::ncu
