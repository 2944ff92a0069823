// Nsight Compute's source page: per kernel, per file, per CUDA line the line's counters and the SASS
// instructions compiled from it with theirs. Counter columns are stored once per kernel; every line and
// instruction keeps its values aligned with those columns, so a wide page stays compact.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/json_support.hpp"

namespace kprof {

struct SourceCounters {
  std::vector<std::optional<double>> values;  // aligned with SourceKernel::columns; nullopt for "-" / empty
  std::map<std::string, std::string> text;    // non-numeric cells ("Global(16)") by column name
};
KPROF_JSON_DECLARE(SourceCounters)

struct SassInstruction {
  std::string address;  // "0x7fb31b7a9640"
  std::string sass;     // "S2R R11, SR_LANEID" (leading indentation removed)
  SourceCounters counters;
};
KPROF_JSON_DECLARE(SassInstruction)

struct SourceLine {
  int line = 0;
  std::string source;
  SourceCounters counters;
  std::vector<SassInstruction> sass;  // instructions attributed to this line, in address order as printed
};
KPROF_JSON_DECLARE(SourceLine)

struct SourceFile {
  std::string path;
  std::vector<SourceLine> lines;
};
KPROF_JSON_DECLARE(SourceFile)

struct SourceKernel {
  std::string name;                  // demangled signature as printed
  std::string function;              // base name
  std::vector<std::string> columns;  // counter columns in printed order ("Warp Stall Sampling (All Samples)", ...)
  std::vector<SourceFile> files;     // CUDA view (with SASS under each line when both were printed)
  std::vector<SassInstruction> sass; // SASS-only view (`--print-source sass`)

  std::optional<std::size_t> column(const std::string& name) const;
  std::optional<double> value(const SourceCounters& c, const std::string& column_name) const;
};
KPROF_JSON_DECLARE(SourceKernel)

struct SourceView {
  std::vector<SourceKernel> kernels;  // in printed order; a kernel printed twice appears twice
};
KPROF_JSON_DECLARE(SourceView)

struct HotLine {
  std::string kernel;   // function base name
  std::string file;
  int line = 0;
  std::string source;
  double samples = 0;
  double share_pct = 0;  // of the kernel's total over all its lines
};
KPROF_JSON_DECLARE(HotLine)

inline constexpr const char* kStallSamplesColumn = "Warp Stall Sampling (All Samples)";

// The `n` CUDA lines with the most `metric`, over all kernels (optionally only kernels whose function is
// `function`), highest first; ties keep printed order. Lines without the metric are skipped.
std::vector<HotLine> hottest_lines(const SourceView& view, std::size_t n, const std::string& function = "",
                                   const std::string& metric = kStallSamplesColumn);

}  // namespace kprof
