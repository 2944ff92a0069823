#include <gtest/gtest.h>

#include <fmt/format.h>

#include "render/devlog.hpp"
#include "support/golden.hpp"
#include "support/sample_run.hpp"

using namespace kprof;
using namespace kprof::render;
using namespace kprof::testing;

namespace {
std::string row(const std::string& md, const std::string& metric) {
  std::istringstream in(md);
  for (std::string l; std::getline(in, l);)
    if (l.rfind("| " + metric + " |", 0) == 0) return l;
  return "";
}

// A previous entry as a user's devlog may hold it: CRLF, hand-edited prose, "—" values.
const char* kPrevious =
    "# Devlog: copy\r\n\r\n"
    "## v0 — 2026-11-28T09:00:00Z — ncu\r\n\r\n"
    "| Duration | 600.0 us | first entry |\r\n\r\n"
    "## v1 — 2026-11-29T10:00:00Z — annotation\r\n"
    "\r\n"
    "**Performance** (NVIDIA H200, n67108864_fp32)\r\n"
    "| Metric | Value | vs Previous |\r\n"
    "|---|---|---|\r\n"
    "| Duration | 536.7 us | -3.2% |\r\n"
    "| Achieved TFLOP/s | — | — |\r\n"
    "| Achieved GB/s | 4,001.5 | +1.0% |\r\n"
    "| Occupancy | — | — |\r\n"
    "| TC Util | 12.5% | first entry |\r\n"
    "\r\n"
    "Notes typed by hand after the entry.\r\n";
}  // namespace

TEST(RenderDevlog, GoldenFirstEntry) {
  expect_golden("devlog_first.md", devlog_header("kernels") + render_devlog_entry(sample_run(), std::nullopt));
}

TEST(RenderDevlog, GoldenFollowUpEntry) {
  auto prev = parse_last_devlog_entry(kPrevious);
  ASSERT_TRUE(prev);
  expect_golden("devlog_followup.md", render_devlog_entry(sample_annotation_run(), prev));
}

TEST(RenderDevlog, ParsesTheLastEntryRobustly) {
  auto e = parse_last_devlog_entry(kPrevious);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->version, "v1");
  EXPECT_EQ(e->timestamp, "2026-11-29T10:00:00Z");
  EXPECT_EQ(e->mode, "annotation");
  ASSERT_TRUE(e->duration_us);
  EXPECT_DOUBLE_EQ(*e->duration_us, 536.7);
  EXPECT_FALSE(e->tflops);
  ASSERT_TRUE(e->dram_gbps);
  EXPECT_DOUBLE_EQ(*e->dram_gbps, 4001.5);
  EXPECT_FALSE(e->occupancy_pct);
  ASSERT_TRUE(e->tc_util_pct);
  EXPECT_DOUBLE_EQ(*e->tc_util_pct, 12.5);
}

TEST(RenderDevlog, NoEntryInAFreshFile) {
  EXPECT_FALSE(parse_last_devlog_entry(devlog_header("copy")));
  EXPECT_FALSE(parse_last_devlog_entry(""));
}

