// The diagnosis corpus: 23 CUDA kernels and 5 PyTorch/Triton cases, each built for one known bottleneck, captured
// on the H200 three ways (annotation with ncu counters, with CUPTI counters, ncu --set full). In every source kprof
// must name the designed cause of every scored case and rank the designed fix first for at least 90% of them (for
// a kernel at its roof: promise nothing above 10%). The score table is bench/RESULTS.md §9 (bench/diagnosis_score
// prints it).
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <stdexcept>

#include "../bench/diagnosis_corpus.hpp"

using namespace kprof;

namespace {
const std::vector<corpus::Score>& scores() {
  static const std::vector<corpus::Score> all = corpus::score_all();
  return all;
}
// The remedy an item names for the kernel's own code: a library's or PyTorch's kernel is reached through its call
// (library_tuning, with the kernel-level remedy in Opportunity::kernel_remedy).
std::string kernel_level(const Opportunity& o) { return o.kernel_remedy.empty() ? o.remedy : o.kernel_remedy; }
// The kernel-level items a library kernel's "change the call" item absorbed, as its notes describe them.
bool absorbed(const KernelAnalysis& a, const std::string& remedy, const std::string& also = "") {
  return std::any_of(a.notes.begin(), a.notes.end(), [&](const std::string& n) {
    return n.rfind("also reached through the call: " + remedy + " (", 0) == 0 &&
           (also.empty() || n.find(also) != std::string::npos);
  });
}
}  // namespace

// Every case has counters in every source: the capture in tests/fixtures/h200-corpus/ passed
// --counters-min-share=0, so annotation profiled even the corpus kernels under 1% of the GPU time (with the
// default share the scorer reports such a case "not scored"; the earlier capture had three).
TEST(DiagnosisCorpus, EveryCaseHasCounters) {
  for (const auto& s : scores())
    EXPECT_TRUE(s.found && !s.excluded) << s.want.program << "." << s.want.stage << " under "
                                        << corpus::source_name(s.source) << ": " << s.note;
}

// Scored cases only: at least `min_pct` right in every source, with the misses printed.
namespace {
void expect_score(bool (*ok)(const corpus::Score&), const char* what, int min_pct) {
  std::cout << corpus::score_table(scores());
  for (corpus::Source src : {corpus::Source::annotation_ncu, corpus::Source::annotation_cupti, corpus::Source::ncu_full}) {
    int n = 0, good = 0;
    std::string misses;
    for (const auto& s : scores())
      if (s.source == src && !s.excluded) {
        ++n;
        good += ok(s);
        if (!ok(s))
          misses += fmt::format("\n  {}.{}: designed {} / {}, kprof {} / {} ({:.0f}%, max {:.0f}%)", s.want.program,
                                s.want.stage, s.want.cause, s.want.fix, s.cause, s.first_fix, s.first_gain, s.max_gain);
      }
    EXPECT_GT(n, 0);
    EXPECT_GE(good * 100, n * min_pct) << corpus::source_name(src) << " " << what << ": " << good << " of " << n << misses;
  }
}
}  // namespace

TEST(DiagnosisCorpus, DesignedCauseIsNamed) {
  expect_score([](const corpus::Score& s) { return s.cause_ok; }, "cause", 100);
}

// For a kernel at its roof (designed fix "none"), the fix is right when kprof promises nothing above 10%.
TEST(DiagnosisCorpus, FirstOpportunityIsTheDesignedFix) {
  expect_score([](const corpus::Score& s) { return s.fix_ok; }, "first fix", 100);
}

// Issue 11's bar for real programs: in default annotation on the PyTorch + Triton script, every kernel group whose
// kernel takes at least 1% of the traced GPU time has counters (both counter sources, as captured on the H200).
// With ncu the share is judged per group: the capture (with `--kernel-name-base mangled`; the one before gave ~20
// elementwise instantiations of one shape the add kernel's counters) has no launch of a few small instantiations
// in the script's reference checks (bitwise and/or, compare at 1-10 us). Those keep their durations with a note
// instead of another instantiation's counters; every group that itself takes 1% of the GPU time has counters.
TEST(DiagnosisCorpus, TorchScriptEveryGroupWithOnePercentHasCounters) {
  for (auto src : {corpus::Source::annotation_ncu, corpus::Source::annotation_cupti}) {
    ProfileRun run = corpus::assemble(corpus::capture_dir("diag_torch", src), src, "diag_torch");
    std::map<std::string, double> time;
    double total = 0;
    for (const auto& st : run.stages)
      for (const auto& g : st.kernels) {
        const double t = g.duration_ns.median * static_cast<double>(g.duration_ns.count);
        time[g.kernel] += t;
        total += t;
      }
    ASSERT_GT(total, 0);
    int big = 0;
    for (const auto& st : run.stages)
      for (const auto& g : st.kernels)
        if (time[g.kernel] / total >= 0.01) {
          ++big;
          const double own = g.duration_ns.median * static_cast<double>(g.duration_ns.count) / total;
          const bool other_instantiation =
              src == corpus::Source::annotation_ncu && own < 0.01 &&
              g.counters_note == "the profiled launch of this name and shape belongs to another instantiation";
          EXPECT_TRUE(g.counters_note.empty() || other_instantiation)
              << corpus::source_name(src) << ": " << st.name << " / " << g.kernel << " ("
              << time[g.kernel] / total * 100 << "% of GPU time): " << g.counters_note;
        }
    EXPECT_GE(big, 5) << corpus::source_name(src);
  }
}

// The held-out library kernels (diag_holdout.py, labels in diag_holdout_expected.toml, captured on the H200 with
// scripts/device/holdout.sh). torch.cumsum runs CUB, which pushes its own NVTX range (domain "CCCL") inside the
// user's: the stage stays the user's range in every source (the tracer's, CUPTI's and Nsight Compute's stacks).
TEST(DiagnosisHoldout, ALibraryRangeInsideTheUsersDoesNotTakeTheStage) {
  for (auto src : {corpus::Source::annotation_ncu, corpus::Source::annotation_cupti, corpus::Source::ncu_full}) {
    ProfileRun run = corpus::assemble(corpus::capture_dir("diag_holdout", src), src, "diag_holdout");
    const Stage* cumsum = nullptr;
    for (const auto& st : run.stages) {
      EXPECT_NE(st.name, "cub::DeviceScan::InclusiveScan") << corpus::source_name(src);
      if (st.name == "cumsum_f32") cumsum = &st;
    }
    ASSERT_NE(cumsum, nullptr) << corpus::source_name(src);
    const KernelGroup* g = corpus::main_group(*cumsum);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->kernel, "DeviceScanKernel");
    EXPECT_TRUE(g->counters_note.empty()) << g->counters_note;
  }
}

// ncu's source page of a program without -lineinfo held only warnings on the H200 (the file is the real one);
// it is left out with a warning and the other pages' counters stay (before: every kernel lost its counters).
TEST(DiagnosisHoldout, ASourcePageWithoutATableLeavesTheOtherPagesRead) {
  ASSERT_TRUE(std::filesystem::exists(corpus::capture_dir("diag_holdout", corpus::Source::ncu_full) / "ncu/ncu_source.csv"));
  ProfileRun run = corpus::assemble(corpus::capture_dir("diag_holdout", corpus::Source::ncu_full),
                                    corpus::Source::ncu_full, "diag_holdout");
  bool warned = false;
  for (const auto& w : run.warnings) warned = warned || w.text.find("ncu_source.csv left out") != std::string::npos;
  EXPECT_TRUE(warned);
  int with_counters = 0;
  for (const auto& st : run.stages)
    if (st.name == "sum_f32" || st.name == "gemv_bf16" || st.name == "sdpa_bf16")
      for (const auto& l : corpus::main_group(st)->launches) with_counters += l.metrics.size() > 100;
  EXPECT_EQ(with_counters, 3);
  // `kprof analyze` of that artifact (a re-analysis, which refuses unfinished pages) leaves it out the same way.
  ProfileRun again = corpus::assemble(corpus::capture_dir("diag_holdout", corpus::Source::ncu_full),
                                      corpus::Source::ncu_full, "diag_holdout", /*reanalysis=*/true);
  int again_with_counters = 0;
  for (const auto& st : again.stages)
    if (st.name == "sum_f32")
      for (const auto& l : corpus::main_group(st)->launches) again_with_counters += l.metrics.size() > 100;
  EXPECT_EQ(again_with_counters, 1);
}

// Nsight Compute's occupancy rules estimate from the warps missing, whatever bounds the kernel: on the H200 they
// led the ncu-mode advice for cuBLAS's DRAM-bound batched GEMM and short-K linear (3 warps per scheduler by
// design, TheoreticalOccupancy 28% and 15%) and for CUB's scan at 62.5% theoretical occupancy (38%). Without an
// occupancy cause of kprof's own they are weighed down and do not lead; the designed register- and shared-memory-
// limited kernels, where kprof finds the limit, keep occupancy first.
TEST(DiagnosisHoldout, NcuOccupancyRulesLeadOnlyWhereKprofFindsOccupancyLimiting) {
  struct Case {
    std::string program, stage;
    bool weighed;
  };
  const Case cases[] = {{"diag_holdout3", "bmm_scores_bf16", true},
                        {"diag_holdout3", "linear_shortk_bf16", true},
                        {"diag_holdout", "cumsum_f32", true},
                        {"diag_corpus", "occupancy_regs", false},
                        {"diag_corpus", "occupancy_smem", false}};
  std::map<std::string, ProfileRun> runs;
  for (const auto& c : cases) {
    if (!runs.count(c.program))
      runs[c.program] = corpus::assemble(corpus::capture_dir(c.program, corpus::Source::ncu_full),
                                         corpus::Source::ncu_full, c.program);
    const KernelGroup* g = nullptr;
    for (const auto& st : runs[c.program].stages)
      if (st.name == c.stage) g = corpus::main_group(st);
    ASSERT_NE(g, nullptr) << c.stage;
    ASSERT_TRUE(g->analysis) << c.stage;
    const auto& ops = g->analysis->opportunities;
    const Opportunity* occ = nullptr;
    for (const auto& o : ops)
      if (kernel_level(o) == "occupancy") occ = &o;
    // The short-K linear is at its tensor roof: the weighed-down estimate would be all that is left, and is not
    // ranked alone (set aside in the notes).
    if (c.stage == "linear_shortk_bf16") {
      EXPECT_TRUE(ops.empty()) << ops.front().remedy;
      const auto& notes = g->analysis->notes;
      EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
        return n.find("not ranked") != std::string::npos && n.find("weighed down") != std::string::npos;
      })) << c.stage;
      continue;
    }
    if (c.weighed) {
      // A library kernel's items are one "change the call" item: the occupancy estimate is absorbed in it.
      if (!occ) {
        EXPECT_TRUE(absorbed(*g->analysis, "occupancy", "weighed down")) << c.stage;
        EXPECT_NE(kernel_level(ops.front()), "occupancy") << c.stage;
        continue;
      }
      EXPECT_NE(occ->rationale.find("weighed down"), std::string::npos) << c.stage;
      ASSERT_TRUE(occ->trigger_value) << c.stage;
      EXPECT_LE(occ->est_gain_pct, 0.25 * *occ->trigger_value + 1e-6) << c.stage;
      EXPECT_NE(kernel_level(ops.front()), "occupancy") << c.stage;
    } else {
      ASSERT_NE(occ, nullptr) << c.stage;
      EXPECT_EQ(occ->rationale.find("weighed down"), std::string::npos) << c.stage;
      EXPECT_EQ(ops.front().remedy, "occupancy") << c.stage;
    }
  }
}

namespace {
// Floors per source, in the order annotation (ncu), annotation (cupti), ncu: every case found, at least this many
// causes and first fixes right.
struct Floor {
  int cause, fix;
};
// `unfound`: cases with no counters in the capture (set 16's Adam step, whose kernels sit in nested per-layer
// ranges), allowed to be missing.
void expect_holdout_score(const std::filesystem::path& labels, int cases, const Floor (&floors)[3],
                          const std::set<std::string>& unfound = {}) {
  auto scores = corpus::score_all(labels);
  std::cout << corpus::score_table(scores);
  const corpus::Source sources[3] = {corpus::Source::annotation_ncu, corpus::Source::annotation_cupti,
                                     corpus::Source::ncu_full};
  for (int i = 0; i < 3; ++i) {
    int n = 0, cause = 0, fix = 0;
    for (const auto& s : scores)
      if (s.source == sources[i]) {
        ++n, cause += s.cause_ok, fix += s.fix_ok;
        EXPECT_TRUE(s.found || unfound.count(s.want.stage) || s.note == corpus::kNotCaptured) << s.want.stage << ": " << s.note;
      }
    EXPECT_EQ(n, cases);
    EXPECT_GE(cause, floors[i].cause) << corpus::source_name(sources[i]);
    EXPECT_GE(fix, floors[i].fix) << corpus::source_name(sources[i]);
  }
}
}  // namespace

// The held-out set's score. Before the rule changes it prompted (commit cc4e8e8, the set unseen): cause 7/13 and
// first fix 8/13 in annotation, 7/13 and 6/13 in ncu mode. These floors are the score after those changes, so
// they guard against regressions only; the changes were scored on kernels they were not made for with the second
// and third held-out sets (bench/RESULTS.md §9c).
// Issue 23 (barrier stalls a cause of their own) took one off each: CUB's scan (cumsum) now reads "barrier stalls"
// (57% of waiting stalls), labelled "latency" with low confidence by a labeller whose id list had no barrier cause.
TEST(DiagnosisHoldout, ScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(), 13, {{13, 12}, {13, 12}, {13, 12}});
}

// The second held-out set, scored as captured (labels written before kprof was run against them; topk relabelled
// for the kernel kprof scores): cause 8/13 and first fix 7/13 in every source, except ncu mode's first fix 4/13,
// 7/13 once Nsight Compute's access-pattern estimates that kprof's counters contradict were weighed down. The
// misses are in bench/RESULTS.md §9c; these floors guard against regressions only.
// Issue 27 (2026-12-03, fifth session): the annotation captures retaken with the breakdown-free counter list
// (the L1, L2 and memory throughput from their components) read bincount's L1/shared unit 69.7% busy where the
// earlier capture read 70.3%: under the 70% on-chip cut its shared-atomic contention was not named (cause and
// first fix -1 in both annotation sources) until that rule weighed its gain by the unit's busy share instead of
// cutting at 70% (as the bank-conflict rule does); gemm_skinny reads DRAM at 86.7% of its roof (83.2% before), at
// the roof: no DRAM item leads, as labelled (first fix +1 in both).
// Issue 23 (2026-12-03, seventh session): CUB's onesweep sort, latency-bound with its waits spread over several
// reasons and 37.5% theoretical occupancy set by registers and shared memory, reads "raise occupancy" as labelled
// (was "more memory requests in flight"): first fix +1 in every source.
// Issue 23 (ninth session): bincount's min and max reductions read the same 0.13 GB input one after the other at
// the DRAM roof; one pass (aminmax) saves a read, worth more of the case than the histogram's shared atomics, which
// the labeller named: first fix -1 with ncu counters and in ncu mode (a disagreement kept, bench/RESULTS.md §9m).
// Twenty-third session: gemm_skinny in ncu mode (DRAM 83.3%) is at the roof too since the cut moved to 81.5%.
// Thirty-sixth session: the cut at 80% puts cross-entropy at its roof with CUPTI's counters and in ncu mode, where
// the labeller asked to move fewer bytes: 11/12 and 11/11.
TEST(DiagnosisHoldout, SecondSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout2_file(), 13, {{11, 10}, {11, 12}, {11, 11}});
}

