// Renderers: Chrome trace JSON structure and the nsys-mode report/CSVs, on the probe fixture and a small trace.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analyze/event_stats.hpp"
#include "analyze/timeline.hpp"
#include "collect/trace/trace_reader.hpp"
#include "collect/trace/trace_writer.hpp"
#include "model/json_support.hpp"
#include "render/chrome_trace.hpp"
#include "render/csv_cell.hpp"
#include "render/timeline_report.hpp"

using namespace kprof;
using namespace kprof::analyze;
using namespace kprof::render;
using namespace kprof::trace_format;

namespace {
// One launch (corr 5) on thread 3 inside NVTX "phase", kernel on stream 2.
Trace small_trace() {
  TraceBuffer b;
  RawApi a{};
  a.start = 1000, a.end = 1010, a.thread = 3, a.process = 9, a.correlation = 5, a.name = b.intern("cudaLaunchKernel");
  b.api_calls.push(a);
  RawKernel k{};
  k.start = 2000, k.end = 3500, k.stream = 2, k.correlation = 5, k.name = b.intern("_Z3fooPKfi");
  b.kernels.push(k);
  RawMarker m{};
  m.timestamp = 900, m.id = 1, m.flags = kMarkerStart, m.thread = 3, m.process = 9, m.name = b.intern("phase \"A\"");
  m.domain = kNoString;
  b.markers.push(m);
  m.timestamp = 1100, m.flags = kMarkerEnd, m.name = kNoString;
  b.markers.push(m);
  TraceFileInfo info;
  info.pid = 9;
  info.flags = kFlagApiTraced;
  return parse_trace(b.serialize(info), "small.kptrace");
}
}  // namespace

TEST(TimelineChromeTrace, EventsFlowsAndMetadata) {
  Trace t = small_trace();
  json j = json::parse(render_chrome_trace(t));
  EXPECT_EQ(j.at("displayTimeUnit"), "ns");
  const auto& ev = j.at("traceEvents");
  const json *kernel = nullptr, *api = nullptr, *nvtx = nullptr, *s = nullptr, *f = nullptr;
  int thread_names = 0;
  for (const auto& e : ev) {
    std::string ph = e.at("ph");
    if (ph == "X" && e.at("cat") == "kernel") kernel = &e;
    if (ph == "X" && e.at("cat") == "cuda_runtime") api = &e;
    if (ph == "X" && e.at("cat") == "nvtx") nvtx = &e;
    if (ph == "s") s = &e;
    if (ph == "f") f = &e;
    if (ph == "M" && e.at("name") == "thread_name") ++thread_names;
  }
  ASSERT_TRUE(kernel && api && nvtx && s && f);
  EXPECT_EQ(kernel->at("name"), "foo(float const*, int)");
  // base = 900 (the NVTX start): kernel at 1100 ns = 1.1 µs, 1500 ns long.
  EXPECT_DOUBLE_EQ(kernel->at("ts").get<double>(), 1.1);
  EXPECT_DOUBLE_EQ(kernel->at("dur").get<double>(), 1.5);
  EXPECT_EQ(kernel->at("tid"), 2);
  EXPECT_EQ(kernel->at("args").at("nvtx"), "phase \"A\"");
  EXPECT_EQ(nvtx->at("name"), "phase \"A\"");  // escaped and parsed back
  EXPECT_EQ(s->at("id"), 5);
  EXPECT_EQ(f->at("id"), 5);
  EXPECT_EQ(f->at("bp"), "e");
  EXPECT_EQ(s->at("tid"), api->at("tid"));
  EXPECT_EQ(f->at("tid"), kernel->at("tid"));
  EXPECT_EQ(f->at("pid"), kernel->at("pid"));
  EXPECT_DOUBLE_EQ(s->at("ts").get<double>(), 0.1);
  EXPECT_EQ(thread_names, 3);  // stream 2, thread 3 API, thread 3 NVTX
}

TEST(TimelineChromeTrace, FixtureParses) {
  Trace t = read_trace(std::string(KPROF_FIXTURES) + "/h200-probe/cupti_probe_trace.jsonl");
  json j = json::parse(render_chrome_trace(t));
  int complete = 0;
  for (const auto& e : j.at("traceEvents")) complete += e.at("ph") == "X";
  EXPECT_EQ(complete, 13);
}

