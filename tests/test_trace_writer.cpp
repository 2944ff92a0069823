// Round trip of the kprof-trace/1 format through the same TraceBuffer the injection library fills.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <unistd.h>
#include "collect/trace/trace_reader.hpp"
#include "collect/trace/trace_writer.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

using namespace kprof;
using namespace kprof::trace_format;

namespace {
constexpr std::uint64_t kT0 = 1'000'000'000'000ull;  // an absolute CUPTI timestamp

// A host thread 7 pushes "outer" then "inner", launches a kernel inside "inner" (corr 42) whose GPU execution
// starts after both ranges were popped; plus a memcpy, a memset and a sync.
TraceBuffer sample_buffer() {
  TraceBuffer b;
  RawApi api{};
  api.start = kT0 + 150;
  api.end = kT0 + 160;
  api.cbid = 211;
  api.process = 99;
  api.thread = 7;
  api.correlation = 42;
  api.name = b.intern("cudaLaunchKernel");
  b.api_calls.push(api);
  RawKernel k{};
  k.start = kT0 + 1000;
  k.end = kT0 + 1500;
  k.device = 0;
  k.stream = 13;
  k.correlation = 42;
  k.name = b.intern("_Z6init_fPfmf");
  k.grid[0] = 1024, k.grid[1] = 1, k.grid[2] = 1;
  k.block[0] = 256, k.block[1] = 1, k.block[2] = 1;
  k.registers = 16;
  k.graph_id = 3;
  k.graph_node_id = 77;
  b.kernels.push(k);
  RawMemcpy m{};
  m.start = kT0 + 1200;
  m.end = kT0 + 2200;
  m.bytes = 4096;
  m.stream = 14;
  m.copy_kind = 1;
  m.flags = 1;
  b.memcpys.push(m);
  RawMemset ms{};
  ms.start = kT0 + 2300;
  ms.end = kT0 + 2400;
  ms.bytes = 128;
  ms.stream = 14;
  b.memsets.push(ms);
  RawSync s{};
  s.start = kT0 + 2000;
  s.end = kT0 + 2500;
  s.type = 4;
  s.stream = kNoStream;
  b.syncs.push(s);
  auto marker = [&](std::uint64_t ts, std::uint32_t id, std::uint32_t flags, const char* name) {
    RawMarker r{};
    r.timestamp = ts;
    r.id = id;
    r.flags = flags;
    r.process = 99;
    r.thread = 7;
    r.name = b.intern(name);
    r.domain = kNoString;
    b.markers.push(r);
  };
  marker(kT0 + 100, 1, kMarkerStart, "outer");
  marker(kT0 + 120, 2, kMarkerStart, "inner");
  marker(kT0 + 300, 2, kMarkerEnd, nullptr);
  marker(kT0 + 400, 1, kMarkerEnd, nullptr);
  return b;
}

TraceFileInfo sample_info() {
  TraceFileInfo info;
  info.pid = 99;
  info.process_name = "prog";
  info.dropped_records = 5;
  info.errors = {"cuptiActivityEnable(MARKER): CUPTI_ERROR_X"};
  info.flags = kFlagApiTraced | kFlagNvtxTraced;
  return info;
}
}  // namespace

TEST(TraceWriter, RoundTripThroughFile) {
  TraceBuffer b = sample_buffer();
  EXPECT_EQ(b.record_count(), 9u);
  EXPECT_EQ(b.intern("cudaLaunchKernel"), b.intern(std::string_view("cudaLaunchKernel")));  // interned once
  auto path = std::filesystem::temp_directory_path() / ("kprof_rt_" + std::to_string(::getpid()) + ".kptrace");
  std::string err;
  ASSERT_TRUE(b.write_file(path.string(), sample_info(), &err)) << err;
  Trace t = read_trace(path);
  std::filesystem::remove(path);

  EXPECT_EQ(t.info.format, "kprof-trace/1");
  EXPECT_EQ(t.info.pid, 99u);
  EXPECT_EQ(t.info.process_name, "prog");
  EXPECT_EQ(t.info.dropped_records, 5u);
  ASSERT_EQ(t.info.errors.size(), 1u);
  EXPECT_EQ(t.info.errors[0], "cuptiActivityEnable(MARKER): CUPTI_ERROR_X");
  EXPECT_TRUE(t.info.api_traced);
  EXPECT_EQ(t.info.base_ns, kT0 + 100);  // the first marker

  ASSERT_EQ(t.kernels.size(), 1u);
  const auto& k = t.kernels[0];
  EXPECT_EQ(t.str(k.name), "init_f(float*, unsigned long, float)");
  EXPECT_EQ(t.str(k.function), "init_f");
  EXPECT_EQ(k.start_ns, 900);
  EXPECT_EQ(k.duration_ns(), 500);
  EXPECT_EQ(k.stream, 13u);
  EXPECT_EQ(k.graph_id, 3u);
  EXPECT_EQ(k.graph_node_id, 77u);
  EXPECT_EQ(k.grid, (std::array<int, 3>{1024, 1, 1}));
  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys[0].kind, MemcpyKind::htod);
  EXPECT_TRUE(t.memcpys[0].async);
  EXPECT_EQ(t.memcpys[0].bytes, 4096u);
  ASSERT_EQ(t.memsets.size(), 1u);
  ASSERT_EQ(t.syncs.size(), 1u);
  EXPECT_EQ(t.syncs[0].type, SyncType::context_synchronize);
  EXPECT_EQ(t.syncs[0].stream, -1);
  ASSERT_EQ(t.api_calls.size(), 1u);
  EXPECT_EQ(t.str(t.api_calls[0].name), "cudaLaunchKernel");

  ASSERT_EQ(t.nvtx.size(), 2u);
  EXPECT_EQ(t.str(t.nvtx[0].name), "outer");
  EXPECT_EQ(t.nvtx[0].depth, 0);
  EXPECT_EQ(t.str(t.nvtx[1].name), "inner");
  EXPECT_EQ(t.nvtx[1].depth, 1);
  EXPECT_EQ(t.nvtx[1].parent, 0);
  EXPECT_EQ(t.nvtx[1].end_ns, 200);
  // The kernel runs after both pops, but its launch call (corr 42, t=50) was inside "inner".
  EXPECT_EQ(k.nvtx_range, 1);
}