// The third held-out set (11 labelled cases), scored as captured after every change the first two prompted:
// cause 9/11 (annotation ncu, ncu mode) and 8/11 (annotation cupti), first fix 8/11 in annotation and 6/11 in ncu
// mode; 8/11 in ncu mode once Nsight Compute's occupancy rules needed kprof's occupancy cause to lead. Floors
// against regressions only; the misses are in bench/RESULTS.md §9c.
// Issue 23 (2026-12-03): a pipe at its own roof and busier than DRAM is the bound; argmax (ALU 88.7%, DRAM 82%)
// right for the cause everywhere, for the first fix in annotation.
// Issue 23 (2026-12-03, seventh session): and in ncu mode, where Nsight Compute's store-pattern estimate, which
// kprof's counters contradict, no longer leads as the only item left (below).
TEST(DiagnosisHoldout, ThirdSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(3), 11, {{10, 9}, {10, 9}, {10, 9}});
}


// The fourth held-out set (17 labelled kernels), scored as captured after every change the first three prompted
// (kprof ced110c): cause 11/17 and first fix 8/17 in annotation (both counter sources), 11/17 and 9/17 in ncu
// mode. After the changes it prompted (below): 12/17 and 10/17 in annotation, 12/17 and 12/17 in ncu mode; ncu
// mode's first fix 11/17 once set 5's change let int8_mm's real bank conflicts (L1 97% busy) explain its tensor
// pipe, which kprof reads as idle (the IMMA pipe is not in its tensor metric; the label is "feed the tensor
// cores"). Floors against regressions only; the misses are in bench/RESULTS.md §9c.
// Issue 23: CUB's select sweep (nonzero) reads "barrier stalls" (60%), labelled "latency" (low confidence): one
// off each source; the gather now reads "partially coalesced" in ncu mode as labelled (cause +1 there).
// Later in issue 23 the first fix of logsumexp's main kernel became fusing the op's kernels (PyTorch runs it as
// several kernels passing 0.5 GB intermediates through DRAM; the labels' id list had no fusion remedy): one more off.
// Issue 23 (2026-12-03): atomics that saturate L2 (scatter_add, every source) and an L2-bound gather at 19.8
// sectors per request (annotation): 13/17 and 11/17 in every source.
// Issue 23 (2026-12-03, seventh session): cuFFT's strided pass, nothing re-read on chip, reads "more bytes in
// flight" as labelled (was reuse on chip): first fix +1 in every source; its cause (lsu_queue, labelled memory
// latency) is still a miss. Seventeenth session: an issue-bound kernel whose loads fetch tens of times what DRAM
// reads wants reuse on chip (cdist p=1): first fix 14/14/13. Twenty-third: in ncu mode too, Nsight Compute's
// FPInstructions estimate weighed down where kprof counts no FADD/FMUL pairs: 14/14/14. Twenty-fourth: the transposed
// convolution's range spends 181 of 405 us in cuDNN's layout conversions, and passing the call NHWC tensors leads
// (library_tuning, kernel remedy dram_traffic) over feeding its tensor pipe, as labelled from its main kernel alone:
// 13/13/13. Thirty-second: gathers whose lanes use 1.5x or more of the bytes DRAM reads, L2 busy, re-read what L2
// holds: scattered, locality (sets 23, 28, 31 and 32, both blind labels of each); grid_sample's bilinear corners (3.1x)
// read so too, labelled uncoalesced / coalesce (its labeller's fix: "grouping nearby sample points"): 14/12, 15/13,
// 15/12.
// Thirty-third: a range's cause is the one most of its kernel time runs under where that is not its longest kernel's
// (Stage::time_bound): logsumexp's DRAM-bound max, exp and sum kernels outlast its main elementwise kernel (labelled
// memory_latency from that kernel alone): cause 13/14/14.
TEST(DiagnosisHoldout, FourthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(4), 17, {{13, 12}, {14, 13}, {14, 12}});
}


namespace {
const KernelAnalysis& analysis_of(const ProfileRun& run, const std::string& stage) {
  for (const auto& st : run.stages)
    if (st.name == stage) {
      const KernelGroup* g = corpus::main_group(st);
      if (g && g->analysis) return *g->analysis;
    }
  throw std::runtime_error("no analysed stage " + stage);
}

// `check` on the program's capture in each of the three sources, the source named in any failure.
template <class Check>
void in_every_source(const std::string& program, Check check) {
  for (auto src : {corpus::Source::annotation_ncu, corpus::Source::annotation_cupti, corpus::Source::ncu_full}) {
    SCOPED_TRACE(corpus::source_name(src));
    check(corpus::assemble(corpus::capture_dir(program, src), src, program));
  }
}
}  // namespace

// PyTorch's argmax in ncu mode: its ALU pipe at its roof (88.7%), 16 sectors per global request. Nsight Compute's
// MemoryCacheAccessPattern estimated 66% for its stores; kprof's counters contradict it and weigh it down to 11%,
// and as the only item left it led the contract. An estimate kprof argues against is not ranked when nothing else
// is: the kernel has no opportunity, and the note says what was set aside and why.
TEST(DiagnosisHoldout, AnEstimateKprofsCountersContradictDoesNotLeadAlone) {
  const auto run = corpus::assemble(corpus::capture_dir("diag_holdout3", corpus::Source::ncu_full),
                                    corpus::Source::ncu_full, "diag_holdout3");
  const auto& a = analysis_of(run, "argmax_f32");
  EXPECT_EQ(a.bottleneck.cause, "int_pipe");
  EXPECT_TRUE(a.opportunities.empty()) << a.opportunities.front().remedy;
  const auto note = std::find_if(a.notes.begin(), a.notes.end(), [](const std::string& n) {
    return n.find("not ranked") != std::string::npos && n.find("MemoryCacheAccessPattern") != std::string::npos;
  });
  ASSERT_NE(note, a.notes.end());
  EXPECT_NE(note->find("weighed down"), std::string::npos) << *note;
}

// cuFFT's strided 2D pass (set 4): memory throughput 62% with L2 the busiest unit, DRAM at 41% of its roof, and
// the global loads fetching 1.08x what DRAM reads, nothing re-read; its warps wait for the local/global queue
// (lg_throttle, 48% of waits) beside 43% conflicted shared wavefronts. The queue stall is the global path's, which
// bank conflicts do not fill, and with nothing re-read the memory side's remedy is more bytes in flight, not reuse
// on chip (was "memory bound, reuse on chip, 58%" in every source).
TEST(DiagnosisHoldout, AStreamingPassWaitingOnTheGlobalQueueIsNotToldToReuseOnChip) {
  in_every_source("diag_holdout4", [](const ProfileRun& run) {
    const auto& a = analysis_of(run, "fft2_c64");
    EXPECT_EQ(a.bottleneck.cause, "lsu_queue");
    ASSERT_FALSE(a.opportunities.empty());
    EXPECT_EQ(kernel_level(a.opportunities.front()), "memory_parallelism");
    EXPECT_NE(a.opportunities.front().rationale.find("nothing is re-read on chip"), std::string::npos)
        << a.opportunities.front().rationale;
    for (const auto& o : a.opportunities) EXPECT_NE(kernel_level(o), "onchip_reuse");
    EXPECT_FALSE(absorbed(a, "onchip_reuse"));
  });
}

// Set 4's rule changes, each on the kernel that showed it, in every capture source:
// - CUB's select sweep (nonzero): 33% of shared wavefronts conflicted with the L1/shared unit 54% busy, but warps
//   waited on shared memory in 12% of stalls: the conflicts (estimated 18%, ncu 40%) led a latency-bound kernel.
//   The estimate is now bounded by the share of stalls on shared memory (short scoreboard, MIO throttle).
// - cuDNN's persistent LSTM on 64 of 132 SMs: "tensor pipe underfed" (90%) ranked before filling the GPU; idle
//   SMs now explain the underfed tensor pipe.
// - PyTorch's Welford var_mean at 3.88 waves: Nsight Compute's partial-wave estimate (25%) ranked first in ncu
//   mode; kprof's own tail rule finds the last wave 97% full, and the estimate is weighed down.
TEST(DiagnosisHoldout, FourthSetRuleChangesHoldInEverySource) {
  in_every_source("diag_holdout4", [](const ProfileRun& run) {
    const auto& nonzero = analysis_of(run, "nonzero_bool");
    // 57-66% of its warps' waiting time is at block barriers, but the kernel streams DRAM (46% of the measured
    // roof) and long scoreboard is the next reason (15-18%): the warps at the barrier wait for the tile's loads,
    // and every warp has the same work. Latency, more loads in flight (the labeller's reading), not "balance the
    // block". What set 4 changed still holds: the conflicts do not lead.
    EXPECT_EQ(nonzero.bottleneck.cause, "latency");
    ASSERT_FALSE(nonzero.opportunities.empty());
    EXPECT_EQ(kernel_level(nonzero.opportunities.front()), "memory_parallelism");
    for (const auto& o : nonzero.opportunities) {
      if (kernel_level(o) == "smem_conflicts") { EXPECT_LE(o.est_gain_pct, 13.0) << o.source; }
    }
    const auto& lstm = analysis_of(run, "lstm_fp16_cudnn");
    EXPECT_EQ(lstm.bottleneck.cause, "grid_too_small");
    ASSERT_FALSE(lstm.opportunities.empty());
    EXPECT_EQ(kernel_level(lstm.opportunities.front()), "grid_fill");
    const auto& var_mean = analysis_of(run, "var_mean_f32");
    ASSERT_FALSE(var_mean.opportunities.empty());
    EXPECT_EQ(kernel_level(var_mean.opportunities.front()), "dram_bandwidth");
    for (const auto& o : var_mean.opportunities) {
      if (o.source == "ncu:LaunchConfiguration") { EXPECT_NE(o.rationale.find("weighed down"), std::string::npos); }
    }
  });
}

// The fifth held-out set (15 kernels), scored as captured after set 4's changes (kprof 0067aa0): cause 13/15 and
// first fix 11/15 in every source; 13/15 and 13/15 after the change it prompted (below).
// Issue 27 (2026-12-03, fifth session): with the annotation captures retaken (breakdown-free list) unfold's first
// fix through CUPTI matches too (pipe throughput: its arithmetic waits now outweigh its memory waits there).
// Issue 23 (eighth session): the stem conv's call leads over its conflicts (below): 14/15, 14/15. Twenty-fourth
// session: the 3-D convolution's range spends 250 of 812 us in cuDNN's layout conversions, and passing the call NDHWC
// tensors leads over feeding its tensor pipe (labelled from its main kernel alone): first fix 13/15. Thirty-second
// session: searchsorted's random queries (lanes using 13x the bytes DRAM reads, L2 hit 98%) read as gathers re-reading
// what L2 holds, scattered / locality; labelled uncoalesced / coalesce, its labeller's fix "sorting/bucketing the
// queries": 13/12 with Nsight Compute's counters. Thirty-sixth session: DRAM at 80% of the measured roof is at the
// roof (sets 40 and 50's labels, both labellers): the vector norm at 80.5% with CUPTI's counters, labelled "reach the
// roof" by one labeller, now reads as at its roof: 14/12 there.
TEST(DiagnosisHoldout, FifthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(5), 15, {{13, 12}, {14, 12}, {13, 12}});
}

// cuDNN's 7x7 stem conv (48% of shared wavefronts conflicted) and PyTorch's fp32 memory-efficient attention
// (local memory) named their specific cause but ranked "feed the tensor cores" first, on the roofline headroom
// (71%, 76%): the conflicts and the spills are why the tensor pipe is underfed, so they came first.
// Issue 23 (eighth session): in a library kernel the user cannot edit, an in-kernel cause leads only where it accounts
// for most of the idle tensor pipe (its gain at least 1/library_call_lead_ratio of the pipe's): the attention's spills
// (59% of 75%) still do; the conv's conflicts (22% of 71%) do not, and the call leads there (set 5 -1, labelled
// smem_bank_conflicts with medium confidence). cuDNN's attention with a float mask (set 11: spills worth 22% of
// 57%) and a cuBLAS GEMM on an sm80 CUTLASS kernel for N = 4100 (L1 busy staging operands, 64% of 64%) lead with
// the call in every source, as labelled.
TEST(DiagnosisHoldout, ALibraryKernelsIdleTensorPipeLeadsUnlessAnInKernelCauseAccountsForMostOfIt) {
  in_every_source("diag_holdout5", [](const ProfileRun& run) {
    const auto& conv = analysis_of(run, "conv7x7_s2_fp16_cudnn");
    EXPECT_EQ(conv.bottleneck.cause, "tensor_underfed");
    ASSERT_FALSE(conv.opportunities.empty());
    EXPECT_EQ(conv.opportunities.front().remedy, "library_tuning");
    const auto& attention = analysis_of(run, "sdpa_efficient_f32");
    EXPECT_EQ(attention.bottleneck.cause, "local_memory");
    ASSERT_FALSE(attention.opportunities.empty());
    EXPECT_EQ(kernel_level(attention.opportunities.front()), "local_memory");
    EXPECT_EQ(attention.opportunities.front().remedy, "library_tuning");
  });
  in_every_source("diag_holdout11", [](const ProfileRun& run) {
    for (const char* k : {"sdpa_float_mask_bf16", "gemm_bf16_n4100_unaligned"}) {
      const auto& a = analysis_of(run, k);
      EXPECT_EQ(a.bottleneck.cause, "tensor_underfed") << k;
      ASSERT_FALSE(a.opportunities.empty()) << k;
      EXPECT_EQ(a.opportunities.front().remedy, "library_tuning") << k;
      // Nsight Compute's in-kernel estimates (coalescing for the GEMM) are no items of their own: the call's item
      // absorbs them.
      for (const auto& o : a.opportunities) {
        EXPECT_NE(o.remedy, "coalesce") << k;
        EXPECT_NE(o.remedy, "local_memory") << k;
      }
    }
  });
}

// The sixth held-out set (14 kernels), captured and labelled after every change of this session (the fifth set's
// included) and scored as captured, with no change after: cause 11/14 and first fix 11/14 in annotation (both
// counter sources), 11/14 and 12/14 in ncu mode. The misses are in bench/RESULTS.md §9c.
// Issue 23: bernoulli and tril are now "partially coalesced" in ncu mode, as labelled (cause +2 there); stft's
// framing copy ranks fusing it with the FFT that reads its 0.24 GB back (label: pipe throughput; the id list had no
// fusion remedy): first fix -1 in annotation. In ncu mode cross is DRAM-bound at the roof again once its DRAM bytes
// are seen to be no more than its accesses use (Nsight Compute's bytes per sector): cause and fix +1 there.
// Then (CUPTI counters and older exports have no bytes-per-sector count) L1's store sectors against DRAM's writes
// name tril's and bernoulli's stores written in pieces in annotation too: cause and fix +2 there (13/14, 13/14).
// The tenth session of issue 23 took one first fix off each source: a tiny kernel between PyTorch's instance-norm
// statistics and transform kernels no longer hides that both read the whole input (a two-pass item, as set 14's
// labeller named for a layer norm; set 6's labeller said the transform is at the DRAM roof).
// The nineteenth session took one more in annotation: once the host's waits between a range's launches are dropped,
// its launch calls hide under the GPU's work, so the range item saves every gap (set 30's symbol upload per step);
// lu_factor's range (a wait between its 4 launches, 201 us idle of 970) then ranks dropping the wait (21%) over the
// call of its 450 us kernel (36% of it, 17% of the range). The label, written from the ncu report alone, judged the
// kernel.
// Twentieth session: with the producer's side counted, fusing bernoulli's uniform fill (0.51 GB written at the roof)
// into its uncoalesced compare saves 237 us of the pair against the compare's own 238 us (CUPTI counters' estimate of
// the call): first fix -1 with CUPTI counters, a tie the label (coalesce) breaks the other way.
// Twentieth session: a range idle at least 20% of its span, and more than its kernels' first items save of it, is bound outside its kernels (lu_factor's range: 21% idle, a wait between its launches, which its first fix drops already): cause -1 in
// both annotation sources.
TEST(DiagnosisHoldout, SixthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(6), 14, {{13, 12}, {13, 11}, {14, 13}});
}

