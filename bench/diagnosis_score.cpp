// Prints the diagnosis corpus score table (bench/RESULTS.md §9): every designed case under every capture source,
// kprof's cause and first fix against the designed ones, and Nsight Compute's own top rule as the anchor.
#include <iostream>
#include <cstdlib>
#include <string>

#include "diagnosis_corpus.hpp"
#include "render/contract_view.hpp"

// `diagnosis_score --holdout` / `--holdout2` / `--holdout3`: the held-out library kernels
// (examples/programs/diag_holdout*_expected.toml). `--why` after it: each miss's first three opportunities.
namespace {
void print_totals(const std::vector<kprof::corpus::Score>& scores, const std::string& prefix = "") {
  for (auto src : {kprof::corpus::Source::annotation_ncu, kprof::corpus::Source::annotation_cupti,
                   kprof::corpus::Source::ncu_full}) {
    int n = 0, cause = 0, fix = 0, exact = 0, cause_exact = 0, unscored = 0, uncaptured = 0, contradictions = 0,
        inapplicable = 0;
    for (const auto& s : scores)
      if (s.source == src && s.excluded) ++(s.note == kprof::corpus::kNotCaptured ? uncaptured : unscored);
      else if (s.source == src) {
        ++n, cause += s.cause_ok, fix += s.fix_ok, exact += s.fix_exact, cause_exact += s.cause_exact;
        contradictions += !s.contradictions.empty();
        inapplicable += !s.inapplicable.empty();
      }
    std::cout << prefix << kprof::corpus::source_name(src) << ": cause " << cause << "/" << n;
    if (cause_exact != cause) std::cout << " (" << cause_exact << " with the ids as written)";
    std::cout << ", first fix " << fix << "/" << n;
    if (exact != fix) std::cout << " (" << exact << " with the ids as written)";
    if (contradictions || inapplicable)
      std::cout << "; " << contradictions << " with contradictions, " << inapplicable << " with inapplicable items";
    if (unscored) std::cout << " (" << unscored << " not scored: under the capture's 1% GPU-time share for counters)";
    if (uncaptured) std::cout << " (" << uncaptured << " not captured in this source)";
    std::cout << "\n";
  }
}
// The labels file of a set named on the command line: "" or "1" (the first held-out set), "corpus", or 2, 3, ...
std::filesystem::path labels_of(const std::string& set) {
  return set.empty() || set == "1" ? kprof::corpus::holdout_file()
         : set == "corpus"         ? kprof::corpus::expected_file()
                                   : kprof::corpus::holdout_file(std::atoi(set.c_str()));
}
}  // namespace

