#include <gtest/gtest.h>

#include "analyze/device_db.hpp"
#include "analyze/roofline.hpp"
#include "analyze_probe_metrics.hpp"
#include "util/fs.hpp"

#include "datasheet_devices.hpp"

using namespace kprof;
using namespace kprof::analyze;

namespace {
DeviceSpec h200() {
  return *datasheet_db().find("h200-sxm");
}
}  // namespace

TEST(Roofline, CopyKernelIsBoundByMemoryAtAchievedOverPeakBandwidth) {
  DeclaredWork d;
  d.flops = 268435456.0;  // one FP32 op per float of the 1 GiB buffer: AI tiny
  d.precision = "fp32";
  auto p = place(probe::copy_f4(), d, h200());  // counters show 0 FLOPs: the declaration is used
  ASSERT_TRUE(p);
  EXPECT_EQ(p->precision, "fp32");
  EXPECT_EQ(p->flops_source, "declared");
  EXPECT_EQ(p->bound_by, "memory");
  EXPECT_NEAR(p->ridge_flop_per_byte, 67e12 / 4800e9, 1e-9);  // 13.96 FLOP/B
  EXPECT_NEAR(p->arithmetic_intensity, 268435456.0 / 2.126526e9, 1e-12);
  // Left of the ridge % of roof is achieved bandwidth / peak: 2.126526e9 B / 536672 ns = 3962.4 GB/s.
  EXPECT_NEAR(p->pct_of_roof, 3962.431 / 4800 * 100, 0.01);
  EXPECT_NE(p->peak_source.find("datasheet: NVIDIA H200 Tensor Core GPU datasheet"), std::string::npos);
}

TEST(Roofline, FmaLoopIsRightOfTheRidgeAgainstTheFp32Peak) {
  auto p = place(probe::fma_loop_small(), DeclaredWork{}, h200());
  ASSERT_TRUE(p);
  EXPECT_EQ(p->precision, "fp32");
  EXPECT_EQ(p->flops_source, "counters");
  EXPECT_EQ(p->bound_by, "compute");
  EXPECT_DOUBLE_EQ(p->roof_tflops, 67);
  EXPECT_NEAR(p->achieved_tflops, 21.1227, 1e-3);  // 2.70337e10 FLOP / 1.27984 ms
  EXPECT_NEAR(p->pct_of_roof, 31.526, 1e-3);
}

TEST(Roofline, WmmaGemmUsesTheBf16TensorPeak) {
  auto p = place(probe::wmma_gemm(), DeclaredWork{}, h200());
  ASSERT_TRUE(p);
  EXPECT_EQ(p->precision, "bf16");
  EXPECT_DOUBLE_EQ(p->peak_tflops, 989.5);
  EXPECT_NEAR(p->achieved_tflops, 29.608, 1e-3);  // 2 x 4096^3 / 4.64192 ms
  EXPECT_EQ(p->bound_by, "compute");               // AI = 1.374e11 / 5.615e8 = 245 > ridge 206
}

TEST(Roofline, GapsAreReportedAndLevelsNeedABandwidth) {
  EXPECT_FALSE(place(probe::copy_f4(), DeclaredWork{}, h200()));
  EXPECT_EQ(roofline_gap(probe::copy_f4(), DeclaredWork{}, h200()), "FLOPs unavailable");
  // L1 bytes exist for the spill kernel but no l1_gbps peak is published.
  EXPECT_FALSE(place(probe::spill_kernel(), DeclaredWork{}, h200(), "l1"));
  EXPECT_EQ(roofline_gap(probe::spill_kernel(), DeclaredWork{}, h200(), "l1"), "no l1_gbps peak for h200-sxm");
  DeviceSpec measured = h200();
  measured.measured["l1_gbps"] = Peak{30000, "kprof peaks --measure"};
  auto p = place(probe::spill_kernel(), DeclaredWork{}, measured, "l1");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->memory_level, "l1");
  EXPECT_NE(p->peak_source.find("measured: kprof peaks --measure"), std::string::npos);
}
