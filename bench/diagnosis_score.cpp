// Prints the diagnosis corpus score table (bench/RESULTS.md §9): every designed case under every capture source,
// kprof's cause and first fix against the designed ones, and Nsight Compute's own top rule as the anchor.
#include <iostream>
#include <string>

#include "diagnosis_corpus.hpp"

// `diagnosis_score --holdout`: the held-out library kernels (examples/programs/diag_holdout_expected.toml).
int main(int argc, char** argv) {
  const bool holdout = argc > 1 && std::string(argv[1]) == "--holdout";
  auto scores = kprof::corpus::score_all(holdout ? kprof::corpus::holdout_file() : kprof::corpus::expected_file());
  std::cout << kprof::corpus::score_table(scores) << "\n";
  for (auto src : {kprof::corpus::Source::annotation_ncu, kprof::corpus::Source::annotation_cupti,
                   kprof::corpus::Source::ncu_full}) {
    int n = 0, cause = 0, fix = 0, unscored = 0;
    for (const auto& s : scores)
      if (s.source == src && s.excluded) ++unscored;
      else if (s.source == src) ++n, cause += s.cause_ok, fix += s.fix_ok;
    std::cout << kprof::corpus::source_name(src) << ": cause " << cause << "/" << n << ", first fix " << fix << "/" << n;
    if (unscored) std::cout << " (" << unscored << " not scored: under the capture's 1% GPU-time share for counters)";
    std::cout << "\n";
  }
  return 0;
}