// `diagnosis_score --summary`: the totals of the designed corpus and of every held-out set, with this kprof.
static int run(int argc, char** argv) {
  // KPROF_SCORE_DROP_METRICS=<regex>: score as if the captures lacked the metrics it matches (bench/RESULTS.md §1a⁶).
  if (const char* drop = std::getenv("KPROF_SCORE_DROP_METRICS"); drop && *drop) {
    try {
      (void)std::regex(drop);
    } catch (const std::regex_error& e) {
      std::cerr << "diagnosis_score: KPROF_SCORE_DROP_METRICS is not a regular expression: " << e.what() << "\n";
      return 2;
    }
    kprof::corpus::drop_metrics() = drop;
  }
  const std::string which = argc > 1 ? argv[1] : "";
  // `diagnosis_score --metrics <labels file suffix: "", 2, 3, ...> <stage> [<kernel>]`: the canonical metrics of the
  // stage's main kernel (or of its first kernel whose label contains <kernel>) in each capture source (without
  // provenance), to read a miss against the numbers.
  if (which == "--metrics" && argc > 3) {
    const std::string set = argv[2], stage = argv[3], part = argc > 4 ? argv[4] : "";
    const auto labels = labels_of(set);
    for (const auto& e : kprof::corpus::load_expected(labels)) {
      if (e.stage != stage) continue;
      for (auto src : {kprof::corpus::Source::annotation_ncu, kprof::corpus::Source::annotation_cupti,
                       kprof::corpus::Source::ncu_full}) {
        const auto run = kprof::corpus::assemble(kprof::corpus::capture_dir(e.program, src), src, e.program);
        for (const auto& st : run.stages)
          if (st.name == stage) {
            const kprof::KernelGroup* g = part.empty() ? kprof::corpus::main_group(st) : nullptr;
            for (const auto& k : st.kernels)
              if (!g && (k.label.empty() ? k.kernel : k.label).find(part) != std::string::npos) g = &k;
            if (g) {
              nlohmann::json j = g->metrics;
              j.erase("provenance");
              std::cout << "## " << kprof::corpus::source_name(src) << " (" << g->label << ")\n" << j.dump(1) << "\n";
            }
          }
      }
    }
    return 0;
  }
  // `diagnosis_score --duration-ratios <set>`: every kernel group's shortest traced launch against its profiled
  // launch's (counters) duration, the largest ratios first: where the timed run paid what the replay did not.
  if (which == "--duration-ratios" && argc > 2) {
    const auto labels = labels_of(argv[2]);
    const auto expected = kprof::corpus::load_expected(labels);
    if (expected.empty()) return 0;
    std::vector<std::pair<double, std::string>> rows;
    for (auto src : {kprof::corpus::Source::annotation_ncu, kprof::corpus::Source::annotation_cupti,
                     kprof::corpus::Source::ncu_full}) {
      const auto run = kprof::corpus::assemble(kprof::corpus::capture_dir(expected.front().program, src), src,
                                               expected.front().program);
      for (const auto& st : run.stages)
        for (const auto& k : st.kernels)
          if (k.duration_ns.count > 0 && k.metrics.duration_ns && *k.metrics.duration_ns > 0)
            rows.push_back({k.duration_ns.min / *k.metrics.duration_ns,
                            fmt::format("{} | {} | {:.60} | traced min {:.1f} us x{} (alone {}), profiled {:.1f} us",
                                        kprof::corpus::source_name(src), st.name, k.kernel, k.duration_ns.min * 1e-3,
                                        k.duration_ns.count,
                                        k.alone_min_ns ? fmt::format("{:.1f} us", *k.alone_min_ns * 1e-3) : "none",
                                        *k.metrics.duration_ns * 1e-3)});
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = 0; i < rows.size() && i < 8; ++i) std::cout << fmt::format("{:8.2f}  {}\n", rows[i].first, rows[i].second);
    return 0;
  }
  // `diagnosis_score --ranges <folder> <program>`: each range's time split (span, idle, launch gaps, host work) as one
  // capture folder gives it, to compare the timeline of an nsys-mode capture with that of a counter pass.
  if (which == "--ranges" && argc > 3) {
    const auto run = kprof::corpus::assemble(argv[2], kprof::corpus::Source::annotation_ncu, argv[3]);
    for (const auto& st : run.stages)
      if (st.range) std::cout << st.name << ": " << nlohmann::json(*st.range).dump() << "\n";
    return 0;
  }
  // `diagnosis_score --stage <set> <stage>`: every kernel of the stage in each capture source with its time, DRAM
  // bytes and cause, to read a pipeline miss (which kernel wrote what the next one read).
  if (which == "--stage" && argc > 3) {
    const std::string set = argv[2], stage = argv[3];
    for (const auto& e : kprof::corpus::load_expected(labels_of(set))) {
      if (e.stage != stage) continue;
      for (auto src : {kprof::corpus::Source::annotation_ncu, kprof::corpus::Source::annotation_cupti,
                       kprof::corpus::Source::ncu_full}) {
        const auto run = kprof::corpus::assemble(kprof::corpus::capture_dir(e.program, src), src, e.program);
        std::cout << "## " << kprof::corpus::source_name(src) << "\n";
        for (const auto& st : run.stages)
          if (st.name == stage && st.range) std::cout << "range: " << nlohmann::json(*st.range).dump() << "\n";
        for (const auto& st : run.stages)
          if (st.name == stage)
            for (const auto& g : st.kernels) {
              const auto& m = g.metrics;
              std::cout << fmt::format("- {:.60} {:.1f} us x{}: DRAM read {:.3f} GB, written {:.3f} GB, {:.1f}% of "
                                       "the roof; {}\n",
                                       g.label.empty() ? g.kernel : g.label, g.duration_ns.median / 1e3,
                                       g.duration_ns.count, m.dram_read_bytes.value_or(-1e9) / 1e9,
                                       m.dram_write_bytes.value_or(-1e9) / 1e9,
                                       m.dram_measured_pct.value_or(m.dram_throughput_pct.value_or(-1)),
                                       g.analysis ? g.analysis->bottleneck.cause : std::string("no analysis"));
            }
      }
    }
    return 0;
  }
  // `diagnosis_score --program <set>`: the items across kernels (fusion, overlap, launch gaps) of each capture.
  if (which == "--program" && argc > 2) {
    const std::string set = argv[2];
    const auto labels = labels_of(set);
    const auto expected = kprof::corpus::load_expected(labels);
    if (expected.empty()) return 1;
    for (auto src : {kprof::corpus::Source::annotation_ncu, kprof::corpus::Source::annotation_cupti,
                     kprof::corpus::Source::ncu_full}) {
      const auto run = kprof::corpus::assemble(kprof::corpus::capture_dir(expected.front().program, src), src,
                                               expected.front().program);
      std::cout << "## " << kprof::corpus::source_name(src) << "\n";
      for (const auto& o : run.program_opportunities)
        std::cout << "- " << o.remedy << " " << o.run_gain_pct << "% of the run [" << o.scope << "] "
                  << fmt::format("{}", fmt::join(o.kernels, " | ")) << ": " << o.trigger << "\n";
    }
    return 0;
  }
  // `diagnosis_score --top <set> [n]`: the contract's first n items (10 by default) of each capture, as it ranks
  // them by what the run saves, to read how a set's cases weigh against each other.
  if (which == "--top" && argc > 2) {
    const auto expected = kprof::corpus::load_expected(labels_of(argv[2]));
    if (expected.empty()) return 1;
    std::size_t n = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 10;
    if (n == 0) n = 10;
    for (auto src : {kprof::corpus::Source::annotation_ncu, kprof::corpus::Source::annotation_cupti,
                     kprof::corpus::Source::ncu_full}) {
      const auto run = kprof::corpus::assemble(kprof::corpus::capture_dir(expected.front().program, src), src,
                                               expected.front().program);
      std::cout << "## " << kprof::corpus::source_name(src) << "\n";
      for (const auto& o : kprof::render::top_opportunities(run, n))
        if (o.estimated)
          std::cout << fmt::format("- {:.4f}% of the run (share {:.4f}%, est {:.0f}%) [{}] {:.70}: {:.90}\n",
                                   o.run_gain_pct, o.run_gain_pct / std::max(1e-9, o.est_gain_pct) * 100.0,
                                   o.est_gain_pct, o.scope, o.kernel_label, o.name);
        else
          std::cout << fmt::format("- not estimated [{}] {:.70}: {:.90}\n", o.scope, o.kernel_label, o.name);
    }
    return 0;
  }
  // `diagnosis_score --trace-items <folder> <program>`: the items across kernels that a trace alone gives (a folder
  // holding a trace.kptrace: an nsys-mode capture, with copies and synchronisations), without counters, to see where
  // the range and launch-gap items fire on captures they were not made on.
  if (which == "--trace-items" && argc > 3) {
    const auto run = kprof::corpus::assemble(argv[2], kprof::corpus::Source::annotation_ncu, argv[3]);
    for (const auto& o : run.program_opportunities)
      std::cout << fmt::format("- {} {:.2f}% of the run (est. {:.0f}%) [{}] {:.60}: {}\n", o.remedy, o.run_gain_pct,
                               o.est_gain_pct, o.scope, fmt::format("{}", fmt::join(o.kernels, " | ")), o.trigger);
    return 0;
  }
  if (which == "--summary") {
    print_totals(kprof::corpus::score_all(kprof::corpus::expected_file()), "designed corpus, ");
    print_totals(kprof::corpus::score_all(kprof::corpus::holdout_file()), "held-out set 1, ");
    for (int n = 2; std::filesystem::exists(kprof::corpus::holdout_file(n)); ++n)
      print_totals(kprof::corpus::score_all(kprof::corpus::holdout_file(n)), "held-out set " + std::to_string(n) + ", ");
    return 0;
  }
  // `diagnosis_score --labels <file> [--why|--why-all]`: the same table against any labels file of the same form
  // (a second, independent labelling of a held-out set: bench/label_agreement.py).
  const bool other_labels = which == "--labels" && argc > 2;
  if (which == "--labels" && !other_labels) {
    std::cerr << "diagnosis_score: --labels needs a labels file\n";
    return 2;
  }
  // --holdout and --holdout1 are the first held-out set; --holdoutN a later one.
  const std::filesystem::path labels =
      other_labels                       ? std::filesystem::path(argv[2])
      : which.rfind("--holdout", 0) == 0 ? labels_of(which.substr(9))
                                         : kprof::corpus::expected_file();
  if (!std::filesystem::is_regular_file(labels)) {
    std::cerr << "diagnosis_score: no labels file " << labels.string() << " (" << which << ")\n";
    return 2;
  }
  auto scores = kprof::corpus::score_all(labels);
  std::cout << kprof::corpus::score_table(scores) << "\n";
  // --why: the causes and top items of every miss; --why-all: of every case.
  const int flag = other_labels ? 3 : 2;
  const bool why_all = argc > flag && std::string(argv[flag]) == "--why-all";
  if (argc > flag && (std::string(argv[flag]) == "--why" || why_all))
    for (const auto& s : scores) {
      if (s.excluded || (s.cause_ok && s.fix_ok && !why_all)) continue;
      std::cout << "### " << s.want.stage << " (" << kprof::corpus::source_name(s.source) << "): want " << s.want.cause
                << " / " << s.want.fix << ", got " << s.cause << "\n- causes: " << s.causes << "\n";
      for (const auto& t : s.top) std::cout << "- " << t << "\n";
    }
  for (const auto& s : scores)
    for (const auto* list : {&s.contradictions, &s.inapplicable})
      for (const auto& x : *list)
        std::cout << "! " << s.want.stage << " (" << kprof::corpus::source_name(s.source) << "): " << x << "\n";
  print_totals(scores);
  return 0;
}

// A labels file that cannot be read or parsed (a set number with no labels, a malformed TOML) is a clear error, not an
// abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "diagnosis_score: " << e.what() << "\n";
    return 2;
  }
}