TEST(TimelineReport, MarkdownAndCsvs) {
  Trace t = read_trace(std::string(KPROF_FIXTURES) + "/h200-probe/cupti_probe_trace.jsonl");
  auto tl = analyze_timeline(t);
  auto st = compute_event_stats(t);
  std::string md = render_timeline_report(t, tl, st);
  for (const char* section : {"## GPU utilisation and overlap", "## Streams", "## Top kernels by total time",
                              "## Memory copies", "## Launch overhead", "## Gaps between kernels", "## NVTX ranges"})
    EXPECT_NE(md.find(section), std::string::npos) << section;
  EXPECT_NE(md.find("| traced span (ms) | 39.524 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| kernel–kernel overlap (% of busy) | 4.0% |"), std::string::npos);  // 1326969 / 33498032
  EXPECT_NE(md.find("| `wmma_gemm` | 1 | 4.679 |"), std::string::npos);  // the largest kernel comes first
  EXPECT_LT(md.find("`wmma_gemm`"), md.find("`sgemm_naive`"));
  EXPECT_NE(md.find("API tracing was off"), std::string::npos);

  std::string kcsv = render_kernels_csv(t);
  EXPECT_EQ(std::count(kcsv.begin(), kcsv.end(), '\n'), 13);  // header + 12
  EXPECT_NE(kcsv.find("0,\"init_f(float*, unsigned long, float)\",init_f,0,416510,416510,0,7,1,1024,1,1,256,1,1,16"),
            std::string::npos) << kcsv.substr(0, 400);
  std::string mcsv = render_memcpy_csv(t);
  EXPECT_NE(mcsv.find("HtoD,67108864,"), std::string::npos);
  EXPECT_EQ(render_api_csv(t), "domain,name,cbid,start_ns,end_ns,duration_ns,process,thread,correlation,return_value\n");
  std::string ocsv = render_overlap_csv(tl);
  EXPECT_NE(ocsv.find(",2,0,2\n"), std::string::npos);  // the two fma_loops running together
}

TEST(TimelineReport, LaunchOverheadAndNvtxSections) {
  Trace t = small_trace();
  std::string md = render_timeline_report(t, analyze_timeline(t), compute_event_stats(t));
  EXPECT_NE(md.find("| API call → kernel start | 1.00 | 1.00 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| phase \"A\" | 1 | 0.000 | 0.002 | 1 | 0.002 |"), std::string::npos) << md;
}

// The headline that nsys mode puts into the contract and report.md: the same figures as timeline.md, one table.
TEST(TimelineReport, HeadlineForTheContract) {
  Trace t = read_trace(std::string(KPROF_FIXTURES) + "/h200-probe/cupti_probe_trace.jsonl");
  auto tl = analyze_timeline(t);
  std::string h = render_timeline_headline(t, tl, 3);
  EXPECT_EQ(h.find("\n### Timeline\n"), 0u) << h;
  EXPECT_NE(h.find(fmt::format("| GPU busy | {:.1f}% of 39.524 ms |", tl.overlap.busy_ns / tl.overlap.span_ns * 100)),
            std::string::npos) << h;
  EXPECT_NE(h.find("kernel–kernel 4.0%"), std::string::npos) << h;
  EXPECT_NE(h.find(fmt::format("| streams | {} |", tl.streams.size())), std::string::npos) << h;
  EXPECT_NE(h.find("| launch order (by GPU start) | `init_f` (s7) → "), std::string::npos) << h;
  EXPECT_NE(h.find("(12 kernels in all)"), std::string::npos) << h;
  EXPECT_EQ(h.find("launch call → kernel start"), std::string::npos) << "the probe trace has no API records";
  // A trace with API records shows the launch overhead.
  Trace s = small_trace();
  EXPECT_NE(render_timeline_headline(s, analyze_timeline(s)).find("| launch call → kernel start | median 1.00 µs"),
            std::string::npos);
}

// Issue 24: a kernel or API name that a spreadsheet would run as a formula ("=HYPERLINK(...)", "@SUM", "+1", "-2+3")
// reached kernels.csv and api.csv as it was; a CR in a name was not quoted.
TEST(TimelineReport, CsvCellsAreQuotedAndFormulasDefused) {
  TraceBuffer b;
  RawApi a{};
  a.start = 1000, a.end = 1010, a.thread = 3, a.process = 9, a.correlation = 5, a.name = b.intern("@SUM(A1:A9)");
  b.api_calls.push(a);
  RawKernel k{};
  k.start = 2000, k.end = 3500, k.stream = 2, k.correlation = 5, k.name = b.intern("=HYPERLINK(\"http://x\",\"y\")");
  b.kernels.push(k);
  k.start = 4000, k.end = 4500, k.correlation = 6, k.name = b.intern("-2+3\rk");
  b.kernels.push(k);
  TraceFileInfo info;
  info.pid = 9;
  info.flags = kFlagApiTraced;
  Trace t = parse_trace(b.serialize(info), "formula.kptrace");
  std::string kcsv = render_kernels_csv(t);
  EXPECT_NE(kcsv.find("\n0,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\","), std::string::npos) << kcsv;
  EXPECT_NE(kcsv.find("\n1,\"'-2+3\rk\","), std::string::npos) << kcsv;
  EXPECT_NE(render_api_csv(t).find(",\"'@SUM(A1:A9)\","), std::string::npos) << render_api_csv(t);

  EXPECT_EQ(csv_cell("-3"), "-3");  // numbers stay numbers
  EXPECT_EQ(csv_cell("-1.5e-3"), "-1.5e-3");
  EXPECT_EQ(csv_cell("+7"), "+7");
  EXPECT_EQ(csv_cell("\tx"), "\"'\tx\"");
  EXPECT_EQ(csv_cell("a\rb"), "\"a\rb\"");
  EXPECT_EQ(csv_cell("plain name"), "plain name");
  EXPECT_EQ(csv_cell(""), "");
}
