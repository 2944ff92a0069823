#include <gtest/gtest.h>

#include "render/devices_markdown.hpp"
#include "support/golden.hpp"
#include "support/sample_run.hpp"

using namespace kprof;
using namespace kprof::render;
using namespace kprof::testing;

namespace {
DeviceSpec datasheet_only() {
  DeviceSpec d;
  d.name = "NVIDIA H100 SXM";
  d.id = "h100-sxm";
  d.compute_capability = "9.0";
  d.sm_count = 132;
  const std::string ds = "NVIDIA H100 datasheet (dense)";
  d.datasheet = {{"dram_gbps", {3350, ds}}, {"fp32_tflops", {67, ds}}, {"bf16_tflops", {989.5, ds}}};
  return d;
}
}  // namespace

TEST(RenderDevices, GoldenTable) { expect_golden("devices.md", render_devices({h200_spec(), datasheet_only()})); }

TEST(RenderDevices, GoldenDetail) { expect_golden("device_h200.md", render_device_detail(h200_spec())); }

TEST(RenderDevices, MeasuredPeaksWinAndMissingOnesAreDashes) {
  std::string md = render_devices({h200_spec(), datasheet_only()});
  // H200: measured 4300 GB/s replaces 4800; ridge bf16 = 798e12 / 4300e9.
  EXPECT_NE(md.find("| NVIDIA H200 SXM | 9.0 | 132 | 4300.0 | 67.0 | 494.5 | 798.0 | 1979.0 | 185.6 | datasheet + "
                    "measured |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| NVIDIA H100 SXM | 9.0 | 132 | 3350.0 | 67.0 | — | 989.5 | — | 295.4 | datasheet |"),
            std::string::npos)
      << md;
}

TEST(RenderDevices, DetailListsBothFiguresAndMarksTheOneInUse) {
  std::string md = render_device_detail(h200_spec());
  EXPECT_NE(md.find("| dram_gbps | 4800.0 | GB/s | datasheet | NVIDIA H200 datasheet (dense) |  |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| dram_gbps | 4300.0 | GB/s | measured | kprof peaks --measure 2026-11-30 (device-to-device copy) "
                    "| ✓ |"),
            std::string::npos)
      << md;
}
