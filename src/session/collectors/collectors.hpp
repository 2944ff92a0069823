// The collectors' own files: each defines its collector and returns its registry row (collectors.cpp lists them).
// Only the registry and the collectors include this header.
#pragma once
#include <string>
#include <vector>

#include "session/collector.hpp"

namespace kprof::session {

CollectorRow clock_recorder_row();  // clocks.cpp
CollectorRow tracer_row();          // tracer.cpp
CollectorRow cupti_counters_row();  // cupti_counters.cpp
CollectorRow ncu_metrics_row();     // ncu.cpp
CollectorRow ncu_full_row();        // ncu.cpp
CollectorRow compiled_code_row();   // compiled_code.cpp

// The kernels worth counters: after a tracer pass, the function names of the kernel groups that take at least the
// spec's minimum share of the traced GPU time (a regex "^(a|b)$" on base names, unanchored for ncu, whose names
// may keep namespaces and template arguments; empty when every kernel qualifies or no trace is there). The user's
// own --kernel-regex wins. Groups left out are reported as such by assemble().
std::string significant_kernels(const CollectorContext& ctx, std::vector<std::string>* left_out, bool anchored = true);

}  // namespace kprof::session
