#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <regex>

#include "render/roofline_svg.hpp"
#include "util/fs.hpp"
#include "xml_check.hpp"

using namespace kprof;
using namespace kprof::render;

namespace {

// The H200 datasheet figures the example uses (as a DeviceSpec would carry them).
DeviceSpec h200_datasheet() {
  DeviceSpec s;
  s.name = "NVIDIA H200 SXM";
  s.id = "h200-sxm";
  s.datasheet["dram_gbps"] = {4800, "NVIDIA H200 datasheet"};
  s.datasheet["fp32_tflops"] = {67, "NVIDIA H200 datasheet"};
  s.datasheet["bf16_tflops"] = {989, "NVIDIA H200 datasheet (dense)"};
  return s;
}

// Points from tests/fixtures/h200-probe (full_raw.csv): durations, DRAM bytes (read + write) and L2 bytes
// (lts__t_sectors × 32); FLOPs as the probe kernels declare them.
RooflineChart probe_chart() {
  RooflineChart c;
  c.title = "NVIDIA H200: probe kernels (ncu fixture)";
  add_spec_roofs(c, h200_datasheet(), {"bf16", "fp32"});
  const double fma_flops = 4.325e10, fma_s = 1.026528e-3;
  const double gemm_flops = 2.0 * 4096.0 * 4096.0 * 4096.0, gemm_s = 4.641920e-3;
  const double gemm_dram = (0.496563 + 0.064912) * 1e9, gemm_l2 = 151925548.0 * 32;
  const double fma_dram = 0.000005 * 1e9, fma_l2 = 66274.0 * 32;
  const double copy_dram = (1.073780 + 1.052746) * 1e9;
  c.points.push_back({"fma_loop", "fma_loop", "HBM", fma_flops / fma_dram, fma_flops / fma_s / 1e12});
  c.points.push_back({"fma_loop (L2)", "fma_loop", "L2", fma_flops / fma_l2, fma_flops / fma_s / 1e12});
  c.points.push_back({"wmma_gemm", "wmma_gemm", "HBM", gemm_flops / gemm_dram, gemm_flops / gemm_s / 1e12});
  c.points.push_back({"wmma_gemm (L2)", "wmma_gemm", "L2", gemm_flops / gemm_l2, gemm_flops / gemm_s / 1e12});
  c.points.push_back({"copy_f4", "copy_f4", "HBM", 0.0 / copy_dram, 0.0});  // no FLOPs: listed, not drawn
  return c;
}

struct DrawnPoint {
  std::string label;
  double ai, x, y;
};

std::vector<DrawnPoint> drawn_points(const std::string& svg) {
  std::vector<DrawnPoint> out;
  std::regex re(R"re(<g class="point" data-label="([^"]*)" [^>]*data-ai="([^"]+)" [^>]*data-x="([^"]+)" data-y="([^"]+)")re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back({(*it)[1], std::stod((*it)[2]), std::stod((*it)[3]), std::stod((*it)[4])});
  return out;
}

}  // namespace

TEST(RooflineSvg, IsWellFormedXml) {
  auto svg = render_roofline_svg(probe_chart());
  EXPECT_EQ(xmltest::xml_problem(svg), "");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  // The checker itself catches breakage.
  EXPECT_NE(xmltest::xml_problem("<svg><g></svg>"), "");
  EXPECT_NE(xmltest::xml_problem("<svg><text>a & b</text></svg>"), "");
  EXPECT_NE(xmltest::xml_problem("<svg x=1/>"), "");
}

TEST(RooflineSvg, LargerIntensityIsFurtherRightAndFasterIsHigher) {
  RooflineChart c;
  add_spec_roofs(c, h200_datasheet(), {"bf16"});
  for (double ai : {0.25, 3.0, 40.0, 700.0, 12000.0})
    c.points.push_back({"ai " + std::to_string(ai), "s", "HBM", ai, std::min(989.0, ai * 4.8) / 2});
  auto pts = drawn_points(render_roofline_svg(c));
  ASSERT_EQ(pts.size(), 5u);
  for (size_t i = 1; i < pts.size(); ++i) {
    EXPECT_GT(pts[i].x, pts[i - 1].x) << pts[i].label;
    EXPECT_LE(pts[i].y, pts[i - 1].y) << pts[i].label;  // SVG y grows downwards
  }
  // Log scale: equal ratios, equal distances.
  RooflineChart d;
  for (double ai : {1.0, 10.0, 100.0}) d.points.push_back({"p", "s", "HBM", ai, 1.0});
  auto q = drawn_points(render_roofline_svg(d));
  ASSERT_EQ(q.size(), 3u);
  EXPECT_NEAR(q[1].x - q[0].x, q[2].x - q[1].x, 0.2);
}

TEST(RooflineSvg, RoofsRidgesAndBandwidthLinesFromTheSpec) {
  auto spec = h200_datasheet();
  spec.measured["l2_gbps"] = {12000, "kprof-peaks test"};
  RooflineChart c;
  add_spec_roofs(c, spec, {"bf16", "fp32", "fp8"});  // fp8 absent from the spec: no roof
  ASSERT_EQ(c.roofs.size(), 2u);
  ASSERT_EQ(c.bandwidths.size(), 2u);
  EXPECT_EQ(c.bandwidths[1].source, "measured");
  auto svg = render_roofline_svg(c);
  EXPECT_NE(svg.find(R"(class="roof" data-name="BF16")"), std::string::npos);
  EXPECT_NE(svg.find(R"(class="bandwidth" data-level="L2")"), std::string::npos);
  // Ridge points: 989e12/4.8e12 = 206 FLOP/byte for BF16 on HBM, 67/4.8 = 14 for FP32.
  EXPECT_NE(svg.find(R"(class="ridge" data-ai="206")"), std::string::npos);
  EXPECT_NE(svg.find(R"(class="ridge" data-ai="13.96")"), std::string::npos);
  EXPECT_NE(svg.find(R"(class="ridge" data-ai="82.42")"), std::string::npos);  // BF16 on L2
  EXPECT_NE(svg.find(">BF16 989 TFLOP/s<"), std::string::npos);
}

TEST(RooflineSvg, SeriesAreJoinedPerLevelInOrder) {
  RooflineChart c;
  c.points = {{"v1", "attn", "HBM", 10, 5}, {"v2", "attn", "HBM", 20, 20}, {"v3", "attn", "HBM", 40, 60},
              {"v1 L2", "attn", "L2", 2, 5}, {"solo", "mlp", "HBM", 5, 1}};
  auto svg = render_roofline_svg(c);
  std::regex poly(R"re(<polyline points="([^"]*)")re");
  std::vector<std::string> lines;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), poly); it != std::sregex_iterator(); ++it)
    lines.push_back((*it)[1]);
  ASSERT_EQ(lines.size(), 1u);  // attn/HBM only: single points are not joined
  EXPECT_EQ(std::count(lines[0].begin(), lines[0].end(), ' '), 2);
}