TEST(RenderDevlog, VsPreviousArithmetic) {
  // 536.7 us → 519.52 us (median of 536.672, 519.520, 519.488) is -3.2%.
  auto prev = parse_last_devlog_entry(kPrevious);
  std::string md = render_devlog_entry(sample_annotation_run(), prev);
  // Per pass: the one kernel ran 3 times (the smallest count), so one pass is one launch: median 519.52 us.
  EXPECT_EQ(row(md, "Duration"), "| Duration | 519.5 us | -3.2% |");
  auto run = sample_annotation_run();
  run.stages[0].kernels[0].duration_ns = SampleStats::of({519520});
  md = render_devlog_entry(run, prev);
  EXPECT_EQ(row(md, "Duration"), "| Duration | 519.5 us | -3.2% |");
  // A second kernel launched twice per pass (6 launches against 3) counts twice: 519.52 + 2 × 100 us.
  auto two = sample_annotation_run();
  KernelGroup extra = two.stages[0].kernels[0];
  extra.kernel = extra.label = "helper";
  extra.duration_ns = SampleStats::of({100000, 100000, 100000, 100000, 100000, 100000});
  two.stages[0].kernels.push_back(extra);
  EXPECT_EQ(row(render_devlog_entry(two, prev), "Duration"), "| Duration | 719.5 us | +34.1% |");
  // A kernel launched once outside the loop (an initialisation) is a third of a pass here, not a reason to count
  // the whole program as one pass (which made mla v4's entry 20 runs long when one cuBLASLt launch was split off).
  auto once = sample_annotation_run();
  KernelGroup init = once.stages[0].kernels[0];
  init.kernel = init.label = "init";
  init.duration_ns = SampleStats::of({30000});
  once.stages[0].kernels.push_back(init);
  EXPECT_EQ(row(render_devlog_entry(once, prev), "Duration"), "| Duration | 529.5 us | -1.3% |");
  // When most kernels run twice per iteration, the pass is still the iteration: 3 launches of the main kernel,
  // three helpers at 6 each (×2), not a pass of 6 that would halve the main kernel.
  auto twice = sample_annotation_run();
  for (const char* name : {"h1", "h2", "h3"}) {
    KernelGroup h = twice.stages[0].kernels[0];
    h.kernel = h.label = name;
    h.duration_ns = SampleStats::of({100000, 100000, 100000, 100000, 100000, 100000});
    twice.stages[0].kernels.push_back(h);
  }
  EXPECT_EQ(row(render_devlog_entry(twice, prev), "Duration"), "| Duration | 1119.5 us | +108.6% |");
  // Values missing on either side compare as "—"; percentages compare in points.
  EXPECT_EQ(row(md, "Achieved TFLOP/s"), "| Achieved TFLOP/s | 0.0 | — |");
  EXPECT_EQ(row(md, "Occupancy"), "| Occupancy | — | — |");
}

TEST(RenderDevlog, RoundTripOfItsOwnOutput) {
  auto run = sample_run();
  std::string log = devlog_header("kernels") + render_devlog_entry(run, std::nullopt);
  auto e = parse_last_devlog_entry(log);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->version, "v1");
  EXPECT_EQ(e->mode, "ncu");
  EXPECT_NEAR(*e->duration_us, 4122.5, 1e-9);
  EXPECT_NEAR(*e->tflops, 11.8, 1e-9);
  EXPECT_FALSE(e->dram_gbps);  // stage_concurrent has no DRAM bytes: no whole-run figure
  EXPECT_NEAR(*e->occupancy_pct, 34.8, 1e-9);
  EXPECT_NEAR(*e->tc_util_pct, 1.3, 1e-9);
  // Rendering the same run against its own entry: no change anywhere.
  std::string again = render_devlog_entry(run, e);
  EXPECT_EQ(row(again, "Duration"), "| Duration | 4122.5 us | +0.0% |");
  EXPECT_EQ(row(again, "Occupancy"), "| Occupancy | 34.8% | +0.0 pp |");
}

TEST(RenderDevlog, PercentagesChangeInPoints) {
  DevlogEntry prev;
  prev.occupancy_pct = 30.0;
  prev.tc_util_pct = 2.5;
  std::string md = render_devlog_entry(sample_run(), prev);
  EXPECT_EQ(row(md, "Occupancy"), "| Occupancy | 34.8% | +4.8 pp |");
  EXPECT_EQ(row(md, "TC Util"), "| TC Util | 1.3% | -1.2 pp |");
  EXPECT_EQ(row(md, "Duration"), "| Duration | 4122.5 us | — |");
}

