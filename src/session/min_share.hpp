// The counter passes' minimum share of GPU time (--counters-min-share): after a tracer pass, kernels under that
// share of the traced GPU time get no counters (the counter passes leave them out, the assembled run says why in
// one line). The share is computed here only, for the passes and for the assembly alike.
#pragma once
#include <string>
#include <vector>

#include "model/profile.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

// Whether the filter applies: a share is set, and the user chose neither the kernels (--kernel-regex) nor every
// launch (--all-launches).
bool min_share_applies(const RunSpec& spec);

// The kernel functions of `stages` split by their share of its GPU time (the time of all their groups): at least
// `min_share_pct` or under it, each in name order. Both empty when the stages took no time.
struct ShareSplit {
  std::vector<std::string> kept;
  std::vector<std::string> left_out;
};
ShareSplit split_by_min_share(const std::vector<Stage>& stages, double min_share_pct);

}  // namespace kprof::session
