// Roofline chart as a standalone SVG: log-log axes (arithmetic intensity in FLOP/byte vs TFLOP/s), one roof per
// precision, one bandwidth diagonal per memory level (HBM, L2), ridge points marked, kernels as points, points
// of one series (the same stage across versions) joined in order. Pure function: model in, text out.
#pragma once
#include <string>
#include <vector>

#include "model/device_spec.hpp"

namespace kprof::render {

struct RooflineRoof {
  std::string name;          // "BF16", "FP32"
  double peak_tflops = 0;
  std::string source;        // "datasheet" / "measured" (shown in the legend)
};

struct RooflineBandwidth {
  std::string level;         // "HBM", "L2"
  double gbps = 0;
  std::string source;
};

struct RooflinePoint {
  std::string label;         // "copy_f4 v2"
  std::string series;        // points of one series are joined in the order given ("copy_f4")
  std::string level = "HBM"; // memory level the AI was computed against: "HBM" (or "dram"), "L2", "L1"
  double arithmetic_intensity = 0;  // FLOP/byte
  double tflops = 0;
};

struct RooflineChart {
  std::string title;
  std::vector<RooflineRoof> roofs;
  std::vector<RooflineBandwidth> bandwidths;
  std::vector<RooflinePoint> points;
  int width = 900;
  int height = 600;
};

std::string render_roofline_svg(const RooflineChart& chart);

// Roofs for `precisions` ("bf16", "fp32", ...) and bandwidth lines for HBM (dram_gbps) and L2 (l2_gbps) from a
// spec, measured figures first; keys the spec lacks are left out.
void add_spec_roofs(RooflineChart& chart, const DeviceSpec& spec, const std::vector<std::string>& precisions);

}  // namespace kprof::render