TEST(DiagnosisHoldout, StoresWrittenInPiecesAreNamedInEverySource) {
  in_every_source("diag_holdout6", [](const ProfileRun& run) {
    for (const char* k : {"tril_f32", "bernoulli_f32"}) {
      const auto& a = analysis_of(run, k);
      EXPECT_EQ(a.bottleneck.cause, "uncoalesced_global") << k;
      ASSERT_FALSE(a.opportunities.empty()) << k;
      EXPECT_EQ(kernel_level(a.opportunities.front()), "coalesce") << k;
      EXPECT_EQ(a.opportunities.front().remedy, "library_tuning") << k;  // PyTorch's kernel: through the call
    }
    // Stride-3 vectors at the DRAM roof: the pieces merge on chip and DRAM moves only what is used.
    EXPECT_EQ(analysis_of(run, "cross_f32").bottleneck.cause, "dram_bandwidth");
  });
}

// Sets 7 and 8 (issue 23): CUDA kernels of stall and access classes, and tensor-core library kernels with unfused
// pipelines, captured after the issue's first changes (kprof ebabbe6's collectors) and labelled blind. As captured
// (kprof 85fdda0, kernel items only): set 7 cause 8/11 and first fix 9/11 in annotation (ncu counters), 8/11 and
// 8/11 with CUPTI counters, 8/11 and 9/11 in ncu mode; set 8 cause 8/9 and first fix 4/9 (annotation, both
// sources), 8/9 and 3/9 in ncu mode. These floors are after the changes they prompted (bench/RESULTS.md §9d).
// Set 9: CUDA kernels written, captured and labelled after every change of issue 23's session, to test them unseen.
// As captured: cause 8/11 and first fix 6/11 in annotation (ncu counters), 7/11 and 5/11 with CUPTI counters, 8/11
// and 6/11 in ncu mode. After the one change it prompted (a dominant stall explains a pipe short of its roof: the
// huge unrolled kernel's instruction-fetch stalls): 9/11 and 7/11, 8/11 and 6/11, 9/11 and 7/11.
// Then shared-memory wavefronts per shared atomic instruction (Nsight Compute's full set has both; annotation's list
// has them since, so these captures cannot show it there) name the hot-bin kernel's atomic contention: ncu mode
// 11/11 and 9/11.
// Issue 23 (2026-12-03): overlap advice no longer outranks filling the grids of the two 60-block chases: first fix
// +2 in annotation, 10/11 (ncu counters) and 9/11 (CUPTI counters).
// One estimate per remedy, the same in every source: where kprof's own cause proposes a remedy that an Nsight Compute
// rule also estimates, kprof's estimate is kept and the rule named beside it. The ninth set's under-filled pointer
// chases (60 blocks for 132 SMs, 32 sectors per request) ranked "coalesce" first in ncu mode only, on
// UncoalescedGlobalAccess's 87% (its share of excess sectors, not of time); kprof's 50% ranks under filling the GPU
// (55%) in every source. And an occupancy estimate of Nsight Compute's that kprof's own occupancy rules do not
// corroborate is weighed down (cuDNN's 7x7 stem conv, 2 warps per scheduler by design: ncu 28%).
TEST(DiagnosisHoldout, ARemedyKprofMeasuredKeepsItsEstimateInEverySource) {
  in_every_source("diag_holdout9", [](const ProfileRun& run) {
    for (const char* k : {"underfilled_a", "underfilled_b"}) {
      const auto& a = analysis_of(run, k);
      ASSERT_FALSE(a.opportunities.empty()) << k;
      EXPECT_EQ(a.opportunities.front().remedy, "grid_fill") << k;
      const auto coalesce = std::find_if(a.opportunities.begin(), a.opportunities.end(),
                                         [](const Opportunity& o) { return o.remedy == "coalesce"; });
      ASSERT_NE(coalesce, a.opportunities.end()) << k;
      EXPECT_EQ(coalesce->source, "kprof") << k << ": " << coalesce->rationale;
      EXPECT_LT(coalesce->est_gain_pct, 60.0) << k;  // kprof's 50%, not UncoalescedGlobalAccess's 87%
    }
  });
  // Nsight Compute's occupancy estimate for the conv (ncu mode holds the rules) is weighed down and ranks after
  // kprof's own items.
  const auto run = corpus::assemble(corpus::capture_dir("diag_holdout5", corpus::Source::ncu_full),
                                    corpus::Source::ncu_full, "diag_holdout5");
  const auto& conv = analysis_of(run, "conv7x7_s2_fp16_cudnn");
  ASSERT_FALSE(conv.opportunities.empty());
  EXPECT_EQ(conv.opportunities.front().remedy, "library_tuning");
  // cuDNN's kernel: the occupancy estimate is absorbed in the call's item, weighed down.
  EXPECT_TRUE(absorbed(conv, "occupancy", "weighed down"));
}

TEST(DiagnosisHoldout, NinthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(9), 11, {{11, 11}, {11, 11}, {11, 11}});
}

// Issue 23 (eighth session): FlashAttention-2's idle tensor pipe (the call: cuDNN or FA3) leads over its spills
// (18% of 54%) with ncu counters and in ncu mode; through CUPTI its register-limited occupancy (33%) still led, until
// the thirty-second session (below). Thirty-third: index arithmetic around 2-byte accesses wants 16 bytes a lane
// (wider_accesses; set 47's append of the same kind, both blind labels, timed on the H100 at 79.2% against the item's
// 81%); set 7's 5-D permute was labelled 32-bit indexing (pipe_throughput) by its one labeller: first fix -1.
TEST(DiagnosisHoldout, SeventhAndEighthSetScoresDoNotRegress) {
  expect_holdout_score(corpus::holdout_file(7), 11, {{11, 10}, {10, 9}, {11, 10}});
  // Thirty-second session: a matmul's low occupancy does not explain its underfed tensor pipe (FlashAttention-2's
  // forward, 255 registers): cause 9/9 with CUPTI counters too.
  expect_holdout_score(corpus::holdout_file(8), 9, {{9, 8}, {9, 8}, {9, 8}});
}

// Sets 10 and 11 (eighth session of 2026-12-03), captured and labelled blind before the session's rule changes and
// scored as captured: set 10 cause 10/10/9, first fix 8/8/7 of 12; set 11 cause 8/8/8, first fix 5/5/5 of 12
// (annotation with ncu counters / CUPTI / ncu mode). These floors are the score after the changes they prompted
// (bench/RESULTS.md §9l), so they guard against regressions only.
// Twenty-eighth session: an FP pipe whose warps' stalls are mostly ready-not-picked or throttled is at its roof: set 10's first fix 12/12/12 (the DFMA chain).
TEST(DiagnosisHoldout, TenthAndEleventhSetScoresDoNotRegress) {
  expect_holdout_score(corpus::holdout_file(10), 12, {{12, 12}, {12, 12}, {12, 12}});
  // Issue 23 (eleventh session): a library's or PyTorch's kernel is changed through its call (cholesky's batched
  // factorisation, unique's CUB sort, index_put's accumulate, cuDNN's under-filled conv): first fix 11/11/11.
  // Nineteenth session: cuDNN's conv of 120 blocks with the tensor pipe 93% busy on the active SMs is tensor-bound,
  // its idle SMs an item (grid_leads_saturated_min_gain_pct): cause 11/11/11.
  expect_holdout_score(corpus::holdout_file(11), 12, {{11, 11}, {11, 11}, {11, 11}});
}

// Set 10's misses as captured, fixed in the shared mechanism (issue 23, eighth session):
// - a shared-memory tree reduction with a barrier per step: Nsight Compute's SM throughput (90.4%) counts the unit
//   that runs the barriers, which kprof does not name (issue 32.6%, no pipe above 9%); the barrier waits name the
//   cause in ncu mode as in annotation;
// - a shuffle butterfly keeps L1/TEX 99% busy while moving almost no data: the fix is fewer MIO instructions, not
//   reuse on chip;
// - one 4-byte field of a 32-byte struct: DRAM at its roof reads exactly the sectors the loads fetch, so the
//   sectors are consecutive (a strided layout to coalesce), not gathers;
// - (sixteenth session) the shuffles' cause named mio_queue, and the L2 roof measured against kprof-peaks' L2 figure.
TEST(DiagnosisHoldout, TenthSetBarriersShufflesStridedLayoutsAndTheL2Roof) {
  in_every_source("diag_holdout10", [](const ProfileRun& run) {
    const auto& sync = analysis_of(run, "sync_tree_reduce");
    EXPECT_EQ(sync.bottleneck.cause, "barrier_stall");
    ASSERT_FALSE(sync.opportunities.empty());
    EXPECT_EQ(sync.opportunities.front().remedy, "block_balance");
    const auto& shuffle = analysis_of(run, "shuffle_bound");
    ASSERT_FALSE(shuffle.opportunities.empty());
    EXPECT_EQ(shuffle.opportunities.front().remedy, "mio_pressure");
    // (Sixteenth session: named by the MIO queue its instructions fill, as the blind label has it, not by the unit.)
    EXPECT_EQ(shuffle.bottleneck.cause, "mio_queue");
    // A stream re-reading an L2-resident buffer at 103% of the measured L2 bandwidth: at the roof, nothing to
    // gain at that rate ("reuse on chip, 96%" before); the lever left, fewer L2 bytes, has no figure.
    const auto& l2 = analysis_of(run, "l2_resident_stream");
    EXPECT_EQ(l2.bottleneck.cause, "l2_bandwidth");
    ASSERT_FALSE(l2.opportunities.empty());
    EXPECT_EQ(l2.opportunities.front().remedy, "onchip_reuse");
    EXPECT_FALSE(l2.opportunities.front().estimated);
    for (const auto& o : l2.opportunities) EXPECT_LE(o.est_gain_pct, 10.0) << o.name;
    const auto& aos = analysis_of(run, "aos_one_field");
    EXPECT_EQ(aos.bottleneck.cause, "uncoalesced_global");
    ASSERT_FALSE(aos.opportunities.empty());
    EXPECT_EQ(aos.opportunities.front().remedy, "coalesce");
  });
  // The designed random gather (DRAM reading 1.86x its load sectors: 64-byte atoms) stays a gather.
  in_every_source("diag_corpus", [](const ProfileRun& run) {
    EXPECT_EQ(analysis_of(run, "gather_random").bottleneck.cause, "scattered_access");
  });
}

// Set 11 runs torch.compile: 162 launches over 20 s, the GPU idle 99.99% of the span while the host compiles. Gaps of
// a millisecond or more are host work, not launch cost: no gap item claims them, a 1-block kernel launched a few
// times does not own them, and kl_div's three 0.5 GB intermediates rank fusion first (a share of the kernels' time).
TEST(DiagnosisHoldout, HostWorkBetweenKernelsIsNotLaunchOverhead) {
  in_every_source("diag_holdout11", [](const ProfileRun& run) {
    for (const auto& o : run.program_opportunities)
      EXPECT_TRUE(o.remedy != "launch_overhead" && o.remedy != "host_sync") << o.remedy << ": " << o.trigger;
    // One item for the chain (PyTorch's multiply, xlogy and add are one `vectorized_elementwise_kernel` of three
    // functors, and three steps, then the reduction): each kernel's saving counted once (the twenty-second session;
    // before, one item per kernel, the middle ones with both neighbours, filled the top 3 with one step).
    std::vector<const Opportunity*> items;
    for (const auto& o : run.program_opportunities)
      if (o.remedy == "fuse_stages" && !o.kernels.empty() && o.kernels.front().rfind("kl_div", 0) == 0)
        items.push_back(&o);
    ASSERT_EQ(items.size(), 1u);
    EXPECT_EQ(items[0]->kernels.size(), 4u) << items[0]->trigger;
    EXPECT_NE(items[0]->kernels.back().find("reduce_kernel"), std::string::npos) << items[0]->kernels.back();
    EXPECT_GE(items[0]->run_gain_pct, 1.5) << items[0]->trigger;
  });
}

// Sets 12 and 13, written, captured and labelled after the session's first changes (kprof 112748c) to test them
// unseen; scored as captured: set 12 cause 7/7/7, first fix 7/7/8 of 10; set 13 cause 7/7/7, first fix 3/3/3 of 11
// (its labeller asks for "tune the library call" on six PyTorch-native kernels; the embedding backward's kernels run
// on autograd's thread, outside the NVTX range its main thread pushed, so no source has counters for that range).
// Then work imbalance across SMs became a cause (below): set 12's first fix 8/8/8.
// Issue 23 (eleventh session): kernels autograd's thread launches belong to the range the calling thread had open,
// so the embedding backward has its kernels (cause +1); PyTorch's and the libraries' kernels get their in-kernel
// remedies through the call (library_tuning, as labelled): set 13's first fix 9/9/9.
// Sixteenth session: a kernel reading host memory through L2 at the link's rate is bound by the link (set 12's
// zero-copy read; ncu mode only: the annotation captures predate the sysmem count in the metric list).
// Twenty-seventh session: a matmul on its own shared-memory tiles is told to use the tensor cores (four blind labels
// of sets 33 and 41 for that kernel shape); set 12's one labeller asked for register tiling of its sgemm_smem_naive
// (onchip_reuse): -1 cause and first fix in every source.
TEST(DiagnosisHoldout, TwelfthAndThirteenthSetScoresDoNotRegress) {
  expect_holdout_score(corpus::holdout_file(12), 10, {{6, 7}, {6, 7}, {7, 8}});
  expect_holdout_score(corpus::holdout_file(13), 11, {{8, 9}, {8, 9}, {8, 9}});
}

namespace {
const Opportunity* largest_item(const ProfileRun& run, const std::string& remedy, const std::string& kernel_part) {
  const Opportunity* best = nullptr;
  for (const auto& o : run.program_opportunities)
    if (o.remedy == remedy && std::any_of(o.kernels.begin(), o.kernels.end(), [&](const std::string& k) {
          return k.find(kernel_part) != std::string::npos;
        }) && (!best || o.run_gain_pct > best->run_gain_pct))
      best = &o;
  return best;
}
}  // namespace

// Fusion across the kernel boundary where the consumer is not at the DRAM roof (issue 23, ninth session).
// SwiGLU's SiLU (PyTorch's strided elementwise kernel, bound by its index arithmetic at a third of the DRAM roof)
// reads half of the up-projection's output and writes what the multiply reads: fusing it with both removes its
// elements' work, most of its time. It is not an epilogue: it reads only half the product's output.
TEST(DiagnosisHoldout, AnElementwiseConsumerBoundByItsIndexMathFuses) {
  in_every_source("diag_holdout13", [](const ProfileRun& run) {
    const Opportunity* o = largest_item(run, "fuse_stages", "lambda(Half)");
    ASSERT_NE(o, nullptr);
    // The up-projection, the SiLU, the multiply and the down-projection: one chain, whose estimate is of the two
    // elementwise kernels' time (the products, compute-bound, save nothing of theirs).
    ASSERT_EQ(o->kernels.size(), 4u) << o->trigger;
    EXPECT_NE(o->kernels[0].find("nvjet"), std::string::npos) << o->kernels[0];
    EXPECT_NE(o->kernels[2].find("BinaryFunctor"), std::string::npos) << o->kernels[2];
    EXPECT_NE(o->kernels[3].find("nvjet"), std::string::npos) << o->kernels[3];
    EXPECT_GE(o->est_gain_pct, 80.0) << o->trigger;
    EXPECT_EQ(largest_item(run, "library_tuning", "lambda(Half)"), nullptr);
  });
}

