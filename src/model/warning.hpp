// A warning about a run: what it concerns (a code an agent or a test can filter on) and the sentence a person reads.
// The code says which part of the measurement the warning is about; the text says what happened and what it means.
#pragma once
#include <string>
#include <string_view>

#include "model/json_support.hpp"

namespace kprof {

enum class WarningCode {
  Other,        // anything not below
  Trace,        // the tracer's records: missing, dropped, interrupted, CUPTI errors, malformed NVTX ranges
  Counters,     // hardware counters: not written, not read, not profiled for a kernel, unavailable metrics
  Ncu,          // Nsight Compute's run and pages: errors, pages left out, processes mixed
  ProgramRun,   // a pass's run of the profiled program failed or was cut short
  Clocks,       // GPU clocks not recorded, throttled, a lock that ncu may override
  Filter,       // what --nvtx-include / --kernel-regex / the minimum share left out
  Declared,     // the plan's declared work does not match what ran
  Device,       // device peaks unknown or measured on another device
  Implausible,  // counter values that cannot be right (over 100%, NaN)
};

// "other", "trace", "counters", "ncu", "program-run", "clocks", "filter", "declared", "device", "implausible".
std::string_view warning_code_name(WarningCode code);

struct Warning {
  WarningCode code = WarningCode::Other;
  std::string text;
  std::string group;  // the kernel group it is about (its label), "" for the whole run
  bool operator==(const Warning&) const = default;
};

// JSON: {"code": "...", "text": "...", "group": "..." (when there is one)}; a plain string (profile.json from before the codes) reads as code "other".
void to_json(json& j, const Warning& w);
void from_json(const json& j, Warning& w);

}  // namespace kprof
