// The CUPTI range-profiler counter files (kprof.counters/1) written on the H200 by libkprof_inject.so.
#include <gtest/gtest.h>

#include "collect/counters/counters_import.hpp"
#include "collect/ncu/canonical.hpp"
#include "collect/stage_grouping.hpp"
#include "util/errors.hpp"

using namespace kprof;

namespace {
std::string fixture(const std::string& name) { return std::string(KPROF_FIXTURES) + "/h200-counters/" + name; }

const KernelLaunch& by_function(const counters::CounterSession& s, const std::string& fn) {
  for (const auto& l : s.launches)
    if (l.function == fn) return l;
  throw std::runtime_error("no launch of " + fn);
}
}  // namespace

TEST(CountersImport, ReadsTheProbeProgramsCounters) {
  auto s = counters::import_counters(fixture("probe_one_by_one.json"));
  EXPECT_EQ(s.chip, "GH100");
  EXPECT_EQ(s.launches_profiled, 7u);
  EXPECT_EQ(s.launches_seen, 12u);
  ASSERT_EQ(s.launches.size(), 7u);
  const auto& copy = by_function(s, "copy_f4");
  EXPECT_EQ(copy.name, "copy_f4(float4 const*, float4*, unsigned long)");  // as the tracer demangles it
  EXPECT_EQ(copy.nvtx_range, "stage_copy");
  EXPECT_EQ(copy.launch.block[0], 256);
  ASSERT_TRUE(copy.duration_ns);
  EXPECT_NEAR(*copy.duration_ns, 595456, 1);  // gpu__time_duration.sum, nanoseconds
  EXPECT_EQ(copy.metrics.at("gpu__time_duration.sum").unit, "ns");
  EXPECT_EQ(copy.metrics.at("dram__throughput.avg.pct_of_peak_sustained_elapsed").unit, "%");
  // launch__* values that ncu computes itself come from the driver's figures
  EXPECT_DOUBLE_EQ(copy.metrics.at("sm__maximum_warps_per_active_cycle_pct").value, 100.0);
  EXPECT_DOUBLE_EQ(copy.metrics.at("launch__grid_size").value,
                   double(copy.launch.grid[0]) * copy.launch.grid[1] * copy.launch.grid[2]);
  // launch__ names are expected to be unsupported by CUPTI: no warning for them
  for (const auto& w : s.warnings) EXPECT_EQ(w.find("launch__"), std::string::npos) << w;
}

TEST(CountersImport, CanonicalMetricsAndStagesAsFromNcu) {
  auto s = counters::import_counters(fixture("probe_one_by_one.json"));
  auto c = ncu::derive_canonical(by_function(s, "copy_f4"));
  ASSERT_TRUE(c.dram_bytes);
  EXPECT_GT(*c.dram_bytes, 2.0e9);  // a 1 GiB float4 copy reads and writes ~2.1 GB
  ASSERT_TRUE(c.theoretical_occupancy_pct);
  EXPECT_DOUBLE_EQ(*c.theoretical_occupancy_pct, 100.0);
  auto w = ncu::derive_canonical(by_function(s, "wmma_gemm"));
  ASSERT_TRUE(w.flops_tensor);
  EXPECT_GT(*w.flops_tensor, 1e11);
  EXPECT_DOUBLE_EQ(*w.theoretical_occupancy_pct, 75.0);
  auto stages = group_into_stages(s.launches);
  bool gemm = false;
  for (const auto& st : stages)
    if (st.name == "stage_gemm") gemm = st.kernels.size() == 2;  // sgemm_naive and wmma_gemm
  EXPECT_TRUE(gemm);
}

TEST(CountersImport, FailedLaunchesBecomeWarnings) {
  // streams_nvtx_graph launches three kernels while capturing a CUDA graph: the collector of that run tried
  // to profile them and CUPTI could not decode the ranges. Each failure is reported, by kernel.
  auto s = counters::import_counters(fixture("streams_graph_capture.json"));
  int failures = 0;
  for (const auto& w : s.warnings) failures += w.find("cuptiRangeProfilerDecodeData") != std::string::npos;
  EXPECT_EQ(failures, 3);
  EXPECT_FALSE(by_function(s, "spin_fma").metrics.empty());
}

TEST(CountersImport, MalformedFilesAreParseErrors) {
  EXPECT_THROW(counters::parse_counters("{not json", "x.json"), ParseError);
  EXPECT_THROW(counters::parse_counters(R"({"schema":"kprof-trace/1"})", "x.json"), ParseError);
  EXPECT_THROW(counters::parse_counters(R"({"schema":"kprof.counters/1","kernels":[{"mangled":"_Z1fv","grid":[1]}]})",
                                        "x.json"),
               ParseError);
  // Numbers that do not fit their field (found by fuzz_counters_json: a block size of 2.6e36 converted to long was
  // undefined behaviour) name the field; so do floats where integers belong.
  for (const char* k : {R"({"mangled":"_Z1fv","block":[2565555555555555555555555555555555555,1,1]})",
                        R"({"mangled":"_Z1fv","grid":[1.5,1,1]})", R"({"mangled":"_Z1fv","stream":1e300})",
                        R"({"mangled":"_Z1fv","shared_mem_dynamic":-4})"}) {
    try {
      counters::parse_counters(std::string(R"({"schema":"kprof.counters/1","kernels":[)") + k + "]}", "x.json");
      ADD_FAILURE() << k;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("must be"), std::string::npos) << e.what();
    }
  }
  try {
    counters::parse_counters("[]", "bad.json");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
    EXPECT_EQ(e.exit_code(), kExitBadInput);
  }
}

