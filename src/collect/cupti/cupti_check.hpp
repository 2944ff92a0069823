// The one CUPTI result check of libkprof_inject.so, in the spirit of util/cuda_check.hpp: a failed call becomes the
// text every site records, "<call>: <CUPTI's text for the result>". It returns the text instead of throwing: the
// library runs inside the profiled program, where a failure is noted (trace header, counters file) or ends one
// step, never the program; the caller decides which. Header-only: only the injection library includes it.
//   CUPTI_FAILURE(cuptiCall, args...)   "" when cuptiCall(args...) succeeded, else "cuptiCall: <text>"
//   cupti_failure(result, what)         the same for a result already in hand, named by `what`
#pragma once
#include <cupti.h>

#include <string>
#include <string_view>

namespace kprof::cupti {

// CUPTI's text for a result ("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), or its number when CUPTI has none.
inline std::string result_string(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "CUPTI error " + std::to_string(static_cast<int>(r));
}

inline std::string cupti_failure(CUptiResult r, std::string_view what) {
  return r == CUPTI_SUCCESS ? std::string() : std::string(what) + ": " + result_string(r);
}

}  // namespace kprof::cupti

#define CUPTI_FAILURE(call, ...) ::kprof::cupti::cupti_failure(call(__VA_ARGS__), #call)
