// The remedies kprof names: one id per thing to try, whichever rule (kprof's or Nsight Compute's) points to it.
// docs/analysis.md "Remedies" lists them with the causes that lead to each.
#pragma once
#include <string>

namespace kprof::analyze {

struct Remedy {
  const char* id;
  const char* name;       // what the contract prints
  const char* rationale;  // one sentence
};

// The remedy with this id; nullptr for an unknown id (an Nsight Compute rule kprof has no remedy for).
const Remedy* find_remedy(const std::string& id);

}  // namespace kprof::analyze