// A GELU over the whole bf16 output of a cuBLAS GEMM (set 8): the library's epilogue takes it in the call, and the
// consumer's whole time goes. The MLA softmax over cuBLAS scores is not an epilogue (it needs whole rows: shared
// memory), and cuFFT's two passes are a closed call nobody fuses (set 4).
TEST(DiagnosisHoldout, AnElementwisePassOverALibraryProductIsItsEpilogue) {
  in_every_source("diag_holdout8", [](const ProfileRun& run) {
    const Opportunity* o = largest_item(run, "library_tuning", "vectorized_elementwise_kernel");
    ASSERT_NE(o, nullptr);
    EXPECT_NE(o->name.find("epilogue"), std::string::npos) << o->name;
    ASSERT_EQ(o->kernels.size(), 2u);
    EXPECT_NE(o->kernels.front().find("nvjet"), std::string::npos) << o->kernels.front();
    // The consumer's whole time (capped at max_gain_pct), not its bytes' share of it.
    EXPECT_GE(o->est_gain_pct, 95.0) << o->trigger;
    EXPECT_EQ(o->trigger.find("the next stage reads"), std::string::npos) << o->trigger;
  });
  in_every_source("diag_holdout4", [](const ProfileRun& run) {
    std::size_t fft = 0;
    for (const auto& st : run.stages)
      for (const auto& g : st.kernels) fft += g.kernel.find("fft") != std::string::npos;
    ASSERT_GE(fft, 2u);  // cuFFT's two passes are there, at the DRAM roof, writing what the other reads
    EXPECT_EQ(largest_item(run, "fuse_stages", "fft"), nullptr);
    EXPECT_EQ(largest_item(run, "library_tuning", "fft"), nullptr);
  });
}

// A kernel that only moves data, whose output the next kernel of its range reads, is folded into that kernel's loads
// (set 17, tenth session of issue 23): Llama's repeat_kv copy before cuDNN attention, the `.float()` of bf16 logits
// before log_softmax; a library consumer's item says to give the call the source. A fill is left alone, and
// cuBLAS's batched getrf after PyTorch's lu_factor clone (set 6) is a closed call.
TEST(DiagnosisHoldout, ACopyOrCastBeforeItsConsumerIsFoldedIntoItsLoads) {
  in_every_source("diag_holdout17", [](const ProfileRun& run) {
    for (const std::string consumer : {"cudnn_generated", "cunn_SoftMaxForward"}) {
      const Opportunity* o = largest_item(run, "fuse_stages", consumer);
      ASSERT_NE(o, nullptr) << consumer;
      // cuDNN's attention is a library call: the copy goes by a call that takes the cache as it is.
      EXPECT_NE(o->name.find(consumer == "cudnn_generated" ? "Drop" : "Fold"), std::string::npos) << o->name;
      ASSERT_EQ(o->kernels.size(), 2u);
      EXPECT_NE(o->kernels.front().find("elementwise_kernel"), std::string::npos) << o->kernels.front();
      EXPECT_NE(o->kernels.back().find(consumer), std::string::npos) << o->kernels.back();
      EXPECT_GE(o->est_gain_pct, 95.0);  // the copy's whole time: both widen (bf16 to fp32, 8 heads to 32)
    }
    // `std + eps` on 512 floats between `x - mean` and the division does not hide the division's producer.
    bool division = false;
    for (const auto& o : run.program_opportunities)
      for (std::size_t k = 0; o.remedy == "fuse_stages" && k + 1 < o.kernels.size(); ++k)
        if (o.kernels[k].find("CUDAFunctor_add") != std::string::npos &&
            o.kernels[k + 1].find("BinaryFunctor") != std::string::npos)
          division = true;
    EXPECT_TRUE(division);
  });
  // lu_factor's same-size clone feeds cuBLAS's batched getrf, a closed library call: nothing pairs them.
  in_every_source("diag_holdout6", [](const ProfileRun& run) {
    EXPECT_EQ(largest_item(run, "fuse_stages", "getrf"), nullptr);
  });
  in_every_source("diag_holdout2", [](const ProfileRun& run) {
    for (const auto& o : run.program_opportunities)
      if (o.name.find("Fold") != std::string::npos) {
        EXPECT_EQ(o.name.find("adamw"), std::string::npos) << o.name;
      }
  });
}

// Without FLOP counts (CUPTI's counters), a kernel doing no floating-point math is one whose FMA-pipe work is all
// integer and that runs no FP64: set 45's bit-unpacking kernel, IMADs alone, writes 0.25 GB that the filter reads
// back; both blind labels fuse them, which Nsight Compute's FLOP counts found and CUPTI's did not.
TEST(DiagnosisHoldout, AKernelWithOnlyIntegerWorkMovesDataWithoutFlopCounts) {
  in_every_source("diag_holdout45", [](const ProfileRun& run) {
    const Opportunity* o = largest_item(run, "fuse_stages", "select_between");
    ASSERT_NE(o, nullptr);
    ASSERT_EQ(o->kernels.size(), 2u);
    EXPECT_NE(o->kernels.front().find("unpack_column"), std::string::npos) << o->kernels.front();
    EXPECT_NE(o->trigger.find("no floating-point math"), std::string::npos) << o->trigger;
  });
}

// A concatenation whose output the next kernel reads is a copy the inputs' producers avoid by writing in place
// (sets 18 and 39: a KV cache re-copied whole by torch.cat each decode step, then read by attention; all four blind
// labels: "preallocate the cache and write the new token in place", dram_traffic). The item drops the copy (not a
// fusion); torch.cat as a case's whole work, with nothing after it in its range (set 3), gets no such item.
TEST(DiagnosisHoldout, AConcatenationFeedingItsConsumerIsWrittenInPlace) {
  for (const char* program : {"diag_holdout18", "diag_holdout39"})
    in_every_source(program, [&](const ProfileRun& run) {
      const Opportunity* o = largest_item(run, "dram_traffic", "CatArrayBatchedCopy");
      ASSERT_NE(o, nullptr) << program;
      EXPECT_NE(o->name.find("in place"), std::string::npos) << o->name;
      EXPECT_NE(o->trigger.find("a concatenation"), std::string::npos) << o->trigger;
      ASSERT_EQ(o->kernels.size(), 2u);
      const std::string consumer = std::string(program) == "diag_holdout18" ? "cudnn" : "flash_fwd";
      EXPECT_NE(o->kernels.back().find(consumer), std::string::npos) << o->kernels.back();
      EXPECT_GE(o->est_gain_pct, 95.0);  // the copy's whole time
      // No fusion item for the same pair in the case's range (set 18's GeGLU chain ends in a concatenation of its
      // own; the warm-up launches outside any range pair by kernel name, as unmarked stages do).
      const std::string range = std::string(program) == "diag_holdout18" ? "kv_cache_cat_decode" : "kv_cache_cat_append";
      EXPECT_NE(o->kernels.front().find(range), std::string::npos) << o->kernels.front();
      for (const auto& f : run.program_opportunities) {
        if (f.remedy != "fuse_stages") continue;
        for (std::size_t k = 0; k + 1 < f.kernels.size(); ++k) {
          EXPECT_FALSE(f.kernels[k].find("CatArrayBatchedCopy") != std::string::npos &&
                       f.kernels[k].find(range) != std::string::npos &&
                       f.kernels[k + 1].find(consumer) != std::string::npos)
              << f.trigger;
        }
      }
    });
  in_every_source("diag_holdout3", [](const ProfileRun& run) {
    EXPECT_EQ(largest_item(run, "dram_traffic", "CatArrayBatchedCopy"), nullptr);
  });
}

// cuDNN converting an NCHW convolution's input and output to and from the NHWC layout its implicit GEMM computes in
// (sets 11 and 34, both labellers of each: "run it channels_last"): one item for the call, its conversions' whole
// time, a change to the call that removes DRAM traffic. The library's other copies (a weight conversion of a few KB)
// and kernels without a library matrix product beside them are not conversions of a call.
TEST(DiagnosisHoldout, ALibraryCallWrappedInLayoutConversionsIsPassedItsLayout) {
  for (const char* program : {"diag_holdout11", "diag_holdout34"})
    in_every_source(program, [&](const ProfileRun& run) {
      const Opportunity* o = largest_item(run, "library_tuning", "nchwToNhwc");
      ASSERT_NE(o, nullptr) << program;
      EXPECT_EQ(o->kernel_remedy, "dram_traffic");
      EXPECT_NE(o->name.find("channels_last"), std::string::npos) << o->name;
      ASSERT_EQ(o->kernels.size(), 3u) << o->trigger;
      EXPECT_NE(o->kernels[1].find("nhwcToNchw"), std::string::npos) << o->kernels[1];
      EXPECT_NE(o->kernels[2].find("implicit_gemm"), std::string::npos) << o->kernels[2];
      EXPECT_GE(o->est_gain_pct, 95.0);
      // More of the run than any item of the convolution kernel itself.
      for (const auto& st : run.stages)
        for (const auto& g : st.kernels)
          if (g.kernel.find("implicit_gemm") != std::string::npos && g.analysis) {
            for (const auto& k : g.analysis->opportunities) EXPECT_GT(o->run_gain_pct, k.run_gain_pct) << k.name;
          }
      // The conversions outlast the convolution's kernel (set 34: 575 us against 385; set 11: 355 against 324): the
      // range is bound by that data movement (memory-bound, both of set 34's labellers), whatever each conversion's
      // counters read alone (memory latency, DRAM bandwidth, issue).
      for (const auto& st : run.stages)
        if (st.kernels.size() > 2 && st.name.find("nchw") != std::string::npos) {
          ASSERT_TRUE(st.time_bound.has_value()) << program << ": " << st.name;
          EXPECT_EQ(st.time_bound->cause, "memory_bound") << program;
          EXPECT_NE(st.time_bound->key_issue.find("layout conversions"), std::string::npos) << st.time_bound->key_issue;
        }
    });
  // Set 4's transposed convolution: its input conversion counts though a quarter of its output was still in L2 when
  // it ended (0.067 GB read, 0.050 GB counted written) and its bytes are a quarter of what the call reads (0.27 GB: a
  // convolution reads its input several times). cuFFT's passes in the same set have no matrix product beside them.
  in_every_source("diag_holdout4", [&](const ProfileRun& run) {
    const Opportunity* o = largest_item(run, "library_tuning", "nhwcToNchw");
    ASSERT_NE(o, nullptr);
    ASSERT_EQ(o->kernels.size(), 3u) << o->trigger;
    EXPECT_NE(o->kernels.front().find("nchwToNhwc"), std::string::npos) << o->kernels.front();
    EXPECT_NE(o->kernels.back().find("dgrad"), std::string::npos) << o->kernels.back();
    for (const auto& p : run.program_opportunities)
      if (p.name.find("layout it computes in") != std::string::npos) {
        for (const auto& k : p.kernels) EXPECT_EQ(k.find("fft"), std::string::npos) << k;
      }
  });
  // Elsewhere no library kernel converts a call's layout: PyTorch's own transposing copies before cuBLAS are the
  // caller's (folded, or coalesced).
  for (const char* program : {"diag_holdout13", "diag_holdout18"})
    in_every_source(program, [&](const ProfileRun& run) {
      for (const auto& o : run.program_opportunities)
        EXPECT_EQ(o.name.find("layout it computes in"), std::string::npos) << program << ": " << o.name;
    });
}

// Every 16th block of a one-wave grid does 48x the work: the SMs are active 16% of the kernel's time while the FMA
// pipe is 64% busy on them. Annotation has no SM active cycles; issue active over elapsed against over active
// cycles gives the same share, so every source names the imbalance.
TEST(DiagnosisHoldout, WorkImbalanceAcrossSmsIsACause) {
  in_every_source("diag_holdout12", [](const ProfileRun& run) {
    const auto& a = analysis_of(run, "skewed_block_work");
    EXPECT_EQ(a.bottleneck.cause, "sm_imbalance");
    ASSERT_FALSE(a.opportunities.empty());
    EXPECT_EQ(a.opportunities.front().remedy, "imbalance");
  });
  // Kernels that fill their SMs do not read so (the designed corpus: no case names it).
  in_every_source("diag_corpus", [](const ProfileRun& run) {
    for (const auto& st : run.stages)
      for (const auto& g : st.kernels)
        if (g.analysis) {
          for (const auto& c : g.analysis->causes) EXPECT_NE(c.id, "sm_imbalance") << g.kernel;
        }
  });
}

// Sets 14 and 15 (ninth session of issue 23), written by helpers who did not read the rules, captured and labelled
// blind (scripts/holdout_label_kit.py). Scored as captured (kprof ebc7716): set 14 cause 9/9/9, first fix 4/4/4 of
// 12; set 15 cause 8/8/8, first fix 5/6/5 of 12. These floors are the score after the changes they prompted.
TEST(DiagnosisHoldout, FourteenthAndFifteenthSetScoresDoNotRegress) {
  // Fourteenth session: the per-step scratch allocation's range, its GPU idle most of each instance, is bound outside
  // its kernels (Stage::bound): cause 11/11 in annotation (one instance a repetition in ncu mode's trace).
  // Fifteenth session: the pageable chunked upload's range is bound by the host link (cause 12/12), and the precise
  // field evaluation's special-function pipe wants fewer MUFU instructions (first fix 11/11, 9 in ncu mode).
  // Twenty-sixth session: the eight serial expert launches' grid items are taken in by the range's "run them side
  // by side, or as one launch over all their blocks" (overlap_stages), where the label names the grouped launch
  // (grid_fill, "overlap_stages is the equivalent alternative"): first fix 10 in annotation.
  // Thirty-fourth session: a range called once with nothing loaded in it and little host work has its figures: in
  // ncu mode (one instance a repetition) the serial experts take the range's overlap item (-1 first fix, as in
  // annotation; the scratch allocation's range, the host's work most of it, still has none): 10/8.
  expect_holdout_score(corpus::holdout_file(14), 12, {{12, 10}, {12, 10}, {10, 8}});
  // Set 15's ncu-mode capture stopped at its 150 s step limit before the message-passing case's kernels.
  // Twelfth session: its annotation forms captured again with copy records; the per-step pageable upload is told to
  // copy from pinned memory (first fix 9 / 8 in annotation). Thirteenth: the three-pass softmax at the DRAM roof is told
  // to move fewer bytes (an item without a figure): first fix 10/9/8.
  // Twentieth session: a range idle at least 20% of its span, and more than its kernels' first items save of it, is bound outside its kernels: cause +1 in both annotation sources.
  // Thirty-third: the GPU idle inside a pageable copy's call is the copy's staging, not the host waiting (set 48's
  // GPS uploads, both blind labels host_link): the per-step pageable upload's range reads host_link with ncu counters
  // and its GEMM's tensor pipe with CUPTI's (labelled launch_overhead, before kprof had a host-link cause): cause -1 in
  // both annotation sources.
  // Thirty-ninth: without FLOP counts a kernel of integer work alone only moves data (CUPTI's counters): the message
  // passing's gather is folded into its consumer, its labelled fix: first fix +1 with CUPTI's counters.
  expect_holdout_score(corpus::holdout_file(15), 12, {{9, 10}, {9, 10}, {9, 8}}, {"gnn_message_passing_f32"});
}

