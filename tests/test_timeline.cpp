// Timeline analysis, NVTX nesting/attribution and event stats on synthetic traces with hand-computed answers.
#include <gtest/gtest.h>

#include "analyze/event_stats.hpp"
#include "analyze/timeline.hpp"
#include "collect/trace/nvtx_attribution.hpp"
#include "collect/trace/trace_assembly.hpp"
#include "collect/trace/trace_launches.hpp"

using namespace kprof;
using namespace kprof::analyze;

namespace {
TraceKernel kernel(std::int64_t s, std::int64_t e, std::uint32_t stream, std::uint32_t corr = 0, StringId name = 1) {
  TraceKernel k;
  k.start_ns = s, k.end_ns = e, k.stream = stream, k.correlation = corr, k.name = name, k.function = name;
  return k;
}
TraceApiCall api(std::int64_t s, std::int64_t e, std::uint32_t corr, std::uint32_t thread = 1) {
  TraceApiCall a;
  a.start_ns = s, a.end_ns = e, a.correlation = corr, a.thread = thread;
  return a;
}
TraceNvtxRange range(StringId name, std::int64_t s, std::int64_t e, std::uint32_t thread = 1) {
  TraceNvtxRange r;
  r.name = name, r.start_ns = s, r.end_ns = e, r.thread = thread;
  return r;
}
}  // namespace

// Stream 1: kernels [0,100) and [150,250); stream 2: kernel [50,120); stream 3: copy [200,400).
// Busy = [0,250) ∪ [200,400) = 400. ≥2 running: [50,100) two kernels, [100,120) kernel k2 + k1? no: k1 ended at 100,
// so [100,120) is only k2 → not overlap. [200,250) kernel + copy. Overlap = 50 + 50 = 100.
TEST(Timeline, OverlapSplitAndConcurrency) {
  Trace t;
  t.strings.push_back("k");
  t.kernels = {kernel(0, 100, 1), kernel(50, 120, 2), kernel(150, 250, 1)};
  TraceMemcpy m;
  m.start_ns = 200, m.end_ns = 400, m.stream = 3, m.bytes = 1000;
  t.memcpys = {m};
  auto tl = analyze_timeline(t);
  EXPECT_DOUBLE_EQ(tl.overlap.span_ns, 400);
  EXPECT_DOUBLE_EQ(tl.overlap.busy_ns, 400 - 30);  // idle [120,150)
  EXPECT_DOUBLE_EQ(tl.overlap.idle_ns, 30);
  EXPECT_DOUBLE_EQ(tl.overlap.overlap_ns, 100);
  EXPECT_DOUBLE_EQ(tl.overlap.kernel_kernel_ns, 50);
  EXPECT_DOUBLE_EQ(tl.overlap.copy_kernel_ns, 50);
  EXPECT_NEAR(tl.overlap.overlap_pct, 100.0 * 100 / 370, 1e-9);
  EXPECT_EQ(tl.overlap.max_concurrency, 2);
  // Time-weighted: (370 busy ns, of which 100 ns with 2 running) → (270 + 200) / 370.
  EXPECT_NEAR(tl.overlap.mean_concurrency, 470.0 / 370, 1e-9);
  ASSERT_EQ(tl.streams.size(), 3u);
  EXPECT_DOUBLE_EQ(tl.streams[0].busy_ns, 200);
  EXPECT_DOUBLE_EQ(tl.streams[0].busy_pct, 50);
  ASSERT_EQ(tl.streams[0].kernel_gap_ns.count, 1u);
  EXPECT_DOUBLE_EQ(tl.streams[0].kernel_gap_ns.median, 50);  // 150 − 100
  EXPECT_EQ(tl.kernel_gap_ns.count, 1u);
  EXPECT_EQ(tl.launch_order.size(), 3u);
  // overlap.csv steps: counts after each instant
  ASSERT_FALSE(tl.steps.empty());
  EXPECT_EQ(tl.steps.front().t_ns, 0);
  EXPECT_EQ(tl.steps.front().kernels, 1);
  EXPECT_EQ(tl.steps.back().kernels + tl.steps.back().copies, 0);
}

TEST(Timeline, BackToBackIsNotOverlap) {
  Trace t;
  t.strings.push_back("k");
  t.kernels = {kernel(0, 100, 1), kernel(100, 200, 2)};
  auto tl = analyze_timeline(t);
  EXPECT_DOUBLE_EQ(tl.overlap.overlap_ns, 0);
  EXPECT_EQ(tl.overlap.max_concurrency, 1);
  EXPECT_DOUBLE_EQ(tl.overlap.busy_ns, 200);
}

