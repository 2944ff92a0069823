// Raw records (absolute CUPTI ns, string refs) → the typed Trace model: relative timestamps, demangled names,
// NVTX marker pairs rebuilt into ranges with their nesting, every list sorted by start. Both trace readers
// (kprof binary, CUPTI JSONL) end here.
#pragma once
#include <string>
#include <vector>
#include "collect/trace/trace_format.hpp"
#include "model/trace.hpp"

namespace kprof {

struct RawTrace {
  std::string source;                 // file name, for errors
  std::string format;                 // TraceInfo::format
  trace_format::FileHeader header{};  // zeroed when the format has none
  std::vector<trace_format::RawKernel> kernels;
  std::vector<trace_format::RawMemcpy> memcpys;
  std::vector<trace_format::RawMemset> memsets;
  std::vector<trace_format::RawSync> syncs;
  std::vector<trace_format::RawApi> api_calls;
  std::vector<trace_format::RawMarker> markers;
  std::vector<trace_format::RawGraph> graphs;
  std::vector<trace_format::RawOverhead> overheads;
  std::string strings;                // NUL-terminated strings; StringRef = offset
  std::vector<std::string> warnings;
};

// Throws ParseError when a string reference points outside the strings section.
Trace assemble_trace(RawTrace raw);

// Pairs NVTX ranges into push/pop nesting per thread (depth, parent); ranges that cross a sibling or end on
// another thread become push_pop = false. `ranges` must be sorted by start. Exposed for tests.
void compute_nvtx_nesting(std::vector<TraceNvtxRange>& ranges);

}  // namespace kprof
