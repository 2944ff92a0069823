// A profiling mode, and the two choices annotation mode adds (where counters and durations come from), each
// parsed once from its name here: front ends (command line, C++ API) turn text into these enums and nothing else
// compares mode names.
#pragma once
#include <array>
#include <string>
#include <string_view>

namespace kprof::session {

enum class Mode { Annotation, Event, Ncu, Nsys };
inline constexpr std::array<Mode, 4> kModes{Mode::Annotation, Mode::Event, Mode::Ncu, Mode::Nsys};

// "annotation", "event", "ncu", "nsys": the name on the command line, in the artifact path and in profile.json.
std::string_view mode_name(Mode mode);
// "annotation, event, ncu, nsys"
std::string mode_names();
// The mode called `name`; anything else throws Error(kExitUsage) listing the valid names, with `what` (the flag or
// argument that gave it, e.g. "--prof-type") in front.
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
