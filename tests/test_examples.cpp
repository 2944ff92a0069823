// The real H200 runs committed under examples/h200/ re-render on a CPU exactly as they were written there:
// the renderers are pure functions of profile.json, so any drift in them shows here against real data.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/commands/artifact.hpp"
#include "render/contract_markdown.hpp"
#include "render/report_markdown.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;

namespace {
fs::path examples() { return fs::path(KPROF_SOURCE_DIR) / "examples" / "h200" / "profiles"; }
}  // namespace

TEST(H200Examples, EveryArtifactReRendersItsContractAndReport) {
  ASSERT_TRUE(fs::exists(examples())) << examples();
  int checked = 0;
  for (const auto& dir : fs::directory_iterator(examples())) {
    if (!fs::exists(dir.path() / "profile.json")) continue;
    kprof::ProfileRun run = kprof::cli::load_artifact(dir.path());
    EXPECT_EQ(kprof::render::render_contract(run, nullptr), kprof::read_file(dir.path() / "contract.md"))
        << dir.path();
    if (fs::exists(dir.path() / "report.md"))
      EXPECT_EQ(kprof::render::render_report(run, nullptr), kprof::read_file(dir.path() / "report.md")) << dir.path();
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

TEST(H200Examples, ModesSawWhatTheProgramsWereWrittenToDo) {
  // nsys mode on streams_nvtx_graph: the overlap phase runs two kernels on two streams at once.
  std::string timeline = kprof::read_file(examples() / "nsys_streams" / "timeline.md");
  EXPECT_NE(timeline.find("phase_overlap/kernel_kernel"), std::string::npos);
  auto run = kprof::cli::load_artifact(examples() / "annotation_probe");
  // Annotation mode on the probe: the float4 copy is memory-bound on DRAM, with counters from ncu and the
  // duration from the tracer.
  bool seen = false;
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels)
      if (g.kernel == "copy_f4") {
        seen = true;
        ASSERT_TRUE(g.analysis.has_value());
        EXPECT_EQ(g.analysis->bottleneck.kind, kprof::BottleneckKind::memory);
        EXPECT_GT(*g.metrics.dram_throughput_pct, 70.0);
        EXPECT_EQ(g.metrics.provenance.at("duration_ns").rfind("tracer median", 0), 0u);
      }
  EXPECT_TRUE(seen);
  // The failing program is reported as failed, and its artifact is still written.
  EXPECT_TRUE(fs::exists(examples() / "fail" / "report.md"));
}
