#include "session/mode.hpp"

#include "util/errors.hpp"

namespace kprof::session {

std::string mode_names() {
  std::string s;
  for (Mode m : kModes) s += (s.empty() ? "" : ", ") + std::string(mode_name(m));
  return s;
}

Mode parse_mode(std::string_view name, std::string_view what) {
  if (auto m = mode_from_name(name); m && is_profiling_mode(*m)) return *m;
  throw Error(std::string(what) + " must be one of " + mode_names() + " (got '" + std::string(name) + "')", kExitUsage);
}

std::string_view counter_source_name(CounterSource source) {
  return source == CounterSource::Cupti ? "cupti" : "ncu";
}

CounterSource parse_counter_source(std::string_view name, std::string_view what) {
  if (name == "ncu") return CounterSource::Ncu;
  if (name == "cupti") return CounterSource::Cupti;
  throw Error(std::string(what) + " must be ncu or cupti (got '" + std::string(name) + "')", kExitUsage);
}

std::string_view timing_source_name(TimingSource source) {
  return source == TimingSource::Counters ? "counters" : "trace";
}

TimingSource parse_timing_source(std::string_view name, std::string_view what) {
  if (name == "trace") return TimingSource::Trace;
  if (name == "counters" || name == "ncu") return TimingSource::Counters;
  throw Error(std::string(what) + " must be trace or counters (ncu is accepted for counters; got '" +
                  std::string(name) + "')",
              kExitUsage);
}

}  // namespace kprof::session