// Sets 16 and 17 (tenth session of issue 23), captured with kprof c741890 and labelled blind. As captured: set 16
// cause 9/9/9, first fix 7/7/6 of 12; set 17 cause 6/5/6, first fix 7/7/6. These floors are the score after the
// changes they prompted. Set 17's ncu mode stopped at its step limit before the int8 case.
// Eleventh session: the Adam step's 24 per-layer sub-ranges are one stage, "adam_step_layers/layer*" (cause +1 in
// every source), and its launches, with no host wait between them, are told to cut launch overhead, not host waits
// (the program synchronises once per case): first fix 8/8/7.
// Thirteenth session: both annotation forms recaptured with copy records. Set 17's Triton Fourier-feature kernel reads
// occupancy_registers (cause and first fix +1 in both). Set 16's harness's blocking read-backs between the cases make
// a program host_sync item that names no case (its gaps lie between the stages), so the Adam step and the embedding
// bag keep their own launch-overhead items (first fix stays 8). The GEMV run once per query and the gradient
// accumulation, at the DRAM roof, are told to move fewer bytes (an item without a figure): first fix 10/10/9; set 17's
// per-call cast of fp32 weights likewise (12 in annotation with ncu counters).
TEST(DiagnosisHoldout, SixteenthAndSeventeenthSetScoresDoNotRegress) {
  // Thirty-second session: float math promoted to FP64 is the FP64 pipe, fixed in FP32 (the exact GELU, labelled
  // fp_instructions as the nearest id to "use FP32"): cause and first fix +1 with Nsight Compute's counters.
  expect_holdout_score(corpus::holdout_file(16), 12, {{11, 11}, {11, 11}, {11, 10}});
  // Twenty-first session: at the DRAM roof, DRAM reading fewer bytes than the loads' sectors is no gather (the cast
  // of fp32 weights with CUPTI counters: cause and first fix +1); occupancy limits apply where issue has slots to
  // spare (the Fourier-feature kernel in ncu mode at SM 60.2%: cause and first fix +1).
  expect_holdout_score(corpus::holdout_file(17), 12, {{8, 12}, {8, 12}, {8, 11}}, {"int8_weight_dequant_linear_m32"});
}

// What set 14 showed, each in the shared mechanism.
TEST(DiagnosisHoldout, FourteenthSetReasoning) {
  in_every_source("diag_holdout14", [](const ProfileRun& run) {
    // A WMMA GEMM whose loads fetch 20 sectors per request where 16 do (worth 17%) beside a tensor pipe 29% busy
    // (77%): the idle pipe leads, its remedy feeding it.
    const auto& gemm = analysis_of(run, "gemm_then_bias_gelu");
    EXPECT_EQ(gemm.bottleneck.cause, "tensor_underfed");
    ASSERT_FALSE(gemm.opportunities.empty());
    EXPECT_EQ(gemm.opportunities.front().remedy, "feed_tensor");
    // WMMA fragments loaded from global memory keep L1 99.9% busy: L1 names the bound, and its re-read data being
    // MMA operands, the remedy is to feed the tensor cores, not generic reuse.
    const auto& frags = analysis_of(run, "wmma_global_frags");
    EXPECT_EQ(frags.bottleneck.cause, "l1_bandwidth");
    ASSERT_FALSE(frags.opportunities.empty());
    EXPECT_EQ(frags.opportunities.front().remedy, "feed_tensor");
    // A layer norm's statistics kernel reads the 0.54 GB input and writes almost nothing; the apply kernel reads it
    // again: one pass reads it once.
    const Opportunity* twice = largest_item(run, "fuse_stages", "ln_row_apply");
    ASSERT_NE(twice, nullptr);
    EXPECT_NE(twice->trigger.find("reads again"), std::string::npos) << twice->trigger;
    EXPECT_GE(twice->est_gain_pct, 35.0) << twice->trigger;
  });
  // A 4-byte convergence read-back after every Jacobi iteration is a host wait, seen by the annotation tracer only
  // as its blocking cudaMemcpy call: the launch gaps' remedy is to stop waiting (host_sync), not a graph.
  for (auto src : {corpus::Source::annotation_ncu, corpus::Source::annotation_cupti}) {
    const auto run = corpus::assemble(corpus::capture_dir("diag_holdout14", src), src, "diag_holdout14");
    const auto& jacobi = analysis_of(run, "jacobi_host_converge");
    ASSERT_FALSE(jacobi.opportunities.empty());
    EXPECT_EQ(jacobi.opportunities.front().remedy, "host_sync") << corpus::source_name(src);
  }
}

// Set 18 (eleventh session of issue 23): PyTorch training-step pieces, eight of them a backward pass whose kernels
// autograd's thread launches, two with per-layer sub-ranges, written by a helper who did not read the rules,
// captured with kprof 8b17085 (whose trace already placed autograd's kernels in the calling thread's range) and
// labelled blind. As captured: cause 8/7/8, first fix 7/6/7 of 12 (annotation ncu / CUPTI / ncu mode); the two nested
// cases had no stage of their own. After numbered sub-ranges became one stage: 10/9/10 and 8/7/8.
TEST(DiagnosisHoldout, EighteenthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(18), 12, {{10, 10}, {9, 9}, {10, 9}});
}

// Set 19 (eleventh session): training and inference step pieces in forms sets 1-18 did not use (backward passes,
// nested blocks and stages, calls whose fix is in the call), written by a helper who did not read the rules, captured
// after every change of the session (kprof 8b17085's collectors) and labelled blind. Scored as captured, with no
// change after: cause 8/8/3, first fix 4/4/2 of 12. Nsight Compute's full capture stopped at its 200 s step limit
// before six cases' kernels: in ncu mode they have no counters. Twelfth session: the depthwise conv's FMA pipe busy
// with integer work is no matmul (cause and first fix +1 in every source), and the sampler's host work between its
// launches is its first fix in both annotation sources; divergence no longer names a kernel whose warps wait on
// memory for more than divergence costs (cause +1 everywhere): 10/10/5 and 6/6/3. Fourteenth session: the sampler's
// range, its GPU idle while the host draws the noise, is bound outside its kernels (cause +1 everywhere; in ncu mode,
// whose counters never reached it, the trace pass measured it, and its host-work item is the first fix): 11/11/6 and
// 6/6/4.
TEST(DiagnosisHoldout, NineteenthSetScoreDoesNotRegress) {
  // Nineteenth session: ncu mode retaken on the H200 with two repetitions and no step limit cutting it (371 s; the
  // first capture stopped before six cases' kernels): cause 11/11/11, first fix 6/6/6. Twentieth session: a pair's
  // fusion item saves its producer's writes of the intermediate too, over the launches that pair (LoRA's unmerged
  // adapter stages, MHA's averaged weights): first fix 8/8/8. Twenty-second session: a chain's fusion items are one
  // item, each kernel's saving counted once (the hand-written RMSNorm backward's chain now outranks the library-tuning
  // item of its case kernel): first fix 9/9/9.
  expect_holdout_score(corpus::holdout_file(19), 12, {{11, 9}, {11, 9}, {11, 9}});
}

// What set 19 showed, in the shared mechanism: an FMA pipe busy with integer work is the integer pipe's bound, not
// a matrix multiply on the CUDA cores; a specific cause does not lead past a larger bound it does not explain; the host's work inside a range (the sampler draws its noise on the CPU each
// step) is an item of its own, ranked first.
TEST(DiagnosisHoldout, NineteenthSetReasoning) {
  in_every_source("diag_holdout19", [](const ProfileRun& run) {
    EXPECT_EQ(analysis_of(run, "dwconv7x7_nchw_bwd_bf16").bottleneck.cause, "int_pipe");
    // Divergence (21 of 32 lanes, worth 16%) does not explain warps waiting on memory 76% of their stalls (43%):
    // the latency names the bound.
    EXPECT_EQ(analysis_of(run, "masked_index_loss_bwd_f32").bottleneck.cause, "memory_latency");
    const Opportunity* host = nullptr;
    for (const auto& o : run.program_opportunities)
      if (o.remedy == "host_work") {
        EXPECT_EQ(host, nullptr) << "one host_work item only: " << o.trigger;
        host = &o;
      }
    ASSERT_NE(host, nullptr);
    EXPECT_EQ(host->scope, "stage");
    EXPECT_NE(host->trigger.find("sampler_steps_host_noise_bf16/step*"), std::string::npos) << host->trigger;
    EXPECT_GE(host->est_gain_pct, 80.0) << host->trigger;
  });
}

// Set 20 (twelfth session of issue 23): twelve hand-written CUDA cases of kinds and forms sets 7-19 did not use,
// written by a helper who did not read the rules, captured with kprof db834b7 and labelled blind. As captured (kprof
// 3c54257): cause 6/7/6, first fix 6/6/6 of 12. After the two occupancy changes it prompted: 8/9/8 and 8/8/8. Its
// annotation forms were captured again once the first passes recorded copies (kprof fa8b533): the two-stream upload
// pipeline serialised by a default-stream memset is told to overlap its copies with its kernels: first fix 9/9/8.
// Thirteenth session: the stencil's device-to-device copy-back after each step (half of each range) is told to go
// (swap the buffers): first fix 10/10/8. Eighteenth: ncu mode captured again with two repetitions (its range figures
// need two instances): 10/10/10.
// Twenty-eighth session: an FP pipe whose warps' stalls are mostly ready-not-picked or throttled is at its roof: first fix 11/11/11 (the rsqrt n-body).
TEST(DiagnosisHoldout, TwentiethSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(20), 12, {{8, 11}, {9, 11}, {8, 11}});
}

// Set 21 (twelfth session): work the user did not write by hand (torch.compile, FP8 scaled_mm, SDPA, a Triton grouped
// GEMM, F.fold) and host-side loop structure, written by a helper who did not read the rules, captured with kprof
// fa8b533 (the annotation tracer recording copies) and labelled blind. Scored as captured, with no change after:
// cause 6/5/4, first fix 7/7/4. Nsight Compute's full capture stopped at its 170 s step limit before six cases.
// After the change it prompted (SM activity from issue over elapsed and active cycles where each block has a warp for
// every sub-partition; imbalance in a grid just under one wave): 7/6/4 and 8/8/4. Thirteenth session: the scorer's
// 1% floor reads the case's share on the items' scale without the launch-bound groups' idle time, so the
// graph-break case's fusion item (62% of its pair) counts: first fix 9/9/4. Fourteenth session: ranges whose GPU idles
// most of each instance (per-step .item() syncs, a sync around every op, token ids built in Python, a Python loop of
// 256 tiny reductions where the idle share passes half) are bound outside their kernels: cause 11/9/4; and a range's
// launch gaps are an item of its own where the program's launch-gap item does not name it (the sync around every op:
// remove the synchronisations): first fix 10/10/4. Seventeenth session: in a range bound outside its kernels, the
// launch-overhead item of the stage's kernel that owns the gaps (stood for the range's own item) leads as the range's
// would (the per-sequence means, whose main kernel is bound by its 8-block grid): first fix 11/10/4. Nineteenth
// session: a graph cannot span the host's waits between a range's launches, so they go first (the per-step .item()
// syncs): first fix 12/11/4.
TEST(DiagnosisHoldout, TwentyFirstSetScoreDoesNotRegress) {
  // Nineteenth session: ncu mode retaken with two repetitions, complete (242 s): 10/12 cause, 11/12 first fix.
  // Twentieth session: a range idle at least 20% of its span, and more than its kernels' first items save of it, is bound outside its kernels: the per-sequence means with CUPTI counters (first fix +1); the fp8 decode GEMM at its DRAM
  // roof inside a range idle 30%, labelled from its kernel: cause -1 with ncu counters (CUPTI: one case each way).
  // Twenty-first session: the graph-break intermediate with CUPTI counters at the DRAM roof, its sectors re-fetched on
  // chip, reads DRAM-bound, not uncoalesced: cause +1.
  // Thirty-fifth session: col2im's fixed-latency waits on its FMA pipe, 53% busy with integer multiply-adds, name the
  // integer pipe (wait_pipe_bound_pct), as the blind labels: cause +1 in every source.
  expect_holdout_score(corpus::holdout_file(21), 12, {{11, 12}, {11, 12}, {11, 11}});
}

// Set 22 (fourteenth session): hand-written CUDA cases (two kernels at the DRAM roof, one moving twice its bytes; an
// unpipelined mma.sync GEMM; a one-counter work queue; unfused FP32; sparse divergence) and program-level ones (a
// pinned allocation per frame, per-sequence launches, one-stream serialisation, a graph rebuilt every step, a host
// round trip), written by a helper who did not read the rules, captured with kprof dcf5126 and labelled blind. Scored
// as captured, with no change after: cause 10/9/10, first fix 6/7/7. The CUPTI counter pass has no counters for the
// graph's kernels. Seventeenth session: a long call with the GPU idle all along is the host's work in the driver,
// not a wait (the per-frame cudaHostAlloc): first fix 8/8/7; kernels that ran as graph nodes leave the gaps between
// the graph's launches to the range, host work there (the graph rebuilt every step): 9/8/7; copies taking the same
// bytes down to the host and back are an intermediate to keep on the GPU (the stage hand-off): 10/9/7. Eighteenth: ncu
// mode captured again with two repetitions: cause 12/11/12, first fix 10/9/10.
TEST(DiagnosisHoldout, TwentySecondSetScoreDoesNotRegress) {
  // Twentieth session: a range idle at least 20% of its span, and more than its kernels' first items save of it, is bound outside its kernels: cause and first fix +1 with CUPTI counters.
  // Twenty-sixth session: the six serial option-pricing launches get "run them side by side" (both labels): 11.
  // Thirty-eighth: an intermediate's size is what its consumer reads where the producer's counted writes fall short by
  // L2's dirty bytes (opportunities.l2_dirty_share): the renormalised database's 64 MiB now gets "fuse the norm into the
  // scoring" (the second label's fix; the first label's is dram_traffic, hoisting the norm out of the loop): 11/10/11.
  expect_holdout_score(corpus::holdout_file(22), 12, {{12, 11}, {12, 10}, {12, 11}}, {"graph_rebuilt_per_step"});
}

// Set 24 (fifteenth session): hand-written CUDA cases (blocks of 40 threads, a volatile poll, loop-invariant Lanczos
// weights, calls through function pointers, a transpose at the roof, dead trace stores) and program-level ones
// (whole-buffer memsets, a host callback per step, a polling host wait, a device-wide sync, widened uploads, whole-map
// read-backs), written by a helper who did not read the rules, captured with kprof a950b54 and labelled blind. Scored
// as captured, with no change after: cause 6/6/5, first fix 4/5/4. After the changes it prompted (a range of copies
// bound by the host link or by DRAM, and its items; host functions on the stream as host work): 9/9/5 and 8/8/4; ncu
// mode runs each case once, and a range needs two instances for its figures. Seventeenth session: copies on a stream
// of their own serialised by a device-wide synchronisation (the checkpoint copy): first fix 10/10/5. Eighteenth: the
// host polling with sleeps (the relaxation loop's queries) is spin_wait: 11/11/5; ncu mode captured again with two
// repetitions: cause 10/10/10, first fix 11/11/11.
TEST(DiagnosisHoldout, TwentyFourthSetScoreDoesNotRegress) {
  // Twentieth session: a range idle at least 20% of its span, and more than its kernels' first items save of it, is bound outside its kernels: cause +1 per source.
  // Twenty-third: DRAM at/above 81.5% of the measured roof is at it (the padded transpose at 82.6%): first fix +1.
  // Thirty-eighth: copies on a side stream held behind a device-wide synchronisation bind the range by that
  // synchronisation (launch_overhead, as both labels read the checkpoint copy), not by the host link: cause +1.
  expect_holdout_score(corpus::holdout_file(24), 12, {{12, 12}, {12, 12}, {12, 12}});
}

