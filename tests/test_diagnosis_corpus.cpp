// The diagnosis corpus: 23 CUDA kernels and 5 PyTorch/Triton cases, each built for one known bottleneck, captured
// on the H200 three ways (annotation with ncu counters, with CUPTI counters, ncu --set full). For every case and
// source: kprof must name the designed cause and rank the designed fix first (or, for a kernel at its roof,
// promise nothing above 10%). The score table is bench/RESULTS.md §9 (bench/diagnosis_score prints it).
#include <gtest/gtest.h>

#include <iostream>

#include "../bench/diagnosis_corpus.hpp"

using namespace kprof;

namespace {
const std::vector<corpus::Score>& scores() {
  static const std::vector<corpus::Score> all = corpus::score_all();
  return all;
}
}  // namespace

TEST(DiagnosisCorpus, EveryCaseHasCountersInEverySource) {
  for (const auto& s : scores())
    EXPECT_TRUE(s.found) << s.want.program << "." << s.want.stage << " under " << corpus::source_name(s.source);
}

TEST(DiagnosisCorpus, DesignedCauseIsNamed) {
  std::cout << corpus::score_table(scores());
  for (const auto& s : scores())
    EXPECT_TRUE(s.cause_ok) << s.want.program << "." << s.want.stage << " under " << corpus::source_name(s.source)
                            << ": designed " << s.want.cause << ", kprof said " << s.cause;
}

TEST(DiagnosisCorpus, FirstOpportunityIsTheDesignedFix) {
  for (corpus::Source src : {corpus::Source::annotation_ncu, corpus::Source::annotation_cupti, corpus::Source::ncu_full}) {
    int n = 0, ok = 0;
    std::string misses;
    for (const auto& s : scores())
      if (s.source == src) {
        ++n;
        ok += s.fix_ok;
        if (!s.fix_ok)
          misses += fmt::format("\n  {}.{}: designed {}, kprof {} ({:.0f}%, max {:.0f}%)", s.want.program, s.want.stage,
                                s.want.fix, s.first_fix, s.first_gain, s.max_gain);
      }
    EXPECT_GE(ok * 10, n * 9) << corpus::source_name(src) << ": " << ok << " of " << n << misses;
  }
}

TEST(DiagnosisCorpus, AtTheRoofNothingAbove10Percent) {
  for (const auto& s : scores())
    if (s.want.fix == "none")
      EXPECT_LE(s.max_gain, 10.0) << s.want.program << "." << s.want.stage << " under " << corpus::source_name(s.source);
}
