// Reading the real H200 CUPTI JSONL fixture and malformed inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include "analyze/timeline.hpp"
#include "collect/trace/demangle.hpp"
#include "collect/trace/trace_launches.hpp"
#include "collect/trace/trace_reader.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

using namespace kprof;
using namespace kprof::analyze;

namespace {
const std::string kFixture = std::string(KPROF_FIXTURES) + "/h200-probe/cupti_probe_trace.jsonl";
}

TEST(TraceReader, ReadsProbeFixture) {
  Trace t = read_trace(kFixture);
  EXPECT_EQ(t.info.format, "cupti-jsonl");
  // 13 lines: 12 kernel records + 1 memcpy record (counted by hand).
  ASSERT_EQ(t.kernels.size(), 12u);
  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_TRUE(t.api_calls.empty());
  EXPECT_EQ(t.info.base_ns, 1796040303065035989ull);  // first init_f start
  EXPECT_EQ(t.info.end_ns, 1796040303104560228ll - 1796040303065035989ll);  // memcpy end

  const auto& k0 = t.kernels[0];
  EXPECT_EQ(t.str(k0.mangled), "_Z6init_fPfmf");
  EXPECT_EQ(t.str(k0.name), "init_f(float*, unsigned long, float)");
  EXPECT_EQ(t.str(k0.function), "init_f");
  EXPECT_EQ(k0.start_ns, 0);
  EXPECT_EQ(k0.duration_ns(), 1796040303065452499ll - 1796040303065035989ll);  // 416510
  EXPECT_EQ(k0.grid, (std::array<int, 3>{1024, 1, 1}));
  EXPECT_EQ(k0.correlation, 1u);

  const auto& m = t.memcpys[0];
  EXPECT_EQ(m.kind, MemcpyKind::htod);
  EXPECT_EQ(m.bytes, 67108864u);
  EXPECT_EQ(m.stream, 14u);
  EXPECT_EQ(m.duration_ns(), 21900588);
  // The probe tracer wrote no copy flags: a copy of unknown asynchrony reads as asynchronous, so the advice infers no
  // host wait from it (a blocking copy is one). A line with CUPTI's flags keeps them.
  EXPECT_TRUE(m.async);
  Trace flagged = parse_trace(
      "{\"kind\":\"memcpy\",\"bytes\":48,\"start\":1,\"end\":2,\"stream\":7,\"copyKind\":1,\"flags\":0}\n",
      "f.jsonl");
  ASSERT_EQ(flagged.memcpys.size(), 1u);
  EXPECT_FALSE(flagged.memcpys[0].async);
}

TEST(TraceReader, ConcurrentFmaLoopsOverlap) {
  Trace t = read_trace(kFixture);
  std::vector<const TraceKernel*> fma;
  for (const auto& k : t.kernels)
    if (t.str(k.function) == "fma_loop" && k.grid[0] == 66) fma.push_back(&k);
  ASSERT_EQ(fma.size(), 2u);
  EXPECT_NE(fma[0]->stream, fma[1]->stream);
  // Stream 14 starts at ...081328127, stream 13 at ...081328383; they end at ...082655544 and ...082655352.
  std::int64_t overlap = std::min(fma[0]->end_ns, fma[1]->end_ns) - std::max(fma[0]->start_ns, fma[1]->start_ns);
  EXPECT_EQ(overlap, 1796040303082655352ll - 1796040303081328383ll);  // 1326969 ns
  TimelineSummary tl = analyze_timeline(t);
  EXPECT_DOUBLE_EQ(tl.overlap.kernel_kernel_ns, 1326969.0);
  EXPECT_DOUBLE_EQ(tl.overlap.copy_kernel_ns, 0.0);  // the copy starts 4 µs after both kernels end
  EXPECT_EQ(tl.overlap.max_concurrency, 2);
  EXPECT_DOUBLE_EQ(tl.overlap.span_ns, 39524239.0);
  EXPECT_DOUBLE_EQ(tl.overlap.busy_ns, 33498032.0);  // union of the 13 intervals
  ASSERT_EQ(tl.streams.size(), 3u);
  EXPECT_EQ(tl.streams[0].stream, 7u);
  EXPECT_EQ(tl.streams[0].kernels, 10u);
  EXPECT_EQ(tl.streams[0].kernel_gap_ns.count, 9u);
  EXPECT_DOUBLE_EQ(tl.streams[0].kernel_gap_ns.min, 1024.0);    // init_bf #1 end → init_bf #2 start
  EXPECT_DOUBLE_EQ(tl.streams[0].kernel_gap_ns.median, 77599.0);
  EXPECT_EQ(tl.streams[2].memcpys, 1u);
}

