// The remedies kprof names: one id per thing to try, whichever rule (kprof's or Nsight Compute's) points to it.
// docs/analysis.md "Remedies" lists them with the causes that lead to each.
#pragma once
#include "analyze/cause_ids.hpp"

namespace kprof::analyze {

struct Remedy {
  RemedyId id;
  const char* name;       // what the contract prints
  const char* rationale;  // one sentence
  // It changes the roof itself (tensor cores) or saves time outside the kernels (launch gaps): the kernel's
  // current roofline floor does not bound its estimate.
  bool changes_roof = false;
};

// What an estimate for this remedy assumes, one sentence (Opportunity::assumes).
const char* remedy_assumption(RemedyId id);

// The remedy with this id; nullptr for none (every other id has a row: tests/test_rule_table.cpp).
const Remedy* find_remedy(RemedyId id);

// True for remedies that change the roof (Remedy::changes_roof).
bool unbounded_by_floor(RemedyId id);
// Remedies that cut the bytes a kernel moves (coalescing, locality, no local memory, the declared minimum): the
// current roofline floor is computed from those very bytes, so it does not bound them either (a stride-2 stream at
// the DRAM roof has 50% to gain from coalescing, not the 4% left to the roof).
bool cuts_traffic(RemedyId id);
// A change to the kernel's own code (access pattern, shared-memory layout, spills, reuse, instruction mix): not a
// library caller's to make.
bool in_kernel(RemedyId id);

}  // namespace kprof::analyze