TEST(Timeline, LaunchOverheadByCorrelation) {
  Trace t;
  t.strings.push_back("k");
  t.info.api_traced = true;
  t.kernels = {kernel(1000, 1100, 1, 1), kernel(2000, 2100, 1, 2), kernel(3500, 3600, 1, 3), kernel(5000, 5100, 1, 9)};
  t.kernels[3].graph_id = 4;  // graph node: left out
  t.api_calls = {api(900, 910, 1), api(1700, 1720, 2), api(3000, 3005, 3), api(4000, 4010, 9)};
  auto tl = analyze_timeline(t);
  EXPECT_EQ(tl.launch.matched, 3u);
  EXPECT_EQ(tl.launch.graph_kernels, 1u);
  // API → start: 100, 300, 500 → median 300, p90 = 300 + 0.8·200 = 460.
  EXPECT_DOUBLE_EQ(tl.launch.api_to_start_ns.median, 300);
  EXPECT_DOUBLE_EQ(tl.launch.api_to_start_ns.p90, 460);
  EXPECT_DOUBLE_EQ(tl.launch.api_duration_ns.median, 10);
  // Gaps on stream 1: 900, 1400, 1400 → median 1400.
  EXPECT_DOUBLE_EQ(tl.kernel_gap_ns.median, 1400);
}

TEST(Timeline, NvtxNestingAndCrossingRanges) {
  std::vector<TraceNvtxRange> r = {range(1, 0, 100), range(2, 10, 50), range(3, 20, 30), range(4, 40, 70),
                                   range(5, 60, 80), range(6, 200, 300, 2)};
  compute_nvtx_nesting(r);
  EXPECT_EQ(r[0].depth, 0);
  EXPECT_EQ(r[1].depth, 1);
  EXPECT_EQ(r[1].parent, 0);
  EXPECT_EQ(r[2].depth, 2);
  EXPECT_EQ(r[2].parent, 1);
  EXPECT_FALSE(r[3].push_pop);  // [40,70) starts inside [10,50) and ends after it: a start/end range
  EXPECT_TRUE(r[4].push_pop);
  EXPECT_EQ(r[4].parent, 0);    // [60,80) sits in "1" only
  EXPECT_EQ(r[5].depth, 0);     // other thread
}

TEST(Timeline, KernelAttributionWithAndWithoutApi) {
  Trace t;
  t.strings = {"", "k", "outer", "inner", "other_thread"};
  t.nvtx = {range(2, 0, 1000), range(3, 100, 200), range(4, 150, 5000, 2)};
  compute_nvtx_nesting(t.nvtx);
  t.api_calls = {api(150, 160, 7)};
  // Kernel 7 launched inside "inner" on thread 1, runs at 600 (after "inner" ended): attributed to "inner".
  // Kernel 8 has no API record: innermost range enclosing its start 700 on any thread; "outer" (depth 0, start 0)
  // and "other_thread" (depth 0, start 150) both enclose it → the later start wins.
  t.kernels = {kernel(600, 650, 1, 7), kernel(700, 750, 1, 8)};
  attribute_kernels_to_nvtx(t);
  EXPECT_EQ(t.kernels[0].nvtx_range, 1);
  EXPECT_EQ(t.kernels[1].nvtx_range, 2);
  EXPECT_EQ(nvtx_stack(t, 1), (std::vector<std::string>{"outer", "inner"}));

  auto st = compute_event_stats(t);
  ASSERT_EQ(st.ranges.size(), 3u);
  EXPECT_EQ(st.ranges[0].path, "outer");
  EXPECT_EQ(st.ranges[0].kernels, 1u);                  // the kernel in "inner" counts for "outer" too
  EXPECT_DOUBLE_EQ(st.ranges[0].gpu_span_ns.median, 50);
  EXPECT_EQ(st.ranges[1].path, "outer/inner");
  EXPECT_DOUBLE_EQ(st.ranges[1].host_span_ns.median, 100);
  EXPECT_DOUBLE_EQ(st.ranges[2].gpu_span_ns.median, 50);
}

