#include <gtest/gtest.h>

#include "collect/peaks/peaks_import.hpp"
#include "render/device_page.hpp"
#include "util/fs.hpp"

using namespace kprof;
using namespace kprof::render;

namespace {
DeviceSpec h200() {
  DeviceSpec s;
  s.name = "NVIDIA H200 SXM";
  s.id = "h200-sxm";
  s.aliases = {"NVIDIA H200"};
  s.compute_capability = "9.0";
  s.sm_count = 132;
  s.l2_mb = 60;
  s.memory_gb = 141;
  s.datasheet["dram_gbps"] = {4800, "NVIDIA H200 datasheet"};
  s.datasheet["fp32_tflops"] = {67, "NVIDIA H200 datasheet"};
  s.datasheet["bf16_tflops"] = {989, "NVIDIA H200 datasheet | dense"};
  return s;
}
}  // namespace

TEST(DevicePage, DatasheetOnly) {
  auto md = render_device_page(h200());
  EXPECT_EQ(md.rfind("# NVIDIA H200 SXM\n", 0), 0u);
  EXPECT_NE(md.find("| HBM / DRAM bandwidth | GB/s | 4800 | – | – | datasheet | NVIDIA H200 datasheet |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("datasheet \\| dense"), std::string::npos);  // pipes escaped inside cells
  EXPECT_NE(md.find("| BF16 | 989 | 206.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| FP32 | 67 | 14.0 |"), std::string::npos);
  EXPECT_NE(md.find("No L2 bandwidth known"), std::string::npos);
  EXPECT_NE(md.find("| L2 | 60 MB | – | unknown |"), std::string::npos) << md;
  EXPECT_NE(md.find("Nothing yet"), std::string::npos);
}

TEST(DevicePage, MeasuredPeaksOverrideAndAddL2Ridges) {
  auto spec = h200();
  const std::string path = KPROF_FIXTURES + "/peaks/h200-sample.json";
  merge_measured(spec, parse_peaks_json(read_file(path), path));
  spec.measured["l2_gbps"] = {10000, "kprof-peaks 2026-11-30, median of 7 (9900..10100 GB/s)"};
  auto md = render_device_page(spec);
  EXPECT_NE(md.find("| HBM / DRAM bandwidth | GB/s | 4800 | 4282 | 89% | measured | kprof-peaks 2026-11-30, median of 7"),
            std::string::npos)
      << md;
  // BF16 measured 781.3 against HBM 4281.5 and L2 10000.
  EXPECT_NE(md.find("| BF16 | 781.3 | 182.5 | 78.1 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("No L2 bandwidth known"), std::string::npos);
  EXPECT_NE(md.find("- BF16 tensor: 781.3 TFLOP/s, kprof-peaks 2026-11-30"), std::string::npos);
}
