// Every warp stall reason Nsight Compute reports (smsp__average_warps_issue_stalled_<reason>_per_issue_active), and
// what kprof makes of it when it dominates a kernel's waiting time: the cause it names (its remedy is the cause's,
// analyze/rule_table.cpp), a plain bound that already covers it, or an explicit "not diagnosed" (undiagnosed_stall),
// never a generic fallback.
#pragma once
#include <optional>
#include <span>
#include <string_view>

#include "analyze/cause_ids.hpp"

namespace kprof::analyze {

struct StallReason {
  std::string_view reason;   // "barrier", as in the metric name
  std::string_view meaning;  // what warps wait for, for the evidence line
  // The cause this reason names when it dominates; nullopt with `covered_by` for a reason a plain bound or
  // another rule already names (long_scoreboard: memory latency), nullopt without it: undiagnosed.
  std::optional<CauseId> cause;
  std::optional<CauseId> covered_by = std::nullopt;
};

std::span<const StallReason> stall_reasons();
// The row of this reason; nullptr for a reason this kprof does not know (a newer Nsight Compute's): undiagnosed.
const StallReason* find_stall_reason(std::string_view reason);

}  // namespace kprof::analyze
