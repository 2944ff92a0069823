#include <gtest/gtest.h>

#include "collect/peaks/peaks_import.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

using namespace kprof;

namespace {
PeaksReport sample() {
  const std::string path = KPROF_FIXTURES + "/peaks/h200-sample.json";
  return parse_peaks_json(read_file(path), path);
}
}  // namespace

TEST(PeaksImport, ParsesDeviceAndMeasurements) {
  auto r = sample();
  EXPECT_EQ(r.device.name, "NVIDIA H200");
  EXPECT_EQ(r.device.sm_count, 132);
  EXPECT_DOUBLE_EQ(r.device.l2_bytes, 62914560);
  ASSERT_TRUE(r.measured.count("dram_gbps"));
  EXPECT_DOUBLE_EQ(r.measured.at("dram_gbps").value, 4281.5);
  EXPECT_EQ(r.measured.at("dram_gbps").runs, 7);
  EXPECT_EQ(r.skipped.size(), 1u);
}

TEST(PeaksImport, PeaksCarryWhenAndHow) {
  auto peaks = peaks_from_report(sample());
  ASSERT_TRUE(peaks.count("bf16_tflops"));
  EXPECT_DOUBLE_EQ(peaks.at("bf16_tflops").value, 781.3);
  EXPECT_EQ(peaks.at("bf16_tflops").source,
            "kprof-peaks 2026-11-30, median of 7 (769.2..798 TFLOP/s); cuBLASLt matmul 8192^3 TN, BF16 in/out, FP32 "
            "accumulate, uniform(-1,1) inputs");
  EXPECT_NE(peaks.at("dram_gbps").source.find("(4262..4302 GB/s)"), std::string::npos) << peaks.at("dram_gbps").source;
  EXPECT_FALSE(peaks.count("future_gbps"));
  EXPECT_FALSE(peaks.count("dram_read_gbps"));  // no DeviceSpec key
}

TEST(PeaksImport, MergeOverridesMeasuredKeysOnly) {
  DeviceSpec spec;
  spec.name = "NVIDIA H200 SXM";
  spec.aliases = {"NVIDIA H200"};
  spec.datasheet["dram_gbps"] = {4800, "NVIDIA H200 datasheet"};
  spec.measured["fp64_tflops"] = {33.0, "older run"};
  auto warnings = merge_measured(spec, sample());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("future_gbps"), std::string::npos);
  EXPECT_DOUBLE_EQ(spec.peak("dram_gbps")->value, 4281.5);
  EXPECT_EQ(spec.peak_kind("dram_gbps"), "measured");
  EXPECT_DOUBLE_EQ(spec.datasheet.at("dram_gbps").value, 4800);
  EXPECT_DOUBLE_EQ(spec.measured.at("fp64_tflops").value, 33.0);
}

TEST(PeaksImport, WarnsOnAnotherDevice) {
  DeviceSpec spec;
  spec.name = "NVIDIA H100 SXM";
  auto warnings = merge_measured(spec, sample());
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("measured on 'NVIDIA H200'"), std::string::npos);
}

TEST(PeaksImport, RejectsMalformedOrInconsistent) {
  EXPECT_THROW(parse_peaks_json("{not json", "x.json"), ParseError);
  EXPECT_THROW(parse_peaks_json(R"({"schema": "other/1"})", "x.json"), ParseError);
  EXPECT_THROW(parse_peaks_json(R"({"measured": {"dram_gbps": {"value": 10, "min": 11, "max": 12, "runs": 5}}})", "x"),
               ParseError);
  EXPECT_THROW(parse_peaks_json(R"({"measured": {"dram_gbps": {"value": 10, "min": 9, "max": 12, "runs": 0}}})", "x"),
               ParseError);
  EXPECT_THROW(parse_peaks_json(R"({"measured": {"dram_gbps": {"value": 0, "min": 0, "max": 0, "runs": 5}}})", "x"),
               ParseError);
}

TEST(PeaksImport, RoundTripsThroughTheReportType) {
  auto r = sample();
  auto again = parse_peaks_json(json(r).dump(), "again");
  EXPECT_EQ(json(again), json(r));
}

// The host link's keys (each way, and both ways at once) are peaks like the others: imported into
// DeviceSpec::measured, in GB/s, with no warning.
TEST(PeaksImport, TheHostLinkKeysAreImported) {
  PeaksReport r = sample();
  r.measured.clear();
  r.skipped.clear();
  for (const char* key : {"h2d_pinned_gbps", "d2h_pinned_gbps", "both_pinned_gbps"}) {
    PeakMeasurement m;
    m.value = 50.5, m.min = 50.1, m.max = 51.0, m.runs = 7;
    m.method = "cudaMemcpyAsync from pinned host memory";
    r.measured[key] = m;
  }
  DeviceSpec spec;
  spec.name = "NVIDIA H200";
  EXPECT_TRUE(merge_measured(spec, r).empty());
  ASSERT_TRUE(spec.peak("h2d_pinned_gbps").has_value());
  EXPECT_DOUBLE_EQ(spec.peak("d2h_pinned_gbps")->value, 50.5);
  ASSERT_TRUE(spec.peak("both_pinned_gbps").has_value());
  EXPECT_NE(spec.measured.at("h2d_pinned_gbps").source.find("GB/s"), std::string::npos);
}
