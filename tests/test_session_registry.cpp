// The collector registry (session/collector.hpp) and the output table (session/outputs.hpp) are complete: a
// collector or output added without one of its parts (a description, a reader for the raw files it leaves, a
// probe that finds them, a render function, a place in the re-analysis' derived set) fails here, not in a
// re-analysis or a dry run on the GPU machine.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "session/artifact.hpp"
#include "session/collector.hpp"
#include "session/mode_table.hpp"
#include "session/outputs.hpp"
#include "support/shell.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using namespace kprof;
using namespace kprof::session;

namespace {

constexpr CollectorKind kKinds[] = {CollectorKind::Clocks,     CollectorKind::Tracer,  CollectorKind::CuptiCounters,
                                    CollectorKind::NcuMetrics, CollectorKind::NcuFull, CollectorKind::CompiledCode};

bool feeds(const CollectorRow& row, OutputInput input) {
  return std::find(row.feeds.begin(), row.feeds.end(), input) != row.feeds.end();
}

}  // namespace

TEST(SessionRegistry, EveryCollectorKindHasOneRowWithEveryPart) {
  for (CollectorKind k : kKinds) {
    int rows = 0;
    for (const auto& row : collector_rows()) rows += row.kind == k;
    EXPECT_EQ(rows, 1) << "collector kind " << static_cast<int>(k);
  }
  EXPECT_EQ(collector_rows().size(), std::size(kKinds));
  RunSpec spec;
  spec.command = {"./app"};
  const ModePlan plan = plan_run(spec);
  const CollectorContext ctx{spec, plan, test::scratch_dir("session_registry")};
  std::set<std::string_view> names;
  for (const auto& row : collector_rows()) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_FALSE(row.name.empty());
    EXPECT_TRUE(names.insert(row.name).second) << "two collectors share a name";
    ASSERT_TRUE(row.planned) << "no rule for when a plan runs it";
    ASSERT_TRUE(row.make) << "no collector to run";
    const auto collector = row.make();
    EXPECT_EQ(collector->kind(), row.kind);
    const auto lines = collector->describe(ctx);
    ASSERT_FALSE(lines.empty()) << "no description for the dry run";
    EXPECT_EQ(lines.front().rfind(std::string(row.name) + ": ", 0), 0u) << lines.front();
    // The raw files it leaves are read back and found again by a re-analysis, or it leaves none.
    EXPECT_EQ(!row.raw_files.empty(), row.read != nullptr) << "raw files without a reader, or a reader of none";
    EXPECT_EQ(row.read != nullptr, row.probe != nullptr) << "a reader needs a probe, a probe a reader";
    if (row.replay_when_absent || row.recorded_choice || row.lost_without || !row.feeds.empty()) {
      EXPECT_TRUE(row.read) << "what its files say needs a reader of them";
    }
    if (!row.in_process_warning.empty() || row.one_window_per_process) {
      EXPECT_TRUE(row.in_process_env) << "in-process settings of a collector that does not run in-process";
    }
  }
}

TEST(SessionRegistry, EachProbeFindsItsCollectorsRawFilesAndNothingElse) {
  for (const auto& row : collector_rows()) {
    if (!row.probe) continue;
    SCOPED_TRACE(std::string(row.name));
    const fs::path dir = test::scratch_dir("session_registry_probe");
    fs::remove_all(dir);
    fs::create_directories(dir);
    EXPECT_FALSE(row.probe(dir)) << "found raw files in an empty directory";
    for (const auto& f : row.raw_files) {
      fs::create_directories((dir / f).parent_path());
      write_file_atomic(dir / f, "raw\n");
    }
    EXPECT_TRUE(row.probe(dir)) << "does not find its own raw files";
  }
}

TEST(SessionRegistry, EveryModeRunsRegisteredCollectorsThatFeedItsOutputs) {
  for (Mode m : kModes) {
    const ModeEntry& e = mode_entry(m);
    SCOPED_TRACE(std::string(mode_name(m)));
    EXPECT_FALSE(e.collectors.empty());
    for (CollectorKind k : e.collectors) EXPECT_NO_THROW(collector_row(k));
    for (const auto& out : output_rows()) {
      if (out.input == OutputInput::run || !out.mode || !(e.outputs.*out.mode)) continue;
      bool fed = false;
      for (CollectorKind k : e.collectors) fed = fed || feeds(collector_row(k), out.input);
      EXPECT_TRUE(fed) << out.name << ": no collector of the mode feeds what it is rendered from";
    }
  }
}

TEST(SessionRegistry, EveryOutputHasANameARenderFunctionAndItsPlaceInTheReanalysis) {
  const std::set<std::string> derived = derived_outputs();
  ModeOutputs every;
  every.timing_report = every.timeline = every.chrome_trace = every.source_pages = true;
  const auto listed = every.names();
  std::set<std::string_view> names;
  for (const auto& row : output_rows()) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_FALSE(row.name.empty());
    EXPECT_TRUE(names.insert(row.name).second) << "two outputs share a name";
    EXPECT_TRUE(row.render) << "no render function";
    const std::string shown(row.listed_as.empty() ? row.name : row.listed_as);
    EXPECT_NE(std::find(listed.begin(), listed.end(), shown), listed.end()) << "not in the dry run's list";
    // Rendered from the run alone: written again by every re-analysis. Fed by a collector: carried by a
    // re-analysis that lacks the collector's files, and written only when the mode asks for it.
    EXPECT_EQ(derived.count(std::string(row.name)), row.input == OutputInput::run ? 1u : 0u);
    if (row.input != OutputInput::run) {
      EXPECT_TRUE(row.mode) << "a mode output without the mode's switch";
      bool fed = false;
      for (const auto& c : collector_rows()) fed = fed || feeds(c, row.input);
      EXPECT_TRUE(fed) << "no collector feeds what it is rendered from";
    }
  }
}

TEST(SessionRegistry, AReanalysisCarriesNothingThatWriteArtifactWritesAgain) {
  const fs::path dir = test::scratch_dir("session_registry_artifact");
  fs::remove_all(dir);
  ProfileRun run;
  run.mode = Mode::Ncu;
  KernelGroup g;
  g.kernel = g.label = "k";
  KernelLaunch l;
  l.sections.push_back({"SpeedOfLight", "Duration", "ns", 1000.0, ""});
  g.launches.push_back(l);
  g.representative = 0;
  run.stages.push_back({"k", {g}, {}});
  write_artifact(dir, run, nullptr);
  EXPECT_TRUE(fs::exists(dir / "report-verbose.md"));
  const ExtraFiles carried = source_files(dir);
  for (const auto& [name, file] : carried) ADD_FAILURE() << name << ": written by write_artifact, yet carried";
}
