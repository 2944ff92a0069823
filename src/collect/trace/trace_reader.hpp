// Reads a CUPTI activity trace into the typed model. Two formats, detected from the first bytes:
//   - kprof-trace/1 (binary, written by libkprof_inject.so; layout in trace_format.hpp)
//   - CUPTI JSONL: one object per line, as the H200 probe tracer wrote it
//     {"kind":"kernel","name":<mangled>,"start","end","stream","grid":[3],"block":[3],"regs","smem_static",
//      "smem_dyn","corr"} / {"kind":"memcpy","bytes","start","end","stream","copyKind"[,"flags"]} /
//     {"kind":"memset","bytes","start","end","stream"}; optional "device","context". Other kinds are counted
//     in TraceInfo::warnings and skipped. A memcpy without "flags" (CUPTI's) is read as asynchronous.
// A malformed or truncated file throws ParseError naming the file and the line (JSONL) or byte offset (binary).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include "model/trace.hpp"

namespace kprof {

Trace read_trace(const std::filesystem::path& file);
// Same, from bytes already in memory; `source` names them in errors.
Trace parse_trace(std::string_view bytes, const std::string& source);
Trace parse_kprof_trace(std::string_view bytes, const std::string& source);
Trace parse_cupti_jsonl(std::string_view text, const std::string& source);

}  // namespace kprof