TEST(CountersImport, CapturedLaunchesAndUnsupportedMetricsAreSaid) {
  auto s = counters::parse_counters(
      R"({"schema":"kprof.counters/1","chip":"GH100","launches_captured":3,
          "unsupported":["launch__grid_size","smsp__made_up.sum"],"kernels":[]})",
      "mem.json");
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_NE(s.warnings[0].find("CUDA graphs"), std::string::npos) << s.warnings[0];
  EXPECT_NE(s.warnings[1].find("smsp__made_up.sum"), std::string::npos) << s.warnings[1];
  EXPECT_EQ(s.warnings[1].find("launch__grid_size"), std::string::npos) << s.warnings[1];
}

// The build that produced the committed examples: metrics in one configuration (12 passes), library-kernel
// handles resolved for the launch attributes, launches into capturing streams counted and skipped.
TEST(CountersImport, ReadsTheFinalFormat) {
  auto s = counters::import_counters(fixture("probe.json"));
  EXPECT_EQ(s.passes, 12u);
  EXPECT_EQ(s.device.name, "NVIDIA H200");
  EXPECT_EQ(s.device.compute_capability, "9.0");
  EXPECT_EQ(s.device.sm_count, 132);
  const auto& w = by_function(s, "wmma_gemm");
  EXPECT_EQ(w.launch.registers_per_thread, 40);  // the driver's figure (ncu printed 40 too)
  EXPECT_DOUBLE_EQ(w.metrics.at("launch__registers_per_thread").value, 40);
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  auto g = counters::import_counters(fixture("streams.json"));
  EXPECT_EQ(g.launches_captured, 3u);
  ASSERT_FALSE(g.warnings.empty());
  EXPECT_NE(g.warnings.front().find("3 launches were captured into CUDA graphs"), std::string::npos)
      << g.warnings.front();
}

TEST(CountersImport, LaunchesWithoutValuesAreNoCounterSource) {
  auto s = counters::parse_counters(
      R"({"schema":"kprof.counters/1","chip":"GH100","kernels":[
           {"mangled":"_Z1av","grid":[1,1,1],"block":[32,1,1],"values":{},"error":"the launch failed (error 1): no counters"},
           {"mangled":"_Z1bv","grid":[1,1,1],"block":[32,1,1],"values":{"gpu__time_duration.sum":null,
            "dram__bytes_read.sum":64},"non_finite":["lts__t_sector_hit_rate.pct"]}],
          "units":{"gpu__time_duration.sum":"nanosecond","dram__bytes_read.sum":"byte"}})",
      "mem.json");
  ASSERT_EQ(s.launches.size(), 1u);  // a: failed, no values → not a counter source
  EXPECT_EQ(s.launches[0].function, "b");
  EXPECT_FALSE(s.launches[0].duration_ns);  // the null is not a value
  EXPECT_DOUBLE_EQ(s.launches[0].metrics.at("dram__bytes_read.sum").value, 64);
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_NE(s.warnings[0].find("the launch failed"), std::string::npos) << s.warnings[0];
  EXPECT_NE(s.warnings[1].find("lts__t_sector_hit_rate.pct"), std::string::npos) << s.warnings[1];
}

// Where the counter run's time went (issue 27), from the collector's own timings: the set-up, each profiled
// launch's replay, the range starts (the counter image's renewals are in them) and the file's rewrites.
TEST(CountersImport, CostOfTheCounterRun) {
  const std::string doc = R"({"schema":"kprof.counters/1","passes":15,"setup_ms":300,"kernels":[
    {"mangled":"_Z1av","grid":[1,1,1],"block":[32,1,1],"values":{"sm__cycles_elapsed.avg":1},"replay_wall_ms":200,
     "phases_ms":{"select":300,"start":150,"launch":199,"write":1}},
    {"mangled":"_Z1bv","grid":[1,1,1],"block":[32,1,1],"values":{"sm__cycles_elapsed.avg":1},"replay_wall_ms":240,
     "phases_ms":{"select":0,"start":0.5,"launch":239,"write":2}},
    {"mangled":"_Z1cv","grid":[1,1,1],"block":[32,1,1],"values":{"sm__cycles_elapsed.avg":1},"replay_wall_ms":260,
     "phases_ms":{"select":0,"start":180,"launch":259,"write":3}}]})";
  const auto s = counters::parse_counters(doc, "c.json");
  EXPECT_EQ(s.cost.replayed, 3u);
  EXPECT_DOUBLE_EQ(s.cost.replay_ms, 700);
  EXPECT_DOUBLE_EQ(s.cost.replay_median_ms, 240);
  EXPECT_DOUBLE_EQ(s.cost.start_ms, 330.5);
  EXPECT_DOUBLE_EQ(s.cost.write_ms, 6);
  EXPECT_TRUE(s.cost.has_phases);
  EXPECT_EQ(counters::describe_cost(s, 2.0),
            "counter run 2.00 s: set-up 0.30 s; 3 launches replayed (15 passes each) 0.70 s, 240 ms the median; range "
            "starts 0.33 s; file writes 0.01 s; the program and its process 0.66 s");
  // An older file (no phases, no replay times): only what it holds.
  const auto old = counters::parse_counters(
      R"({"schema":"kprof.counters/1","passes":1,"setup_ms":200,"kernels":[]})", "o.json");
  EXPECT_FALSE(old.cost.has_phases);
  EXPECT_EQ(counters::describe_cost(old, 0.5), "counter run 0.50 s: set-up 0.20 s; the program and its process 0.30 s");
}