// Set 25 (fifteenth session): PyTorch and Triton cases (a 7x7 stride-1 average pool, fake quantisation at the roof,
// Poisson sampling, a Triton soft histogram and a float64 t-SNE kernel; torchvision's eager focal loss, a prefetch on
// the compute stream, per-sample pageable uploads, an FFT per new length, anomaly detection left on, greedy NMS,
// per-parameter SGD), captured with kprof a950b54 and labelled blind. Scored as captured: cause 11/12/8, first fix
// 5/5/4 (ncu mode 10 cases scored: its capture stopped at 200 s). After the changes it prompted (a special-function
// pipe wants fewer MUFU instructions; only waits among a stage's own launches make its gaps host synchronisation):
// 11/12/8 and 7/7/5. Seventeenth session (calls with the GPU idle all along are host work: cuFFT's plan building per
// clip length): first fix 7/8/5; the average pool's loads fetch 58x what DRAM reads, reuse on chip: 8/9/6; a range's
// item shares of its typical instance's span, not of the mean with a first call's set-up (the prefetch on the compute
// stream; the FFT plans with CUPTI counters): 9/10/6.
// Nineteenth session: waits between a range's launches go before a graph (anomaly detection's checks, the NMS loop's
// boolean indexing): first fix 11/12/6.
TEST(DiagnosisHoldout, TwentyFifthSetScoreDoesNotRegress) {
  // Twentieth session: a range idle at least 20% of its span, and more than its kernels' first items save of it, is
  // bound outside its kernels: cause +1 with ncu counters. Thirtieth session: a range's launch-gap item counts the
  // typical instance once per instance, as its other items do: the FFT per new clip length's host work (3.25 ms of each
  // range) leads over its launch gaps (3.15 ms) with ncu counters too: first fix 12/12.
  // Thirty-fourth session: a range called once with nothing loaded in it and little host work has its figures (ncu
  // mode's one repetition): the per-parameter SGD loop is launch-bound there too: 9/7.
  // Thirty-fifth session: the pinned prefetch on the GEMMs' stream (its copies 34% of the range, more than the GEMMs'
  // items save of it) is bound by the host link (copy_outweighs_min_share), as the second labeller said
  // (memory_bound); the first said tensor_pipe: cause -1 in both annotation sources.
  // Thirty-ninth: an upload staged whole in its call before its DMA is that copy's time (matched by correlation id),
  // and copies longer than the range's idle time bind it first: the per-sample collate's 128 pageable copies read
  // host_link (both labels launch_overhead, written before kprof had a host_link id; set 51's Criteo columns, the
  // same pattern, host_link by both of its labels): cause -1 in both annotation sources.
  expect_holdout_score(corpus::holdout_file(25), 12, {{10, 12}, {10, 12}, {9, 7}},
                       {"detect_anomaly_train_step_bf16", "nms_greedy_bool_index_loop",
                        "sgd_momentum_per_param_loop_f32"});
}

// Sets 26 and 27 (written by a helper in the fifteenth and sixteenth sessions, captured in the eighteenth with kprof
// 5a5a2b7 and labelled blind by two labellers each, who agree on 19 of 20 causes and fixes): hand-written CUDA cases
// (a sine series on the special-function pipe, array-of-structs reads, private histograms in one bank, an EMA at the
// roof, one block per tensor, calibration uploaded per batch, a copy back where a swap would do, points made on the
// host, whole-state read-backs, a scalar read-back per iteration; a loss swept per delta from L2, a direct vertical
// blur, shuffle broadcasts, weights in mapped host memory, managed memory first touched in a kernel, a prefetch before
// a kernel, a WMMA GEMM with a sync per tile, a side kernel beside an RK4 ensemble, a spectrum at the roof, a CDF
// binary search). Scored as captured, before any change they prompted: set 26 cause 9/9/9, first fix 8/8/8; set 27
// cause 8/7/8, first fix 7/7/7 (bench/RESULTS.md §9v). After the changes they prompted (waits on MIO results want
// fewer MIO instructions; the host link binds a zero-copy kernel like a saturated unit, its item prefetch; device
// copies beside a kernel waiting on memory make the range memory bound): set 26 cause 10/10/10, set 27 first fix 9/9/9.
// Thirty-eighth session: at the special-function pipe's roof the lever is fewer MUFU instructions, unestimated
// (the Fourier series): first fix 9/9/9.
TEST(DiagnosisHoldout, TwentySixthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(26), 10, {{10, 9}, {10, 9}, {10, 9}});
}

TEST(DiagnosisHoldout, TwentySeventhSetScoreDoesNotRegress) {
  // Thirty-second session: the WMMA FFN GEMM's low occupancy does not explain its underfed tensor pipe (CUPTI +1).
  expect_holdout_score(corpus::holdout_file(27), 10, {{9, 9}, {9, 9}, {9, 9}});
}

// Set 28 (written by a helper in the eighteenth session without reading the rules, captured with kprof 06f844b and
// labelled blind by two labellers, who agree on 10 of 10 causes and 8 of 10 fixes): a serial offset loop behind a
// barrier, a system fence per record, Hilbert keys on the integer pipes, per-channel tables gathered at random,
// divergent constant coefficients, an FP64 gravity sum, a three-kernel NDVI chain, eight small ensembles on one
// stream, an allocation per frame, pageable uploads. The unseen test of that session's changes; scored as captured:
// cause 6/6/6, first fix 5/4/5 (bench/RESULTS.md §9v). Since: the pageable uploads host_link (page_migration, the
// labellers' nearest id, counted for it), the ensembles' "run them side by side" item (bench/RESULTS.md §9zd).
// Thirtieth session: pageable uploads filling most of their range are uploaded ahead of use (prefetch): first fix +1.
// Thirty-third session: fence waits near the DRAM roof name the kernel (the per-element system fence: memory_fence /
// fences, both blind labels): +1/+1 in every source.
TEST(DiagnosisHoldout, TwentyEighthSetScoreDoesNotRegress) {
  // Thirty-second session: the calibration-table gathers re-read what L2 holds: scattered, locality (8/9 with ncu
  // counters).
  // Thirty-fifth session: the FP64 tracer's fixed-latency waits on its FP64 pipe (68.5%) name the pipe (cause +1 in
  // every source); its estimate is then the pipe's room to 80% (14%), over the designed label's "nothing to gain"
  // (first fix -1; the second labeller asked for pipe throughput).
  // Thirty-seventh session: a short range's blocking calls get their item by their share, not a 1 ms floor (the edge
  // histograms with CUPTI's counters: first fix +1).
  expect_holdout_score(corpus::holdout_file(28), 10, {{10, 9}, {9, 8}, {10, 9}});
}

// Set 30 (nineteenth session): ten hand-written CUDA cases by a helper who did not read the rules (register- and
// shared-memory-limited occupancy, a 12-byte struct read for one field, 255 KiB of hot code, divergent rejection
// sampling, work imbalance across SMs, bit-reversal scatter stores, a symbol upload per step, a copy per ROI row, an
// unfused Euler step), captured on the H200 and labelled blind twice. Scored as captured: cause 6/5/6, first fix 6/5/6;
// a grid of one block per SM under one wave whose SMs idle most of the kernel is imbalanced: 7/6/7 and 7/6/7; a
// blocking upload before each step is a wait between launches, whose drop hides the launch calls: first fix 8/7/8;
// 2048 copies of 2 KiB bind their range by their count (launch overhead), not the link: cause 8/7/8.
// Twentieth session: the Euler step's pair counts the right-hand side's writes and the update's second read of the
// state, and the producer's counted writes may fall short of half the consumer's reads by L2's size: first fix 9/8/9.
TEST(DiagnosisHoldout, ThirtiethSetScoreDoesNotRegress) {
  // Twentieth session: a range idle at least 20% of its span, and more than its kernels' first items save of it, is bound outside its kernels (the diffusion steps, 43% idle): cause +1 per source.
  // Thirty-seventh session: a fused chain of memory-side kernels binds its range (the Euler step: dram_bandwidth, as
  // both labels; +1 cause in every source).
  expect_holdout_score(corpus::holdout_file(30), 10, {{10, 9}, {9, 8}, {10, 9}});
}

// Set 31 (twentieth session, captured on an H100): PyTorch and Triton cases written by a helper who did not read the
// rules (an fp8 scaled_mm writing 1 GiB of scores, a Triton inverse-CDF gather from a 2 MiB table, an MoE bmm at the
// tensor roof, cuBLAS on 2^21 3x3 matrices, a W8A8 int_mm with an eager dequant chain, SwAV's Sinkhorn passes, a
// noisy batch, NeRF's sample_pdf chain, RoPE tables built in NumPy per step, an MoE loop syncing on torch.where),
// labelled blind twice. Scored as captured: cause 6/7/7, first fix 5/5/5; the MoE loop's range knows its waits, and
// the program item that holds its gaps takes its remedy: first fix 6/6/5; a library's matrix multiply on the CUDA
// cores gets the tensor cores through its call (TF32 math, a dtype), as its other in-kernel remedies: 7/7/6.
// Twenty-third session: the fp8 GEMM at 84.8% of the measured DRAM roof is at it (the cut moved to 81.5%): 8/8/7.
TEST(DiagnosisHoldout, ThirtyFirstSetScoreDoesNotRegress) {
  // Thirty-second session: the inverse-CDF table lookups re-read what L2 holds: scattered, locality.
  // Thirty-second session: the driver's own work in the host's calls is not a winnable launch gap: the MoE loop's
  // host_sync item leads in ncu mode too (first fix +1 there).
  expect_holdout_score(corpus::holdout_file(31), 10, {{9, 9}, {8, 8}, {9, 9}});
}

// Set 32 (twenty-first session, captured on an H100): PyTorch and Triton cases written by a helper who did not read
// the rules, of the kinds kprof was weakest on (L2-resident gathers: a 3-D grid_sample and a Triton count-min sketch;
// a trilinear upsample of 64 blocks, a depthwise 7x7x7 conv3d, two eager chains of L2-sized intermediates, top-p
// sampling, a sparse COO GCN layer, two ranges whose host work precedes their first launch), labelled blind twice.
// Scored as captured: cause 3/3/3, first fix 4/4/4; the host's computing in a range before its first launch is the
// range's host work (the voxel keys' np.unique): cause 4/4/4. Twenty-second session: kernels of one range sharing an
// under-filled launch shape are one grid-fill item (top-p's softmax, scan and reductions over 64 rows): first fix 5/5/5.
TEST(DiagnosisHoldout, ThirtySecondSetScoreDoesNotRegress) {
  // Thirty-second session: the 3-D grid_sample re-reads the volume L2 holds: scattered, locality. Thirty-fourth: the
  // Dice loss and the detection-head decode, queued behind earlier work, are paced by the host's launches (cause
  // 7/6/7, first fix 8/7/8); the count-min sketch's L2 hits re-read hot entries of gathers (8/6/8, 9/7/9).
  // Thirty-eighth: a stage whose leading item fills the GPU in several kernels is bound by its grid (top-p sampling's
  // 64-block scan, softmaxes and reductions): cause 9/7/9.
  expect_holdout_score(corpus::holdout_file(32), 10, {{9, 9}, {7, 7}, {9, 9}});
}

// Set 33 (twenty-second session): ten hand-written CUDA cases written by a helper who did not read the rules, captured
// on an H100, labelled blind twice (the labellers agree on every cause and first fix). Scored as captured: cause
// 8/8/8, first fix 6/6/6. One-warp blocks at the block cap of a latency-bound kernel ask for occupancy (the B+-tree
// lookups): 9/9/9 and 7/7/7.
// Twenty-seventh session: the shared-tiled SGEMM on its own tiles is told to use the tensor cores: 10/10/10, 8/8/8.
// Twenty-eighth session: an FP pipe whose warps' stalls are mostly ready-not-picked or throttled is at its roof: first fix 9/9/9 (the fp16 allpass bank).
// Thirty-third session: the overlap item counts what pinning the pageable copies saves beyond the hidden kernels
// (ocean frames: overlap_stages first, as both blind labels): first fix +1.
TEST(DiagnosisHoldout, ThirtyThirdSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(33), 10, {{10, 10}, {10, 10}, {10, 10}});
}

// Set 29 (nineteenth session, captured on an H100): PyTorch and Triton cases written by a helper who did not read the
// rules (an LM head of odd vocabulary on an align1 CUTLASS kernel, SDPA at head dim 512, a TF32 channels-last conv, a
// clamp at the DRAM roof, a Triton MinHash and a matmul of 144 tiles, an eager GELU chain, host-built targets, a
// Python GAE loop, a per-step EOS check), labelled blind twice. Scored as captured: cause 7/7/7, first fix 7/7/6; the
// conv's tensor pipe at 82% of its active SMs named over its 9% of idle SMs (as set 11's): cause 8/8/8; the decode
// loop's per-step check is a wait between launches, which a graph cannot span: first fix 8/8/7.
TEST(DiagnosisHoldout, TwentyNinthSetScoreDoesNotRegress) {
  // Twentieth session: a range idle at least 20% of its span, and more than its kernels' first items save of it, is bound outside its kernels: cause +1 with ncu counters.
  // Thirty-ninth: the host-built targets' staged pageable uploads bind their range with Nsight Compute's counters too
  // (host_link, as with CUPTI's and in ncu mode; labelled launch_overhead, the second labeller page_migration):
  // cause -1 there.
  expect_holdout_score(corpus::holdout_file(29), 10, {{8, 8}, {8, 8}, {8, 7}});
}