TEST(TraceReader, KernelLaunchesUseBaseNames) {
  Trace t = read_trace(kFixture);
  auto launches = kernel_launches(t);
  ASSERT_EQ(launches.size(), 12u);
  EXPECT_EQ(launches[0].function, "init_f");
  EXPECT_EQ(launches[0].mangled, "_Z6init_fPfmf");
  EXPECT_DOUBLE_EQ(*launches[0].duration_ns, 416510.0);
  EXPECT_DOUBLE_EQ(*launches[0].start_ns, 0.0);
  EXPECT_EQ(launches[0].nvtx_range, "");  // the fixture has no NVTX records
  auto wmma = std::find_if(launches.begin(), launches.end(), [](const auto& l) { return l.function == "wmma_gemm"; });
  ASSERT_NE(wmma, launches.end());
  EXPECT_EQ(wmma->launch.block, (std::array<int, 3>{128, 4, 1}));
  EXPECT_EQ(wmma->launch.registers_per_thread, 40);
}

TEST(TraceReader, TruncatedJsonlNamesTheLine) {
  std::string text = read_file(kFixture);
  text.resize(text.size() - 30);  // cut into the last (13th) record
  try {
    parse_trace(text, "cut.jsonl");
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "cut.jsonl");
    EXPECT_EQ(e.line(), 13);
  }
}

TEST(TraceReader, RejectsMissingFieldsAndGarbage) {
  EXPECT_THROW(parse_trace("{\"kind\":\"kernel\",\"start\":1}\n", "x.jsonl"), ParseError);
  EXPECT_THROW(parse_trace("{\"kind\":\"kernel\",\"name\":\"k\",\"start\":5,\"end\":1}\n", "x.jsonl"), ParseError);
  EXPECT_THROW(parse_trace("hello", "x.bin"), ParseError);
  EXPECT_THROW(parse_trace("", "x.bin"), ParseError);
  Trace t = parse_trace("{\"kind\":\"other\",\"start\":1,\"end\":2}\n", "x.jsonl");
  ASSERT_EQ(t.info.warnings.size(), 1u);
  EXPECT_NE(t.info.warnings[0].find("other"), std::string::npos);
}

TEST(TraceDemangle, BaseNames) {
  EXPECT_EQ(demangle("_Z6init_fPfmf"), "init_f(float*, unsigned long, float)");
  EXPECT_EQ(demangle("triton_softmax_kernel"), "triton_softmax_kernel");
  EXPECT_EQ(function_base_name("init_f(float*, unsigned long, float)"), "init_f");
  EXPECT_EQ(function_base_name("void ns::gemm<128, float>(float*, int)"), "gemm");
  EXPECT_EQ(function_base_name("(anonymous namespace)::k2(int)"), "k2");
  EXPECT_EQ(function_base_name("void cutlass::Kernel<cutlass::gemm::Op<(int)1>>(cutlass::Params)"), "Kernel");
  EXPECT_EQ(function_base_name("softmax_kernel"), "softmax_kernel");
  EXPECT_EQ(function_base_name(demangle("_Z7copy_f4PK6float4PS_m")), "copy_f4");
}