// PyTorch runs the kernels of a backward() called inside a range on its autograd worker thread: a launch from a
// thread with no default-domain range of its own (none, or only CUB's domain) takes the range another thread of the
// process has open, and its own library range stays below it. A thread with a default-domain range keeps its own,
// and a range of another process is never adopted.
TEST(Timeline, KernelsOfAThreadWithoutARangeJoinTheRangeAnotherThreadHasOpen) {
  Trace t;
  t.strings = {"", "k", "bwd_case", "cub::DeviceRadixSort", "CCCL", "own", "other_process"};
  // The other process's range is deeper-or-equal and starts later than "bwd_case": without the process check it
  // would be the one adopted.
  t.nvtx = {range(2, 0, 1000, 1), range(3, 100, 200, 2), range(5, 300, 400, 3), range(6, 10, 1000, 4)};
  for (auto& r : t.nvtx) r.process = 7;
  t.nvtx[1].domain = 4;      // CUB's range on the autograd thread
  t.nvtx[3].process = 99;    // a range in another process
  compute_nvtx_nesting(t.nvtx);
  t.api_calls = {api(50, 60, 1, 2), api(150, 160, 2, 2), api(350, 360, 3, 3), api(500, 510, 4, 5)};
  for (auto& a : t.api_calls) a.process = 7;
  t.kernels = {kernel(600, 650, 1, 1), kernel(660, 700, 1, 2), kernel(710, 720, 1, 3), kernel(730, 740, 1, 4)};
  attribute_kernels_to_nvtx(t);
  EXPECT_EQ(t.kernels[0].nvtx_range, -1);
  EXPECT_EQ(t.kernels[0].nvtx_adopted, 0);  // thread 2 had nothing open: bwd_case
  EXPECT_EQ(t.kernels[1].nvtx_range, 1);
  EXPECT_EQ(t.kernels[1].nvtx_adopted, 0);  // only CUB's domain: bwd_case above it
  EXPECT_EQ(nvtx_chain(t, t.kernels[1]), (std::vector<int>{0, 1}));
  EXPECT_EQ(t.kernels[2].nvtx_range, 2);
  EXPECT_EQ(t.kernels[2].nvtx_adopted, -1);  // its own range
  EXPECT_EQ(t.kernels[3].nvtx_adopted, 0);   // process 7's thread 1, not process 99's later range
  ASSERT_FALSE(t.info.warnings.empty());
  EXPECT_NE(t.info.warnings.back().find("3 kernels launched from 2 thread(s)"), std::string::npos);

  auto launches = kernel_launches(t);
  EXPECT_EQ(launches[0].nvtx_range, "bwd_case");
  EXPECT_EQ(launches[1].nvtx_range, "bwd_case");
  EXPECT_EQ(launches[1].nvtx_stack, (std::vector<std::string>{"bwd_case", "cub::DeviceRadixSort"}));
  EXPECT_EQ(launches[2].nvtx_range, "own");
  auto st = compute_event_stats(t);
  ASSERT_FALSE(st.ranges.empty());
  EXPECT_EQ(st.ranges[0].path, "bwd_case");
  EXPECT_EQ(st.ranges[0].kernels, 3u);

  // The range's own thread launching kernels of its own while the other thread's launches fall in the range: that
  // thread is not waiting there (a prefetching thread beside the main one), and nothing is adopted.
  t.strings.push_back("k_main");
  t.api_calls.push_back(api(120, 130, 5, 1));
  t.api_calls.back().process = 7;
  t.kernels.push_back(kernel(745, 750, 1, 5));
  t.info.warnings.clear();
  attribute_kernels_to_nvtx(t);
  EXPECT_EQ(t.kernels[4].nvtx_range, 0);
  EXPECT_EQ(t.kernels[0].nvtx_adopted, -1);  // thread 2's launches at 50..150 span thread 1's at 120
  EXPECT_EQ(t.kernels[1].nvtx_adopted, -1);
  EXPECT_EQ(t.kernels[3].nvtx_adopted, 0);   // thread 5's one launch at 500: thread 1 launched nothing then
  EXPECT_NE(t.info.nvtx_adoption.find("1 kernels launched from 1 thread(s)"), std::string::npos) << t.info.nvtx_adoption;
}

TEST(Timeline, EventStatsPerKernelName) {
  Trace t;
  t.strings = {"", "a(int)", "b(int)"};
  t.kernels = {kernel(0, 10, 1, 0, 1), kernel(20, 40, 1, 0, 1), kernel(50, 80, 1, 0, 1), kernel(100, 200, 1, 0, 2)};
  auto st = compute_event_stats(t);
  ASSERT_EQ(st.kernels.size(), 2u);
  EXPECT_EQ(st.kernels[0].name, "b(int)");  // 100 ns total beats 60
  EXPECT_EQ(st.kernels[1].duration_ns.count, 3u);
  EXPECT_DOUBLE_EQ(st.kernels[1].duration_ns.median, 20);
  EXPECT_DOUBLE_EQ(st.kernels[1].duration_ns.min, 10);
  EXPECT_DOUBLE_EQ(st.kernels[1].duration_ns.p10, 12);  // 10 + 0.2·(20 − 10)
  EXPECT_DOUBLE_EQ(st.kernels[1].duration_ns.p90, 28);  // 20 + 0.8·(30 − 20)
  EXPECT_NEAR(st.kernels[1].duration_ns.cv(), 10.0 / 20.0, 1e-12);  // stdev 10, mean 20
  EXPECT_DOUBLE_EQ(st.kernels[1].total_ns, 60);
}