// Set 29 came on an H100 (the device tool gave one for an H200): its fixture's gpu.txt names the card, and the
// replay takes that card's roofs, as the live run did (profile.json's matched_spec "h100-sxm"), not the H200's.
TEST(DiagnosisHoldout, ASetCapturedOnAnH100IsAnalysedWithTheH100sRoofs) {
  in_every_source("diag_holdout29", [](const ProfileRun& run) {
    EXPECT_EQ(run.device.name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(run.device.matched_spec, "h100-sxm");
  });
  const auto older = corpus::assemble(corpus::capture_dir("diag_holdout28", corpus::Source::annotation_ncu),
                                      corpus::Source::annotation_ncu, "diag_holdout28");
  EXPECT_EQ(older.device.matched_spec, "h200-sxm");
}

// Set 23 (fourteenth session): PyTorch and Triton cases (a float32 softmax then a cast, a blend at the roof, an
// out-of-place index_copy cloning its bank, .tolist() per step, a batch-2 cuDNN GRU, a BLOCK-32 Triton SwiGLU, a
// prime-length FFT, mixed memory formats, unique(dim=0), scatter_reduce amax, a one-group GroupNorm, top-2 routing),
// written by a helper who did not read the rules, captured with kprof dcf5126 and labelled blind. Scored as captured,
// with no change after: cause 9/9/6, first fix 9/9/5. Nsight Compute's full capture stopped at its 200 s step limit
// before the last four cases' kernels. Seventeenth session: a range's item shares of its typical instance's span (the
// memory bank's 128 MB device copy per step, unseen against a first instance of 103 ms of library loading): 9/10/6
// and 10/10/5; cuFFT's Bluestein kernels (multi_bluestein_fft) are a library's: first fix 11/11/6.
TEST(DiagnosisHoldout, TwentyThirdSetScoreDoesNotRegress) {
  // Nineteenth session: ncu mode retaken with two repetitions, complete (265 s): 9/12 cause, 10/12 first fix.
  // Thirty-second session: gathers re-reading what L2 holds (the row dedup) are scattered: +1 cause, fix with ncu
  // counters.
  expect_holdout_score(corpus::holdout_file(23), 12, {{10, 12}, {9, 11}, {10, 12}});
}

// What set 20 showed, in the shared mechanism:
// - An elementwise kernel launched <<<n, 1>>>: every warp one lane wide and 32 threads per SM, which theoretical
//   occupancy (50%, counted in warps) misses. Was "memory latency, more requests in flight" (92%).
// - A chained scan whose blocks sleep on their predecessor's flag (60% of the waits) at 25% theoretical occupancy:
//   more warps hide latency, not waits on other warps, so the occupancy item no longer outranks the sleep.
TEST(DiagnosisHoldout, TwentiethSetReasoning) {
  in_every_source("diag_holdout20", [](const ProfileRun& run) {
    const auto& one = analysis_of(run, "clamp_affine_2m");
    EXPECT_EQ(one.bottleneck.cause, "occupancy_blocks");
    ASSERT_FALSE(one.opportunities.empty());
    EXPECT_EQ(one.opportunities.front().remedy, "occupancy");
    for (const auto& c : one.causes) EXPECT_NE(c.id, "warp_divergence") << "one-thread blocks are no divergence";
    const auto& scan = analysis_of(run, "prefix_sum_chained");
    EXPECT_EQ(scan.bottleneck.cause, "sleeping");
    ASSERT_FALSE(scan.opportunities.empty());
    EXPECT_EQ(scan.opportunities.front().remedy, "spin_wait");
  });
}

// Set 21's skewed Triton grouped GEMM: 256 blocks of 128 threads in 264 slots (0.97 waves, 12.5% theoretical
// occupancy), its SMs active 17% of the time while a few programs loop over the large experts' tokens. Was
// "dependency waits, raise pipe throughput" (39%): the annotation list has no SM-active counter, and its fallback
// needed 8 warps per SM; a 4-warp block gives every sub-partition a warp.
TEST(DiagnosisHoldout, ASkewedGridJustUnderOneWaveIsImbalanced) {
  for (auto src : {corpus::Source::annotation_ncu, corpus::Source::annotation_cupti}) {
    const auto run = corpus::assemble(corpus::capture_dir("diag_holdout21", src), src, "diag_holdout21");
    const auto& moe = analysis_of(run, "triton_moe_grouped_gemm_skewed_bf16");
    EXPECT_EQ(moe.bottleneck.cause, "sm_imbalance") << corpus::source_name(src);
    ASSERT_FALSE(moe.opportunities.empty());
    EXPECT_EQ(moe.opportunities.front().remedy, "imbalance") << corpus::source_name(src);
  }
}

// The backward cases of set 18 are stages of their own in every source (their kernels came from autograd's thread),
// and each nested case is one stage named with its range.
TEST(DiagnosisHoldout, BackwardKernelsAndNestedLayersBelongToTheirCase) {
  in_every_source("diag_holdout18", [](const ProfileRun& run) {
    for (const char* k : {"adaptive_avgpool7_bwd_f32", "layer_norm_chw_bwd_bf16", "sdpa_causal_mask_bwd_bf16"}) {
      const auto& a = analysis_of(run, k);
      EXPECT_FALSE(a.causes.empty()) << k;
    }
    EXPECT_EQ(analysis_of(run, "mlp_layerwise_bwd_bf16/layer*").bottleneck.cause, "tensor_pipe");
    EXPECT_NO_THROW(analysis_of(run, "kv_cache_cat_decode_bf16/layer*"));
    for (const auto& st : run.stages)  // no bare per-layer stage ("layer0") left
      EXPECT_FALSE(st.name.size() <= 7 && st.name.rfind("layer", 0) == 0) << st.name;
  });
}

// Issue 23's bar: no held-out case's report contradicts itself (heading, cause line and row name one cause) or
// carries an item that cannot apply (tensor-core or wgmma advice on a kernel that issues wgmma, FMA fusion on a
// kernel not bound by its pipes, a TC verdict without matrix math, ...: corpus::inapplicable_of). The last one was
// "feed the tensor cores (... wgmma on Hopper)" on Triton's wgmma matmul at 78% of the tensor pipe (set 17); keeping
// its warpgroup MMAs fed is what is left there.
TEST(DiagnosisHoldout, NoCaseContradictsItselfOrCarriesAnInapplicableItem) {
  std::vector<std::filesystem::path> sets = {corpus::holdout_file()};
  for (int n = 2; std::filesystem::exists(corpus::holdout_file(n)); ++n) sets.push_back(corpus::holdout_file(n));
  EXPECT_GE(sets.size(), 18u);
  for (const auto& labels : sets)
    for (const auto& s : corpus::score_all(labels)) {
      EXPECT_TRUE(s.contradictions.empty()) << s.want.stage << " (" << corpus::source_name(s.source)
                                            << "): " << s.contradictions.front();
      EXPECT_TRUE(s.inapplicable.empty()) << s.want.stage << " (" << corpus::source_name(s.source)
                                          << "): " << s.inapplicable.front();
    }
}

// Set 34 (twenty-third session): ten PyTorch and Triton cases written by a helper who did not read the rules (an fp32
// linear on cuBLAS's FFMA SGEMM, a spilling Triton GEMM tile, a Triton histogram of global atomics, cdist's one block
// per output, an EMA at the DRAM roof, cuDNN's NCHW fp16 convolution between two layout transposes, a reference decode
// attention copying its KV cache, a hand-written AdamW, a Python NMS loop, empty_cache per FFN chunk), captured on an
// H100, labelled blind twice (10/10 causes, 9/10 first fixes agree). Scored as captured: cause 9/9/9, first fix 8/8/7.
// Nsight Compute's FPInstructions estimate weighed down where kprof counts no FADD/FMUL pairs (cdist's L1 distance,
// set 4's miss in ncu mode too): 8/8/8.
// Twenty-fourth session: the NCHW convolution's two cuDNN layout conversions (575 of 961 us) are one item for the
// call, passing it channels_last tensors (library_tuning, kernel remedy dram_traffic; both labellers): 9/9/9.
// Thirty-fifth session: the conversions outlasting the convolution's kernel bind its range as memory traffic
// (time_bound): cause 10/10/10.
TEST(DiagnosisHoldout, ThirtyFourthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(34), 10, {{10, 9}, {10, 9}, {10, 9}});
}

// Set 35 (twenty-fourth session): ten CUDA cases on CUB, Thrust and Hopper features written by a helper who did not
// read the rules (CUB's segmented radix sort of tiny segments, a thrust::reduce per row, a 64-bit radix sort of 21-bit
// keys, a segmented reduce over a column view, a reduction at the DRAM roof, a WMMA GEMM with conflicting fragment
// loads, a TMA copy waited on before each tile, 12-block clusters, seq_cst atomic_ref increments, uploads on the
// legacy default stream), captured on an H100 and labelled blind twice (10/10 causes, 9/10 first fixes agree). Scored
// as captured: cause 6/7/6, first fix 5/5/5. The cluster-limited kernel's idle SMs (active 62%, the active ones
// issuing 76% of their cycles) outweigh its occupancy: 7/8/7, 6/6/6. The TMA kernel whose tile copies and math take
// turns (DRAM 77% of its roof, FMA 62%, one block per SM) wants a second stage in flight: 8/9/8, 7/7/7. Uploads and
// read-backs that never ran side by side (blocking uploads on the legacy stream) are told to go asynchronous: 8/8/8.
TEST(DiagnosisHoldout, ThirtyFifthSetScoreDoesNotRegress) {
  // Thirty-second session: Nsight Compute's shared-memory limit under the driver's carveout (1 block) no longer hides
  // the register limit of the segmented radix sort (1 block; 7 at the full carveout): cause +1 with ncu counters.
  expect_holdout_score(corpus::holdout_file(35), 10, {{9, 8}, {9, 8}, {9, 8}});
  in_every_source("diag_holdout35", [](const ProfileRun& run) {
    const auto& a = analysis_of(run, "nbody_cluster_tiles");
    EXPECT_EQ(a.bottleneck.cause, "sm_imbalance");
    ASSERT_FALSE(a.opportunities.empty());
    EXPECT_EQ(a.opportunities.front().remedy, "imbalance");
    const auto& tma = analysis_of(run, "spectra_tma_clenshaw");
    EXPECT_EQ(tma.bottleneck.cause, "memory_latency");
    ASSERT_FALSE(tma.opportunities.empty());
    EXPECT_EQ(tma.opportunities.front().remedy, "memory_parallelism");
    EXPECT_NEAR(tma.opportunities.front().est_gain_pct, 22.5, 1.5);  // to the busier unit's time: DRAM at 77.5%
    // Worded for bulk copies (no loads to widen or unroll).
    EXPECT_NE(tma.opportunities.front().name.find("bulk copies"), std::string::npos) << tma.opportunities.front().name;
    // CUB's reduction at the DRAM roof streams through LSU loads: still at its roof.
    EXPECT_EQ(analysis_of(run, "detector_charge_sum").bottleneck.cause, "dram_bandwidth");
    // Uploads by blocking cudaMemcpy and asynchronous read-backs, one after the other across four streams: the
    // shorter direction (about half the copies' time) hides under the other once the uploads are asynchronous.
    const Opportunity* copies = nullptr;
    for (const auto& o : run.program_opportunities)
      if (o.trigger_metric == "serial_direction_copy_ns" && o.trigger.starts_with("sensor_chunk_streams:")) copies = &o;
    ASSERT_NE(copies, nullptr);
    EXPECT_EQ(copies->remedy, "host_sync");
    EXPECT_NE(copies->name.find("cudaMemcpyAsync"), std::string::npos) << copies->name;
    EXPECT_GE(copies->est_gain_pct, 35.0) << copies->trigger;
    EXPECT_LE(copies->est_gain_pct, 55.0) << copies->trigger;
  });
  // A round trip through host memory (set 22: 32 MiB down, the same 32 MiB up) is not two directions to overlap: the
  // upload waits for its read-back; keeping the data on the GPU is the item.
  in_every_source("diag_holdout22", [](const ProfileRun& run) {
    bool kept = false;
    for (const auto& o : run.program_opportunities) {
      EXPECT_NE(o.trigger_metric, "serial_direction_copy_ns") << o.trigger;
      kept = kept || (o.trigger_metric == "link_copy_ns" && o.trigger.starts_with("stage_handoff_via_host:"));
    }
    EXPECT_TRUE(kept);  // its "keep the intermediate on the GPU" item
  });
}

// Set 36 (twenty-fourth session): ten PyTorch and Triton cases written by a helper who did not read the rules (a
// Triton reduction down a column, a Triton RMSNorm of 8 programs, index_add_ into 19 bins, a Triton softmax spilling
// 256 values a thread, uint8 images normalised through int64, an lm-head GEMM at the tensor roof, a full sort for a
// top-100, pageable batch uploads, weight prefetch serialised by torch.cuda.synchronize(), an LSTMCell stepped from
// Python), captured on an H100, labelled blind twice (9/10 causes, 9/10 first fixes agree). Scored as captured
// (ef2f1a5): cause 7/7/7, first fix 7/7/8. A whole-program "capture a graph" item no longer counts the gaps waits made
// (a graph cannot remove them), so it stops naming the ranges that wait: the prefetch case's own item (synchronise
// only the stream) leads in annotation too: 7/7/7, 8/8/8.
// Thirty-fifth session: host-device copies outweighing what the kernels' items save bind the range to the host link
// (copy_outweighs_min_share): the pageable loader batches and the prefetched weights, cause +2 in every source.
// Thirty-eighth session: the prefetched weights' copies, on a side stream held behind torch.cuda.synchronize(), bind
// the range by that synchronisation (launch_overhead, as set 24's labels read the same pattern) where both of this
// set's labels read the link (page_migration): cause -1 in every source.
TEST(DiagnosisHoldout, ThirtySixthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(36), 10, {{8, 8}, {8, 8}, {8, 8}});
  for (auto src : {corpus::Source::annotation_ncu, corpus::Source::annotation_cupti}) {
    const auto run = corpus::assemble(corpus::capture_dir("diag_holdout36", src), src, "diag_holdout36");
    // The prefetch range's own item: the copies serialised by device-wide synchronisations.
    bool own = false;
    for (const auto& o : run.program_opportunities)
      own = own || (o.trigger_metric == "serial_copy_ns" && o.remedy == "host_sync" &&
                    o.trigger.starts_with("offloaded_weights_prefetch_6_layers_16k_tokens:"));
    EXPECT_TRUE(own);
    for (const auto& o : run.program_opportunities)
      if (o.scope == "program") {
        for (const auto& k : o.kernels) {
          EXPECT_EQ(k.find("offloaded_weights"), std::string::npos) << o.remedy << ": " << k;
          EXPECT_EQ(k.find("loader_uint8"), std::string::npos) << o.remedy << ": " << k;
        }
      }
  }
}

// Set 37 (JAX/XLA and CuPy, H100): as captured 9/8/8 causes and 10/9/9 first fixes; the bilinear gather at 67% of
// the DRAM roof, read as a strided layout in two sources, is a gather (strided_dram_min_pct). The miss left: the
// float64 KDE, labelled fp64_pipe (the pipe at 50%) where kprof named the fixed-latency dependency waits (46% of
// the waiting), with the same first fix; since the thirty-fifth session such waits on a pipe half busy or more name
// the pipe (wait_pipe_bound_pct): 10/10 in every source.
TEST(DiagnosisHoldout, ThirtySeventhSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(37), 10, {{10, 10}, {10, 10}, {10, 10}});
}

// Set 38 (CUDA features, H100): as captured 8/8/7 causes and 5/5/4 first fixes; the cooperative wavefront's grid
// barrier (its warps at __syncthreads for 85% of their waiting) is the barrier, not the atomics of its counter (+1
// cause and fix in every source); the texture-bound bicubic in ncu mode is re-read data through the texture path, not
// other MIO instructions (+1 and +1 there). Left: the device-launched AMR grids (their child kernels are not in the
// trace: kprof sees a small parent grid), the stream-ordered allocations (the whole-program host_sync item leads where
// both labellers ask for host_work), and two split labels.
// Twenty-eighth session: an FP pipe whose warps' stalls are mostly ready-not-picked or throttled is at its roof: first fix 7/7/7 (the half2 FIR).
TEST(DiagnosisHoldout, ThirtyEighthSetScoreDoesNotRegress) {
  // The per-frame graphs' kernels have no counters in the ncu-mode capture (the range is judged from its timeline).
  // Thirty-second session: a synchronisation's tail after the GPU's last work is the driver's work (the stream-ordered
  // pool unmapping its memory at every sync): the Monte Carlo batches read host work, as both blind labels (+1 each).
  expect_holdout_score(corpus::holdout_file(38), 10, {{9, 8}, {9, 8}, {9, 8}}, {"gray_scott_frames_graph_capture"});
}

// Set 39 (PyTorch LLM-inference paths, H100), scored as captured: 9/9/9 causes and 8/8/8 first fixes. Misses: pageable
// read-backs of full log-probabilities (both labellers page_migration, the nearest id to a slow pageable copy; kprof
// memory_bound, same first fix), a decode loop's host detokenisation (host_work; kprof launch_overhead), and a
// torch.cat KV cache (dram_traffic; kprof's first item fuses the stages). With a host_link cause (the twenty-sixth
// session), the pageable read-backs are host_link, which the scorer counts for page_migration in labels written before
// the id existed: causes 10/10/10 (9 with the ids as written).
TEST(DiagnosisHoldout, ThirtyNinthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(39), 10, {{10, 9}, {10, 10}, {10, 9}});
}

// Set 40 (C++ host programs doing their GPU work through cuBLAS, cuBLASLt, cuSPARSE, cuFFT, cuRAND, cuSOLVER and
// Thrust/CUB; H100), captured after the twenty-sixth session's changes and scored as captured: causes 8/8/8, first
// fixes 5/4/6. Misses: the SpMV over a scrambled numbering (both labellers scattered_access / locality; kprof
// uncoalesced_global, or dram_bandwidth with CUPTI counters), a merge sort's cause (the labellers split: memory_bound
// and dram_bandwidth), 40 cuSOLVER calls of 3 blocks each (library_tuning, one batched call; kprof grid_fill, its
// kernel named "kernel" is not recognised as a library's), a CUB scan at 73% of the DRAM peak (none; kprof a 20% call
// change), cuFFT's Bluestein passes (library_tuning; kprof dram_traffic in annotation), and cuRAND, a Thrust transform
// and a CUB reduction passing 1 GB arrays (fuse_stages; no fusion item: CUB's reduction is held closed to fusion).
// Twenty-seventh session: Thrust's and CUB's kernels are open to fusion (the Monte-Carlo chain's item), and a kernel
// named only "kernel" is known by its template arguments (cuSOLVER's: "batch the calls"): 8/8/8, 7/6/8.
// Thirtieth session: a library's kernel at the DRAM roof moves fewer bytes through its call (library_tuning): the
// Bluestein passes, and the particle sort with CUPTI counters: first fix 8/8/8.
// Thirty-seventh session: gathers among coalesced loads are scattered access by the bytes DRAM reads (the CSR
// product: +1 cause, +1 first fix with ncu counters and in ncu mode).
TEST(DiagnosisHoldout, FortiethSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(40), 10, {{9, 10}, {8, 9}, {9, 10}});
}

