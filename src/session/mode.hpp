// A profiling mode, and the two choices annotation mode adds (where counters and durations come from), each
// parsed once from its name here: front ends (command line, C++ API) turn text into these enums and nothing else
// compares mode names.
#pragma once
#include <array>
#include <string>
#include <string_view>

#include "model/mode.hpp"

namespace kprof::session {

// The enum is the model's (model/mode.hpp: the four profiling modes plus import and analyze, as profile.json records
// them); here is what a front end may ask for.
using kprof::kModes;
using kprof::Mode;
using kprof::mode_name;

// "annotation, event, ncu, nsys"
std::string mode_names();
// The profiling mode called `name`; anything else (import and analyze too) throws Error(kExitUsage) listing the
// valid names, with `what` (the flag or argument that gave it, e.g. "--prof-type") in front.
Mode parse_mode(std::string_view name, std::string_view what = "mode");

// Annotation mode's hardware counters: from Nsight Compute, or from the CUPTI range profiler inside the program.
enum class CounterSource { Ncu, Cupti };
std::string_view counter_source_name(CounterSource source);
// "ncu" or "cupti"; else Error(kExitUsage) "<what> must be ncu or cupti (got '...')".
CounterSource parse_counter_source(std::string_view name, std::string_view what = "the counter source");

// Annotation mode's durations: every launch from a tracer pass, or only those of the counter run.
enum class TimingSource { Trace, Counters };
std::string_view timing_source_name(TimingSource source);
// "trace", or "counters" ("ncu" is accepted for counters); else Error(kExitUsage).
TimingSource parse_timing_source(std::string_view name, std::string_view what = "the timing source");

}  // namespace kprof::session