TEST(RenderDevlog, IssuesComeFromWarnVerdicts) {
  std::string md = render_devlog_entry(sample_run(), std::nullopt);
  EXPECT_NE(md.find("**Issues**: L2 hit rate 51.6% (healthy > 60%, copy_f4); Occupancy 57.5% (healthy > 60%, "
                    "fma_loop); Occupancy 12.5% (healthy > 60%, fma_loop [66x1x1]); Waves per SM 0.06 (healthy >= 1, "
                    "fma_loop [66x1x1])\n"),
            std::string::npos)
      << md;
}

// Issue 24: names in the Issues and Insights lines, and the heading's timestamp and mode (read from an artifact's
// profile.json), could break the line and start a heading of their own, or carry HTML.
TEST(RenderDevlog, NamesStartNoLineOfTheirOwnAndCarryNoHtml) {
  ProfileRun run = sample_run();
  run.timestamp = "2026-11-30T12:00:00Z\n# forged timestamp";
  run.mode = Mode::Ncu;  // a mode is an enum: profile.json's "ncu\r\n## forged" does not even read (test_run_options)
  for (auto& s : run.stages)
    for (auto& g : s.kernels) g.label = "fma\n## forged <img src=x onerror=alert(1)>";
  const std::string md = render_devlog_entry(run, std::nullopt);
  ASSERT_NE(md.find("forged"), std::string::npos);  // the names are there
  std::istringstream in(md);
  int headings = 0;
  for (std::string l; std::getline(in, l);) {
    EXPECT_EQ(l.find('\r'), std::string::npos) << l;
    if (l.rfind("#", 0) == 0) ++headings;
    for (auto at = l.find("<img"); at != std::string::npos; at = l.find("<img", at + 1))
      EXPECT_TRUE(at > 0 && l[at - 1] == '\\') << "unescaped HTML: " << l;
  }
  EXPECT_EQ(headings, 1) << md;
  EXPECT_NE(md.find("\\<img"), std::string::npos) << md;
}

// Issue 25: "vs Previous" compared with the entry above whatever its mode or parameters (a v1 annotation entry after
// a v2 event entry read +2007.5%). It compares with the last entry of the same mode and parameters for another
// version, says which, and entries in the older header format ("(NVIDIA H200, n67108864_fp32)") still match.
TEST(RenderDevlog, VsPreviousIsTheLastEntryOfTheSameModeAndParameters) {
  ProfileRun run = sample_annotation_run();  // annotation, fp32, n=67108864
  run.version = "v3";
  auto entry = [](const std::string& version, const std::string& mode, const std::string& perf, double us) {
    return fmt::format("## {} — 2026-12-0{}T10:00:00Z — {}\n\n**Performance** ({}):\n\n| Metric | Value | vs Previous |\n"
                       "|---|---|---|\n| Duration | {} us | — |\n\n",
                       version, version.back(), mode, perf, us);
  };
  const std::string md = devlog_header("kernels") +
                         entry("v1", "annotation", "NVIDIA H200, n67108864_fp32", 1000) +            // old header
                         entry("v2", "annotation", "NVIDIA H200, clocks not locked, fp32, n=1024", 900) +  // other n
                         entry("v2", "event", "NVIDIA H200, clocks not locked, fp32, n=67108864", 50);     // other mode
  auto prev = previous_devlog_entry(md, run);
  ASSERT_TRUE(prev);
  EXPECT_EQ(prev->version, "v1");
  EXPECT_DOUBLE_EQ(*prev->duration_us, 1000);
  EXPECT_NE(render_devlog_entry(run, prev).find("vs Previous: the v1 entry of 2026-12-01T10:00:00Z"), std::string::npos);
  // The same version again when no other version has an entry; none when nothing matches.
  run.version = "v1";
  ASSERT_TRUE(previous_devlog_entry(md, run));
  EXPECT_EQ(previous_devlog_entry(md, run)->version, "v1");
  run.mode = Mode::Nsys;
  EXPECT_FALSE(previous_devlog_entry(md, run));
  EXPECT_NE(render_devlog_entry(run, std::nullopt).find("vs Previous: none"), std::string::npos);
}