// Set 41 (a GPT-2-small training step written by hand in CUDA C++; H100), written by a helper who did not read the
// rules, captured after the twenty-seventh session's first three changes and labelled blind twice (the labellers agree
// on 10/10 causes and first fixes); scored as captured: cause 7/7/7, first fix 7/7/7. Misses: a layernorm with one
// thread per row (uncoalesced_global / coalesce; kprof mio_queue: its L1 busy with 32-sector requests read as other
// MIO work), a 32x32 shared-tiled QKV matmul (matmul_without_tensor_cores / tensor_cores; kprof l1_bandwidth), and
// twelve layers of a cuBLASLt GEMM, a bias kernel and a GELU kernel (dram_bandwidth / fuse_stages; no fusion item: the
// 50 MB intermediate is under fusion_min_bytes). Then a matmul on its own shared tiles leads with the tensor cores:
// 8/8/8, 8/8/8; and an L1 busy with uncoalesced requests is no longer "other MIO work" (the layernorm's cause is now
// grid_too_small, labeller A's alternative; coalesce ranks second: scores unchanged). Twenty-eighth session: elementwise
// passes over a product's output go in its epilogue whatever the output's size (the MLP's bias and GELU: first fix
// 9/9/9; its cause stays the GEMM's, the range's longest kernel).
TEST(DiagnosisHoldout, FortyFirstSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(41), 10, {{9, 9}, {9, 9}, {9, 9}});
}

// Set 42 (ten hand-written Triton kernels as practitioners write them; H100), written by a helper who did not read the
// rules, captured after the twenty-eighth session's epilogue and saturated-pipe changes and labelled blind twice (the
// labellers agree on 10/10 causes and first fixes); scored as captured: cause 9/9/9, first fix 8/8/8. Misses: the fp8
// GEMM whose warps wait at barriers on its warpgroup MMAs (tensor_underfed / feed_tensor; kprof barrier_stall /
// block_balance), and a Jacobi loop with a residual read back every sweep (host_sync; kprof launch_overhead). Then
// barrier waits in a matrix kernel are its MMA pipeline's: 10/10/10, 9/9/9; and a kernel's launch-overhead item that
// stands for a range's gaps takes the range's host_sync where most of them follow the host's waits (the Jacobi
// loop's reduction, 2.5 us launches, the residual read back after each): 10/10/10, 10/10/10. The program-wide
// reading of the waits (gap_advice) had kept its launch_overhead.
TEST(DiagnosisHoldout, FortySecondSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(42), 10, {{10, 10}, {10, 10}, {10, 10}});
}

// Set 43 (ten fragments of a PyTorch training step as people write them before they profile; H100), written by a
// helper who did not read the rules, captured at the twenty-eighth session's code and labelled blind twice from the
// annotation pass's Nsight Compute metrics and the timeline (the ncu-mode capture, 381 kernel groups each replayed
// for every section of --set full, did not finish in that session's device time). The labellers agree on
// 10/10 first fixes and 9/10 causes. Scored as captured: cause 8 and first fix 7 of 10 in each annotation source
// (ncu and CUPTI counters; the ncu-mode folder then said not-captured.txt). Misses: the output projection's cause (the
// GEMM holds 30% of the range; labelled memory_bound for the range's elementwise passes, kprof tensor_pipe for its longest kernel), the pageable batch upload (prefetch; kprof
// host_sync, its item saying "pinned memory, asynchronous copies"), the LayerNorm2d permutes' coalescing, and the
// fp32 upcast before log_softmax (dram_traffic; kprof folds the cast into its consumer: fuse_stages).
// Thirtieth session: the batch upload, pageable uploads filling most of the range, is uploaded ahead of use
// (prefetch): first fix 8 and 8. The ncu-mode capture, taken then with one repetition (REPS=1; stopped at the step
// limit at the source page, after the program had run to its end and the raw, details and session pages were
// written; kprof kept them as ncu_holdout.interrupted), scores
// cause 6, first fix 5: with one instance of each range there are no range figures (two are needed), so the three
// program-level cases read as their kernels. Thirty-fourth session: one instance with nothing loaded in it (every
// case was warmed up before the ranges) and little host work has its figures: 8/7.
TEST(DiagnosisHoldout, FortyThirdSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(43), 10, {{8, 8}, {8, 8}, {8, 7}});
}

// Set 44 (graph analytics and computational science in hand-written CUDA C++; H100), written by a helper who did not
// read the rules, captured at the thirtieth session's code (988dccc) in every form and labelled blind twice from the
// ncu-mode report and the timeline; the labellers agree on 10/10 causes and 10/10 first fixes. Scored as captured:
// cause 9, first fix 9 in every source. Misses: the particle frames' cause (labelled host_link for the copies
// serialised with the kernels on one stream, "the nearest id"; kprof names the kernel's special-function pipe, its
// first fix overlap_stages as labelled) and the wave step's first fix (labelled fuse_stages for the unfused Laplacian
// and update; kprof leads with dropping the device-to-device copies, 31% of the range, dram_traffic).
// Thirty-fifth session: the frames' copies (33% of the range, more than the kernel's first item saves of it) bind the
// range to the host link (copy_outweighs_min_share), as both labellers: cause 10/10/10.
TEST(DiagnosisHoldout, FortyFourthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(44), 10, {{10, 9}, {10, 9}, {10, 9}});
}

// Set 45 (data processing, databases, strings and cryptography in hand-written CUDA C++; H100), written by a helper
// who did not read the rules, captured at the thirty-first session's end and labelled blind twice from the ncu-mode
// report and the timeline; the labellers agree on 9/10 causes and 9/10 first fixes (TPC-H Q6 over 64-byte row
// records: dram_bandwidth / none against uncoalesced_global / coalesce). Scored as captured, no change made for it:
// cause 8/9/8, first fix 8/8/8. Misses: Q6's cause with ncu counters (as captured: scattered gathers, locality; since
// ccc8506 uncoalesced / coalesce, the second label), the
// bit-unpack chain's cause (labelled memory_bound; kprof memory_latency), its first fix with CUPTI counters, and the
// pageable CSV uploads' first fix (labelled overlap_stages, "no pinned-memory fix id"; kprof: copy from pinned memory
// asynchronously, host_sync).
TEST(DiagnosisHoldout, FortyFifthSetScoreDoesNotRegress) {
  // Thirty-seventh session: the decode-filter-sum chain, no kernel at the DRAM roof, is memory-bound (both labels):
  // +1 cause with Nsight Compute's counters and in ncu mode.
  // Thirty-ninth: without FLOP counts, the unpacking kernel's integer work alone says it only moves data, and the
  // chain is fused with CUPTI's counters too: +1 cause, +1 first fix there.
  expect_holdout_score(corpus::holdout_file(45), 10, {{9, 9}, {10, 10}, {9, 9}});
}

// Set 46 (image, video and signal processing, vision and graphics in hand-written CUDA C++; H100), written by a helper
// who did not read the rules, captured in the thirty-second session and labelled blind twice from the ncu-mode report
// and the timeline; the labellers agree on 10/10 causes and 10/10 first fixes. Scored as captured (the session's code
// before the changes it prompted): cause 7/7/7, first fix 7/7/8. Misses then: the bilateral filter's FP64 promotion
// (compute_bound; since this session the FP64 pipe, precision, in both ncu sources), the Canny chain's cause
// (labelled dram_bandwidth; kprof names its longest kernel's integer pipe, first fix fuse_stages as labelled), the
// NV12 conversion's half-used stores at 74.5% of the DRAM roof (labelled uncoalesced / coalesce; dram_bandwidth with
// ncu counters), the G-buffer depth pass with CUPTI counters (no used-bytes count: dram_bandwidth), and the video
// pipeline's first fix (labelled overlap_stages; kprof's item for its host-link copies says dram_traffic). Since this
// session too, half-used sectors that L2 merges before DRAM count where L2 is ahead of DRAM (the NV12 conversion:
// uncoalesced / coalesce with ncu counters); and uploads and read-backs one after the other lead with running them
// side by side, never "move fewer bytes" (the video frames: first fix +1 in every source).
// Thirty-third session: the Canny chain's DRAM-bound kernels hold most of its kernel time (Stage::time_bound): cause
// +1 in every source.
TEST(DiagnosisHoldout, FortySixthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(46), 10, {{10, 10}, {9, 9}, {10, 10}});
}

// Set 47 (large-language-model inference and serving kernels in hand-written CUDA C++; H100), written by a helper who
// did not read the rules, captured in the thirty-third session and labelled blind twice from the ncu-mode report and
// the timeline; the labellers agree on 10/10 causes and 10/10 first fixes. Scored as captured (kprof 65e890e, before
// the changes it prompted): cause 9/9/9, first fix 8/8/8 (examples/h200/holdout/diag_holdout47-score-as-captured.txt).
// Misses then: the paged-attention decode's 128 blocks of 4 warps for 132 SMs at 0.12 waves (labelled grid_too_small /
// grid_fill; kprof: memory_latency, its grid item 3% for the 4 idle SMs), and the KV-cache append's first fix
// (labelled wider_accesses; kprof: pipe_throughput on its integer pipe). Since this session a grid under one wave that
// leaves SMs idle also counts the idle block slots of the SMs that have work: 10/10/10, 9/9/9; and index arithmetic
// around narrow accesses in a data-moving kernel wants 16 bytes a lane (wider_accesses): first fix 10/10/10.
TEST(DiagnosisHoldout, FortySeventhSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(47), 10, {{10, 10}, {10, 10}, {10, 10}});
}

// Set 48 (geospatial and spatial data processing in hand-written CUDA C++; H100), written by a helper who did not read
// the rules, captured in the thirty-third session and labelled blind twice from the ncu-mode report and the timeline;
// the labellers agree on 10/10 causes and 9/10 first fixes. Scored as captured (kprof f5b29b2, before the changes it
// prompted): cause 8/7/8, first fix 7/6/7 (examples/h200/holdout/diag_holdout48-score-as-captured.txt). Since this
// session: FP64 promotion whose double-precision sine keeps L1 busy with table reads (the haversine search; both ncu
// sources) and a pageable copy's staging counted as the copy's time (the GPS uploads' range: host_link): 10/8/10 and
// 8/6/8. Left: the geohash loop's first fix (labelled fewer integer instructions, pipe_throughput; kprof reads its ALU
// pipe, 93%, at the roof), the GPS uploads' first fix (prefetch or overlap; kprof's pageable item is host_sync, its
// copies 51% of the range by their DMA time alone), and with CUPTI counters the haversine (no FP32 FLOP count).
// Thirty-ninth session: with CUPTI's counters, the NDVI tile's stores of 32 sectors a request, whose sectors DRAM
// writes at half their bytes (merged in L2), cost the DRAM roof nothing: cause and first fix +1 there (10/10/10,
// 8/8/8).
TEST(DiagnosisHoldout, FortyEighthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(48), 10, {{10, 8}, {10, 8}, {10, 8}});
}

// Set 49 (thirty-fourth session): ten fragments of diffusion-model inference in PyTorch 2.11 (cuBLAS, cuDNN, SDPA,
// PyTorch's kernels, one hand-written Triton kernel), written by a helper who did not read the rules, committed
// before any capture (2619b4f), captured on an H100 (ncu mode with one repetition), labelled blind twice (the
// labellers agree on 7 causes and 9 fixes). As captured (fd374ee, before any change it prompted): cause 9/9/8, first
// fix 10/10/8 (examples/h200/holdout/diag_holdout49-score-as-captured.txt). A range called once with nothing loaded
// in it and little host work has its figures: the guided sampler's range in ncu mode, 9/9/9 and 10/10/9. Left: the
// video sampler's cause (host_link for the first labeller, launch_overhead, kprof's, for the second) and, in ncu mode,
// its first fix (its one instance is the host's work most of its span: no figures).
TEST(DiagnosisHoldout, FortyNinthSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(49), 10, {{9, 10}, {9, 10}, {9, 9}});
}

// Set 50 (thirty-fifth session): ten cases of hand-written CUDA C++ from computational finance and risk, written by a
// helper who did not read the rules, committed before any capture (0ad0440), captured on an H100 (ncu mode with two
// repetitions), labelled blind twice (the labellers agree on all ten causes and first fixes). As captured (9aa1c16):
// cause 7/8/7, first fix 5/7/5 (examples/h200/holdout/diag_holdout50-score-as-captured.txt). After: the Asian paths'
// stack array is most of the traffic beside the generator states' scattered sectors (local memory), the binomial
// trees' barrier steps carry their own shared traffic at the L1 roof (barrier_stall), the implied volatilities' double
// erfc and exp are a promotion no divergence explains away (fp64_pipe / precision with ncu counters): 10/9/10, 8/8/7.
// Left: the Black-Scholes book at 81% of the DRAM roof (labelled "nothing to gain", kprof 19%), the desk batch's
// pageable copies (labelled overlap_stages; kprof's pinned-copy item is host_sync), the implied volatilities with
// CUPTI's counters (no FP32 FLOP count: divergence), and in ncu mode the trees' first fix (Nsight Compute's
// ThreadDivergence estimate, 21%, over the barrier item's 12%, which its fix experiment realised as 16.7%).
// Thirty-sixth session: DRAM at 80% of the measured roof is at the roof (Black-Scholes: first fix +1 with ncu
// counters and in ncu mode), and with CUPTI's counters the FMA pipe's non-integer instructions stand for the FP32
// FLOPs (the implied volatilities: +1 cause and first fix), and in ncu mode ThreadDivergence's estimate for lanes
// kprof counts active (32 of 32 per executed instruction) no longer leads the trees' barrier item: 10/10/10, 9/9/9.
TEST(DiagnosisHoldout, FiftiethSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(50), 10, {{10, 9}, {10, 9}, {10, 9}});
}

// The fifty-first held-out set (ten PyTorch and Triton fragments of recommender systems, ads ranking and retrieval,
// by a helper who did not read the rules; captured on an H100 in ncu mode with two repetitions), labelled blind twice
// (the labellers agree on all ten causes and first fixes). As captured (7e678f8's analysis): cause 9/9/9, first fix
// 7/8/7 (examples/h200/holdout/diag_holdout51-score-as-captured.txt). After: the column lookups' 17 sectors a request
// are weighed by the bytes the lanes use (coalesce 35%, over fusing the dot products' multiply and sum): 9/9/9,
// 8/8/8. Left: the host columns' forty small pageable copies (labelled host_link / prefetch; kprof launch_overhead /
// host_sync), the feature hashing's nine-kernel chain with Nsight Compute's counters (no fusion item: fuse_stages
// labelled), and the column lookups with CUPTI's counters (no count of used bytes).
// Thirty-eighth session: the feature hashing's intermediates counted short by L2's dirty bytes are still fused (its
// chain gets its fusion item with Nsight Compute's counters): first fix 9/8/9.
// Thirty-ninth: each host column's cudaMemcpyAsync stages it whole before its DMA (matched by correlation id), and the
// copies, 48% of the range against 22% idle, bind it: host_link, cause 10/10/10.
TEST(DiagnosisHoldout, FiftyFirstSetScoreDoesNotRegress) {
  expect_holdout_score(corpus::holdout_file(51), 10, {{10, 9}, {10, 8}, {10, 9}});
}