TEST(RooflineSvg, EscapesText) {
  RooflineChart c;
  c.title = "A<B & \"C\"";
  c.roofs.push_back({"x<y>", 100, "m&m"});
  c.points.push_back({"gemm<bf16, 128>", "s&t", "HBM", 10, 1});
  auto svg = render_roofline_svg(c);
  EXPECT_EQ(xmltest::xml_problem(svg), "");
  EXPECT_NE(svg.find("A&lt;B &amp; &quot;C&quot;"), std::string::npos);
  EXPECT_NE(svg.find("gemm&lt;bf16, 128&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("gemm<bf16"), std::string::npos);
}

TEST(RooflineSvg, PointsWithoutFlopsAreCountedNotDrawn) {
  auto c = probe_chart();
  auto svg = render_roofline_svg(c);
  EXPECT_EQ(drawn_points(svg).size(), 4u);
  EXPECT_NE(svg.find("Not drawn (no FLOPs or bytes):"), std::string::npos);
  EXPECT_NE(svg.find(">copy_f4</text>"), std::string::npos);
  RooflineChart empty;
  EXPECT_EQ(xmltest::xml_problem(render_roofline_svg(empty)), "");
}

// docs/images/roofline-example.svg is this chart. KPROF_UPDATE_GOLDEN=1 rewrites it after a deliberate change.
TEST(RooflineSvg, ExampleMatchesCommittedImage) {
  const std::string path = KPROF_SOURCE_DIR + "/docs/images/roofline-example.svg";
  auto svg = render_roofline_svg(probe_chart());
  if (const char* u = std::getenv("KPROF_UPDATE_GOLDEN"); u && std::string(u) == "1") write_file_atomic(path, svg);
  EXPECT_EQ(read_file(path), svg) << "re-run with KPROF_UPDATE_GOLDEN=1 if the change is intended";
}

// Issue 25 (roofline.svg looked at as a picture): a kernel is one colour and one number at every memory level, its
// levels joined by a dotted line; points are labelled by that number (22 names overprinted each other); the legend
// shows marker swatches, names that fit its width, and the picture grows instead of cutting the legend; ridge labels
// never run together.
TEST(RooflineSvg, OneKernelOneNumberAndALegendThatFits) {
  RooflineChart c = probe_chart();
  for (int i = 0; i < 20; ++i)
    c.points.push_back({"a_kernel_with_a_very_long_templated_name_number_" + std::to_string(i),
                        "a_kernel_with_a_very_long_templated_name_number_" + std::to_string(i), "HBM", 1.0 + i, 0.5});
  const std::string svg = render_roofline_svg(c);
  EXPECT_EQ(xmltest::xml_problem(svg), "");
  // fma_loop's HBM and L2 points: same colour, both labelled "1".
  std::regex point(R"re(<g class="point" data-label="([^"]*)"[^>]*>(.*?)</g>)re");
  std::vector<std::string> colours;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), point); it != std::sregex_iterator(); ++it) {
    if ((*it)[1].str().rfind("fma_loop", 0) != 0) continue;
    const std::string body = (*it)[2];
    std::smatch m;
    ASSERT_TRUE(std::regex_search(body, m, std::regex(R"re(fill="(#[0-9A-Fa-f]{6})")re"))) << body;
    colours.push_back(m[1]);
    EXPECT_TRUE(std::regex_search(body, std::regex(R"re(>1( \(L2\))?</text>)re"))) << body;  // the label's own tag stays
  }
  ASSERT_EQ(colours.size(), 2u);
  EXPECT_EQ(colours[0], colours[1]);
  EXPECT_NE(svg.find(R"(class="level-links")"), std::string::npos);
  // Legend entries: a marker, the number, a name of at most 38 characters.
  std::regex entry(R"re(<g class="legend-kernel"><title>[^<]*</title><circle[^>]*/><text[^>]*><tspan[^>]*>(\d+)</tspan> ([^<]*)</text>)re");
  int entries = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), entry); it != std::sregex_iterator(); ++it, ++entries) {
    std::string name = (*it)[2];
    std::size_t chars = 0;
    for (unsigned char ch : name) chars += (ch & 0xC0) != 0x80;
    EXPECT_LE(chars, 38u) << name;
  }
  EXPECT_EQ(entries, 22);  // fma_loop, wmma_gemm and the 20 long ones
  // 22 kernels do not fit 600 px of legend: the picture is taller than the default.
  std::smatch h;
  ASSERT_TRUE(std::regex_search(svg, h, std::regex(R"re(<svg [^>]*height="(\d+)")re")));
  EXPECT_GT(std::stoi(h[1]), 600);
}
