// The real H200 runs committed under examples/h200/ re-render on a CPU exactly as they were written there:
// the renderers are pure functions of profile.json (and, for nsys mode's timeline headline, of the trace), so any
// drift in them shows here against real data.
#include <gtest/gtest.h>

#include <filesystem>

#include "analyze/timeline.hpp"
#include "collect/trace/trace_reader.hpp"
#include "render/contract_markdown.hpp"
#include "render/report_markdown.hpp"
#include "render/timeline_report.hpp"
#include "session/artifact.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;

namespace {
fs::path examples() { return fs::path(KPROF_SOURCE_DIR) / "examples" / "h200" / "profiles"; }

// nsys mode appends the timeline's headline, computed from the artifact's trace, to the contract and report.
std::string headline_of(const kprof::ProfileRun& run, const fs::path& dir) {
  if (run.mode != kprof::Mode::Nsys || !fs::exists(dir / "trace.kptrace")) return "";
  kprof::Trace t = kprof::read_trace((dir / "trace.kptrace").string());
  return kprof::render::render_timeline_headline(t, kprof::analyze::analyze_timeline(t));
}
}  // namespace

TEST(H200Examples, EveryArtifactReRendersItsContractAndReport) {
  ASSERT_TRUE(fs::exists(examples())) << examples();
  int checked = 0;
  std::vector<fs::directory_entry> dirs;
  for (auto root : {examples(), examples().parent_path() / "packages"})
    for (const auto& d : fs::directory_iterator(root)) dirs.push_back(d);
  for (const auto& dir : dirs) {
    if (!fs::exists(dir.path() / "profile.json")) continue;
    kprof::ProfileRun run = kprof::session::load_artifact(dir.path());
    const std::string headline = headline_of(run, dir.path());
    EXPECT_EQ(kprof::render::render_contract(run, nullptr) + headline, kprof::read_file(dir.path() / "contract.md"))
        << dir.path();
    if (fs::exists(dir.path() / "report.md")) {
      EXPECT_EQ(kprof::render::render_report(run, nullptr) + headline, kprof::read_file(dir.path() / "report.md"))
          << dir.path();
    }
    ++checked;
  }
  EXPECT_GE(checked, 35);
}

TEST(H200Examples, ModesSawWhatTheProgramsWereWrittenToDo) {
  // nsys mode on streams_nvtx_graph: the overlap phase runs two kernels on two streams at once.
  std::string timeline = kprof::read_file(examples() / "nsys_streams" / "timeline.md");
  EXPECT_NE(timeline.find("phase_overlap/kernel_kernel"), std::string::npos);
  auto run = kprof::session::load_artifact(examples() / "annotation_probe");
  // Annotation mode on the probe: the float4 copy is memory-bound on DRAM at its roof; rates use the profiled
  // launch's own duration, the group's timing is the tracer's.
  bool seen = false;
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels)
      if (g.kernel == "copy_f4") {
        seen = true;
        ASSERT_TRUE(g.analysis.has_value());
        EXPECT_EQ(g.analysis->bottleneck.kind, kprof::BottleneckKind::memory);
        EXPECT_GT(*g.metrics.dram_throughput_pct, 70.0);
        EXPECT_EQ(g.metrics.provenance.at("duration_ns"), "gpu__time_duration.sum");
        EXPECT_EQ(g.analysis->bottleneck.cause, "dram_bandwidth");
        EXPECT_GE(g.duration_ns.count, 1u);
      }
  EXPECT_TRUE(seen);
  // The failing program is reported as failed, and its artifact is still written.
  EXPECT_TRUE(fs::exists(examples() / "fail" / "report.md"));
}

TEST(H200Examples, PackagesWereCheckedAndProfiledInEveryMode) {
  // mla_check on the H200: every MLA version and tile config against the float64 reference.
  std::string check = kprof::read_file(examples().parent_path() / "logs" / "mla_check_typical.txt");
  EXPECT_NE(check.find("summary: 11 passed, 0 failed, 0 skipped -> OK"), std::string::npos);
  for (const char* v : {"v1", "v2", "v3"})
    for (const char* mode : {"annotation", "event", "nsys", "ncu"}) {
      fs::path dir = examples().parent_path() / "packages" / (std::string("mla_") + v + "_" + mode);
      EXPECT_TRUE(fs::exists(dir / "contract.md")) << dir;
      EXPECT_TRUE(fs::exists(dir / "check.json") || std::string(mode) != "annotation") << dir;
    }
  // ConcurrentKernels really overlap: overlap v2 (two streams) against v1 (one stream).
  std::string v1 = kprof::read_file(examples().parent_path() / "packages" / "overlap_v1_nsys" / "timeline.md");
  std::string v2 = kprof::read_file(examples().parent_path() / "packages" / "overlap_v2_nsys" / "timeline.md");
  EXPECT_NE(v1.find("kernel–kernel overlap (% of busy) | 0.0%"), std::string::npos);
  EXPECT_EQ(v2.find("kernel–kernel overlap (% of busy) | 0.0%"), std::string::npos);
}

// Issue 25: no kernel of the committed H200 artifacts lands above a measured roof (a copy-median DRAM roof put
// PyTorch's add at 105%): neither its DRAM share of the measured DRAM roof nor its place on the roofline.
TEST(H200Examples, NoKernelAboveAMeasuredRoof) {
  int groups = 0;
  for (auto root : {examples(), examples().parent_path() / "packages", examples().parent_path() / "python",
                    examples().parent_path() / "mla-v4"}) {
    if (!fs::exists(root)) continue;
    for (const auto& d : fs::directory_iterator(root)) {
      if (!fs::exists(d.path() / "profile.json")) continue;
      kprof::ProfileRun run = kprof::session::load_artifact(d.path());
      for (const auto& s : run.stages)
        for (const auto& g : s.kernels) {
          ++groups;
          if (g.metrics.dram_measured_pct) EXPECT_LE(*g.metrics.dram_measured_pct, 100.5) << d.path() << " " << g.label;
          if (g.analysis && g.analysis->roofline && g.analysis->roofline->peak_source.rfind("measured", 0) == 0)
            EXPECT_LE(g.analysis->roofline->pct_of_roof, 100.5) << d.path() << " " << g.label;
        }
    }
  }
  EXPECT_GT(groups, 100);
}