TEST(TraceWriter, ALinkPlantedAtTheOldTemporaryNameIsNotWrittenThrough) {
  // The tracer wrote "<trace>.tmp.<pid>" opened with O_CREAT|O_TRUNC: a link planted at that predictable name (a
  // shared output folder) was followed, its target truncated and overwritten with the trace (issue 24).
  const auto d = std::filesystem::temp_directory_path() / ("kprof_trace_link_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  const auto victim = d / "victim", path = d / "run.kptrace";
  write_file_atomic(victim, "precious");
  std::filesystem::create_symlink(victim, path.string() + ".tmp." + std::to_string(::getpid()));
  std::string err;
  ASSERT_TRUE(sample_buffer().write_file(path.string(), sample_info(), &err)) << err;
  EXPECT_EQ(read_file(victim), "precious");
  EXPECT_EQ(read_trace(path).kernels.size(), 1u);
  // A link at the destination itself is replaced by the trace, its target left alone.
  std::filesystem::remove(path);
  std::filesystem::create_symlink(victim, path);
  ASSERT_TRUE(sample_buffer().write_file(path.string(), sample_info(), &err)) << err;
  EXPECT_FALSE(std::filesystem::is_symlink(path));
  EXPECT_EQ(read_file(victim), "precious");
  // Nothing left beside it but the victim, the trace and the planted link.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(d)) ++files;
  EXPECT_EQ(files, 3u);
  std::filesystem::remove_all(d);
}

TEST(TraceWriter, SerializeMatchesFileAndDetectsTruncation) {
  TraceBuffer b = sample_buffer();
  std::string bytes = b.serialize(sample_info());
  EXPECT_EQ(bytes.size() % 8, 0u);
  EXPECT_EQ(std::memcmp(bytes.data(), "KPTRACE1", 8), 0);
  EXPECT_NO_THROW(parse_trace(bytes, "ok.kptrace"));
  for (std::size_t cut : {bytes.size() - 1, bytes.size() - 20, bytes.size() / 2, std::size_t{100}, std::size_t{9}}) {
    try {
      parse_trace(std::string_view(bytes).substr(0, cut), "cut.kptrace");
      ADD_FAILURE() << "no error at cut " << cut;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.file(), "cut.kptrace");
      EXPECT_NE(std::string(e.what()).find("byte offset"), std::string::npos) << e.what();
    }
  }
  std::string bad = bytes;
  bad[8] = 9;  // version
  EXPECT_THROW(parse_trace(bad, "v.kptrace"), ParseError);
  bad = bytes;
  SectionEntry s;
  std::memcpy(&s, bad.data() + sizeof(FileHeader), sizeof s);
  s.count = 1'000'000;  // kernels section claims more records than the file holds
  std::memcpy(bad.data() + sizeof(FileHeader), &s, sizeof s);
  EXPECT_THROW(parse_trace(bad, "c.kptrace"), ParseError);
}

TEST(TraceWriter, ArenaKeepsOrderAcrossChunks) {
  TraceBuffer b;
  const std::size_t n = RecordArena<RawKernel>::kChunk + 10;
  auto name = b.intern("k");
  for (std::size_t i = 0; i < n; ++i) {
    RawKernel k{};
    k.start = kT0 + 10 * i;
    k.end = k.start + 5;
    k.name = name;
    k.correlation = static_cast<std::uint32_t>(i + 1);
    b.kernels.push(k);
  }
  Trace t = parse_trace(b.serialize({}), "big.kptrace");
  ASSERT_EQ(t.kernels.size(), n);
  EXPECT_EQ(t.kernels.back().correlation, n);
  EXPECT_EQ(t.kernels.back().start_ns, static_cast<std::int64_t>(10 * (n - 1)));
  EXPECT_EQ(t.str(t.kernels[123].name), "k");
}

// An in-process profiling window (capi/) writes what was traced, then starts the next window empty.
TEST(TraceWriter, ClearRecordsStartsAnEmptyWindowAndKeepsStrings) {
  kprof::TraceBuffer b;
  auto name = b.intern("fma_loop");
  b.kernels.push();
  b.markers.push();
  b.api_calls.push();
  ASSERT_EQ(b.record_count(), 3u);
  b.clear_records();
  EXPECT_EQ(b.record_count(), 0u);
  EXPECT_EQ(b.intern("fma_loop"), name);
  b.kernels.push();
  EXPECT_EQ(b.kernels.size(), 1u);
  EXPECT_EQ(b.record_count(), 1u);
}
