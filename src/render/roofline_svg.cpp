#include "render/roofline_svg.hpp"
#include "render/contract_view.hpp"
#include "render/xml_text.hpp"
#include "util/mapped.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

namespace kprof::render {

namespace {

std::string esc(const std::string& s) { return xml_text(s); }

std::string num(double v) { return fmt::format("{:.4g}", v); }

std::string decade_label(int e) {
  if (e >= 0 && e <= 4) return fmt::format("{}", static_cast<long>(std::pow(10.0, e)));
  if (e < 0 && e >= -3) return fmt::format("{:.{}f}", std::pow(10.0, e), -e);
  return fmt::format("1e{}", e);
}

std::string canonical_level(const std::string& level) {
  std::string l;
  for (char c : level) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "dram" || l == "hbm" || l.empty()) return "HBM";
  if (l == "l2" || l == "lts") return "L2";
  if (l == "l1" || l == "l1tex") return "L1";
  return level;
}

// Okabe–Ito colours: distinguishable for colour-blind readers, readable on white.
const char* kSeriesColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"};
const char* kRoofColours[] = {"#333333", "#7a4d00", "#004d80", "#6b2d5c", "#2d6b3c"};

struct Frame {
  double x0, x1, y0, y1;  // plot area in pixels
  double lx0, lx1, ly0, ly1;  // log10 of the axis ranges
  double x(double ai) const { return x0 + (std::log10(ai) - lx0) / (lx1 - lx0) * (x1 - x0); }
  double y(double tf) const { return y1 - (std::log10(tf) - ly0) / (ly1 - ly0) * (y1 - y0); }
};

std::string marker(const std::string& level, double cx, double cy, const std::string& colour) {
  if (level == "L2")
    return fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="9" height="9" fill="{}" stroke="#fff" stroke-width="1"/>)",
                       cx - 4.5, cy - 4.5, colour);
  if (level == "L1")
    return fmt::format(R"(<path d="M{:.1f},{:.1f} l5.5,9.5 h-11 z" fill="{}" stroke="#fff" stroke-width="1"/>)", cx,
                       cy - 6, colour);
  return fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="5" fill="{}" stroke="#fff" stroke-width="1"/>)", cx, cy,
                     colour);
}

// What the chart draws, after validation: the points that can be placed (skipped ones by label), the positive
// roofs and bandwidths highest first, and the frame that maps them to pixels.
struct Layout {
  double width = 0, height = 0;
  static constexpr double kLegendWidth = 300;
  std::vector<RooflinePoint> points;
  std::vector<std::string> skipped;
  std::vector<RooflineRoof> roofs;
  std::vector<RooflineBandwidth> bandwidths;
  Frame f{};
  double ai_min() const { return std::pow(10.0, f.lx0); }
  double ai_max() const { return std::pow(10.0, f.lx1); }
  // A line between two points on a slope-1 (or flat) ceiling, its low end moved up to the bottom edge when it
  // starts below it.
  std::string clip_line(double ai_a, double tf_a, double ai_b, double tf_b) const {
    double ymin = std::pow(10.0, f.ly0);
    if (tf_a < ymin && tf_b > tf_a) {
      ai_a *= ymin / tf_a;
      tf_a = ymin;
    }
    return fmt::format(R"(x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}")", f.x(ai_a), f.y(tf_a), f.x(ai_b), f.y(tf_b));
  }
};

// Legend rows the chart needs (kernels, levels, ceilings, points not drawn), to grow the picture rather than cut it.
double legend_height(const RooflineChart& c) {
  std::set<std::string> series, levels;
  for (const auto& p : c.points) series.insert(p.series), levels.insert(p.level);
  const double rows = static_cast<double>(series.size() + levels.size() + c.roofs.size() + c.bandwidths.size() + 2);
  return 60 + rows * 17 + 3 * 24;
}

Layout lay_out(const RooflineChart& c) {
  Layout l;
  l.width = c.width + (Layout::kLegendWidth - 230);  // the legend's extra width comes on top of the plot's
  l.height = std::max<double>(c.height, legend_height(c));
  for (auto p : c.points) {
    if (!(p.arithmetic_intensity > 0) || !(p.tflops > 0) || !std::isfinite(p.arithmetic_intensity) ||
        !std::isfinite(p.tflops)) {
      l.skipped.push_back(p.label);
      continue;
    }
    p.level = canonical_level(p.level);
    l.points.push_back(p);
  }
  for (const auto& r : c.roofs)
    if (r.peak_tflops > 0) l.roofs.push_back(r);
  std::sort(l.roofs.begin(), l.roofs.end(), [](auto& a, auto& b) { return a.peak_tflops > b.peak_tflops; });
  for (const auto& b : c.bandwidths)
    if (b.gbps > 0) l.bandwidths.push_back(b);
  std::sort(l.bandwidths.begin(), l.bandwidths.end(), [](auto& a, auto& b) { return a.gbps > b.gbps; });

  // Axis ranges: every point and ridge inside, whole decades.
  double ai_lo = 1e300, ai_hi = 0, tf_lo = 1e300, tf_hi = 0;
  for (const auto& p : l.points) {
    ai_lo = std::min(ai_lo, p.arithmetic_intensity);
    ai_hi = std::max(ai_hi, p.arithmetic_intensity);
    tf_lo = std::min(tf_lo, p.tflops);
    tf_hi = std::max(tf_hi, p.tflops);
  }
  for (const auto& r : l.roofs) {
    tf_hi = std::max(tf_hi, r.peak_tflops);
    for (const auto& b : l.bandwidths) {
      double ridge = r.peak_tflops * 1e3 / b.gbps;
      ai_lo = std::min(ai_lo, ridge / 10);
      ai_hi = std::max(ai_hi, ridge * 4);
    }
  }
  if (ai_hi <= 0) { ai_lo = 0.1; ai_hi = 1000; }
  if (tf_hi <= 0) { tf_lo = 0.1; tf_hi = 1000; }
  double lx0 = std::floor(std::log10(ai_lo)), lx1 = std::ceil(std::log10(ai_hi * 1.2));
  if (lx1 - lx0 < 2) lx1 = lx0 + 2;
  double ly1 = std::ceil(std::log10(tf_hi * 1.5));
  for (const auto& b : l.bandwidths) tf_lo = std::min(tf_lo, b.gbps * std::pow(10.0, lx0) / 1e3 * 3);
  double ly0 = std::floor(std::log10(tf_lo));
  ly0 = std::max(ly0, ly1 - 6);  // at most six decades: lower bandwidth lines enter from the bottom edge
  if (ly1 - ly0 < 2) ly0 = ly1 - 2;
  l.f = Frame{80, l.width - Layout::kLegendWidth - 20, 48, l.height - 62, lx0, lx1, ly0, ly1};
  return l;
}

void draw_header(std::string& s, const RooflineChart& c, const Layout& l) {
  s += fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" font-family="Helvetica, Arial, sans-serif" font-size="12">)"
      "\n",
      l.width, l.height);
  s += fmt::format(R"(<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>)"
                   "\n",
                   l.width, l.height);
  if (!c.title.empty())
    s += fmt::format(R"(<text x="{:.1f}" y="28" font-size="16" font-weight="bold" text-anchor="middle">{}</text>)"
                     "\n",
                     (l.f.x0 + l.f.x1) / 2, esc(c.title));
}

// Grid, decade ticks and labels, axis titles.
void draw_axes(std::string& s, const Layout& l) {
  const Frame& f = l.f;
  const int lx0 = static_cast<int>(f.lx0), lx1 = static_cast<int>(f.lx1);
  const int ly0 = static_cast<int>(f.ly0), ly1 = static_cast<int>(f.ly1);
  s += "<g class=\"grid\" stroke=\"#e6e6e6\" stroke-width=\"1\">\n";
  for (int e = lx0; e < lx1; ++e)
    for (int m = 2; m <= 9; ++m) {
      double x = f.x(m * std::pow(10.0, e));
      s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="#f3f3f3"/>)"
                       "\n",
                       x, f.y0, f.y1);
    }
  for (int e = lx0; e <= lx1; ++e)
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}"/>)"
                     "\n",
                     f.x(std::pow(10.0, e)), f.y0, f.y1);
  for (int e = ly0; e <= ly1; ++e)
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}"/>)"
                     "\n",
                     f.x0, f.y(std::pow(10.0, e)), f.x1);
  s += "</g>\n<g class=\"axes\" fill=\"#222\">\n";
  s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="none" stroke="#444"/>)"
                   "\n",
                   f.x0, f.y0, f.x1 - f.x0, f.y1 - f.y0);
  for (int e = lx0; e <= lx1; ++e) {
    double x = f.x(std::pow(10.0, e));
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="#444"/>)"
                     "\n",
                     x, f.y1, f.y1 + 5);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)"
                     "\n",
                     x, f.y1 + 19, decade_label(e));
  }
  for (int e = ly0; e <= ly1; ++e) {
    double y = f.y(std::pow(10.0, e));
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="#444"/>)"
                     "\n",
                     f.x0 - 5, y, f.x0);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)"
                     "\n",
                     f.x0 - 8, y + 4, decade_label(e));
  }
  s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle" font-size="13">Arithmetic intensity (FLOP/byte)</text>)"
                   "\n",
                   (f.x0 + f.x1) / 2, l.height - 18);
  s += fmt::format(
      R"svg(<text x="22" y="{0:.1f}" text-anchor="middle" font-size="13" transform="rotate(-90 22 {0:.1f})">Performance (TFLOP/s)</text>)svg"
      "\n",
      (f.y0 + f.y1) / 2);
  s += "</g>\n";
}

// Bandwidth diagonals (up to the highest roof), compute roofs (from the first ridge they meet), their labels and
// the ridge points.
void draw_ceilings(std::string& s, const Layout& l) {
  const Frame& f = l.f;
  const auto& roofs = l.roofs;
  const auto& bws = l.bandwidths;
  const double ai_min = l.ai_min(), ai_max = l.ai_max();
  const double top = roofs.empty() ? std::pow(10.0, f.ly1) : roofs.front().peak_tflops;
  s += "<g class=\"roofs\" fill=\"none\" stroke-width=\"2\">\n";
  for (size_t i = 0; i < bws.size(); ++i) {
    const auto& b = bws[i];
    double ai_top = top * 1e3 / b.gbps;
    const char* dash = i == 0 ? "" : R"( stroke-dasharray="7 4")";
    s += fmt::format(R"(<line class="bandwidth" data-level="{}" {} stroke="#555"{}/>)"
                     "\n",
                     esc(b.level), l.clip_line(ai_min, b.gbps * ai_min / 1e3, std::min(ai_top, ai_max), std::min(ai_top, ai_max) * b.gbps / 1e3),
                     dash);
  }
  for (size_t i = 0; i < roofs.size(); ++i) {
    const auto& r = roofs[i];
    double start = bws.empty() ? ai_min : r.peak_tflops * 1e3 / bws.front().gbps;
    s += fmt::format(R"(<line class="roof" data-name="{}" {} stroke="{}"/>)"
                     "\n",
                     esc(r.name), l.clip_line(std::max(start, ai_min), r.peak_tflops, ai_max, r.peak_tflops),
                     kRoofColours[i % std::size(kRoofColours)]);
  }
  s += "</g>\n<g class=\"roof-labels\" font-size=\"11\">\n";
  for (size_t i = 0; i < roofs.size(); ++i) {
    const auto& r = roofs[i];
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end" fill="{}">{} {} TFLOP/s</text>)"
                     "\n",
                     f.x1 - 4, f.y(r.peak_tflops) - 5, kRoofColours[i % std::size(kRoofColours)], esc(r.name),
                     num(r.peak_tflops));
  }
  for (size_t i = 0; i < bws.size(); ++i) {
    const auto& b = bws[i];
    // Label along the diagonal, one decade right of the left edge (45° only when both axes have equal decades).
    double ai = ai_min * std::pow(10.0, 0.35 + 0.25 * i);
    double tf = b.gbps * ai / 1e3;
    if (tf < std::pow(10.0, f.ly0)) {
      tf = std::pow(10.0, f.ly0 + 0.3);
      ai = tf * 1e3 / b.gbps;
    }
    double angle = -std::atan2(f.y(tf) - f.y(tf * 10), f.x(ai * 10) - f.x(ai)) * 180 / M_PI;
    s += fmt::format(R"svg(<text x="{0:.1f}" y="{1:.1f}" fill="#444" transform="rotate({2:.1f} {0:.1f} {1:.1f})">{3} {4} GB/s</text>)svg"
                     "\n",
                     f.x(ai), f.y(tf) - 6, angle, esc(b.level), num(b.gbps));
  }
  s += "</g>\n<g class=\"ridges\" font-size=\"10\" fill=\"#555\">\n";
  // A ridge's label (3 significant digits) only where it overlaps no other: two ridges a few pixels apart once
  // printed "89.31189.8" as one number.
  std::vector<std::pair<double, double>> label_boxes;  // x0, x1 of labels on the same roof line's y band
  std::vector<double> label_ys;
  for (const auto& r : roofs)
    for (const auto& b : bws) {
      double ridge = r.peak_tflops * 1e3 / b.gbps;
      if (ridge < ai_min || ridge > ai_max) continue;
      double x = f.x(ridge), y = f.y(r.peak_tflops);
      s += fmt::format(
          R"(<path class="ridge" data-ai="{2}" d="M{0:.1f},{3:.1f} l4,4 l-4,4 l-4,-4 z" fill="#fff" stroke="#555" stroke-width="1.2"/>)"
          "\n",
          x, y, num(ridge), y - 4);
      const std::string text = fmt::format("{:.3g}", ridge);
      const double x0 = x + 7, x1 = x0 + 6.0 * static_cast<double>(text.size()) + 4;
      bool clear = true;
      for (std::size_t k = 0; k < label_boxes.size(); ++k)
        clear = clear && (std::abs(label_ys[k] - (y + 15)) > 11 || x1 < label_boxes[k].first || x0 > label_boxes[k].second);
      if (!clear) continue;
      label_boxes.emplace_back(x0, x1);
      label_ys.push_back(y + 15);
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="start">{}</text>)"
                       "\n",
                       x0, y + 15, text);
    }
  s += "</g>\n";
}

// Series in order of first appearance, each with its colour.
struct Series {
  std::vector<std::string> order;
  explicit Series(const std::vector<RooflinePoint>& pts) {
    for (const auto& p : pts)
      if (std::find(order.begin(), order.end(), p.series) == order.end()) order.push_back(p.series);
  }
  const char* colour(const std::string& series) const {
    auto idx = std::find(order.begin(), order.end(), series) - order.begin();
    return kSeriesColours[idx % std::size(kSeriesColours)];
  }
};

// Points of one series joined in order, one line per memory level.
void draw_series_lines(std::string& s, const Layout& l, const Series& series) {
  s += "<g class=\"series\" fill=\"none\" stroke-width=\"1.5\">\n";
  for (const auto& name : series.order) {
    std::map<std::string, std::vector<const RooflinePoint*>> by_level;
    for (const auto& p : l.points)
      if (p.series == name) by_level[p.level].push_back(&p);
    for (const auto& [level, list] : by_level) {
      if (list.size() < 2) continue;
      auto xy = [&](const RooflinePoint* p) {
        return fmt::format("{:.1f},{:.1f}", l.f.x(p->arithmetic_intensity), l.f.y(p->tflops));
      };
      s += fmt::format(R"(<polyline points="{}" stroke="{}" stroke-opacity="0.7"/>)"
                       "\n",
                       fmt::join(mapped(list, xy), " "), series.colour(name));
    }
  }
  s += "</g>\n";
}

// The number a kernel's points carry (its place in the legend), and what a point's label says: the number, with
// a version tag when the label has one ("3 v2").
std::string point_number(const Series& series, const std::string& name) {
  return std::to_string(std::find(series.order.begin(), series.order.end(), name) - series.order.begin() + 1);
}
std::string point_text(const Series& series, const RooflinePoint& p) {
  std::string tag = p.label.rfind(p.series, 0) == 0 ? p.label.substr(p.series.size()) : std::string();
  return point_number(series, p.series) + tag;
}

// A kernel placed at several memory levels (its AI against HBM bytes and against L2 bytes): its points joined by a
// thin dotted line, so that they read as one kernel.
void draw_level_links(std::string& s, const Layout& l, const Series& series) {
  s += "<g class=\"level-links\" fill=\"none\" stroke-width=\"1\" stroke-dasharray=\"2 3\">\n";
  std::map<std::pair<std::string, std::string>, std::vector<const RooflinePoint*>> by_label;
  for (const auto& p : l.points) by_label[{p.series, p.label}].push_back(&p);
  for (const auto& [key, list] : by_label) {
    if (list.size() < 2) continue;
    std::vector<const RooflinePoint*> sorted = list;
    std::sort(sorted.begin(), sorted.end(),
              [](auto* a, auto* b) { return a->arithmetic_intensity < b->arithmetic_intensity; });
    auto xy = [&](const RooflinePoint* p) {
      return fmt::format("{:.1f},{:.1f}", l.f.x(p->arithmetic_intensity), l.f.y(p->tflops));
    };
    s += fmt::format(R"(<polyline points="{}" stroke="{}" stroke-opacity="0.6"/>)"
                     "\n",
                     fmt::join(mapped(sorted, xy), " "), series.colour(key.first));
  }
  s += "</g>\n";
}

// Markers (series colour, level shape) labelled with their kernel's number (the legend names it; the marker's
// <title> holds the full name): names written beside 22 markers overprinted each other. Returns the levels drawn.
std::set<std::string> draw_points(std::string& s, const Layout& l, const Series& series) {
  const Frame& f = l.f;
  s += "<g class=\"points\">\n";
  // Labels go to the first of four corners around the marker that overlaps no earlier label or marker.
  struct Box {
    double x0, y0, x1, y1;
    bool hits(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  };
  std::vector<Box> taken;
  for (const auto& p : l.points) taken.push_back({f.x(p.arithmetic_intensity) - 6, f.y(p.tflops) - 6,
                                                  f.x(p.arithmetic_intensity) + 6, f.y(p.tflops) + 6});
  std::set<std::string> levels;
  for (const auto& p : l.points) {
    levels.insert(p.level);
    double cx = f.x(p.arithmetic_intensity), cy = f.y(p.tflops);
    s += fmt::format(R"(<g class="point" data-label="{}" data-series="{}" data-level="{}" data-ai="{}" data-tflops="{}" data-x="{:.1f}" data-y="{:.1f}">)",
                     esc(p.label), esc(p.series), esc(p.level), num(p.arithmetic_intensity), num(p.tflops), cx, cy);
    s += fmt::format("<title>{}: {} FLOP/byte ({}), {} TFLOP/s</title>", esc(p.label), num(p.arithmetic_intensity),
                     esc(p.level), num(p.tflops));
    s += marker(p.level, cx, cy, series.colour(p.series));
    const std::string text = point_text(series, p);
    const double tw = 6.3 * static_cast<double>(text.size()), th = 12;
    struct Spot { double x, y; bool start; };
    const Spot spots[] = {{cx + 7, cy - 5, true}, {cx + 7, cy + 13, true}, {cx - 7, cy - 5, false}, {cx - 7, cy + 13, false}};
    Spot pick = spots[0];
    for (const auto& sp : spots) {
      Box b{sp.start ? sp.x : sp.x - tw, sp.y - th + 2, sp.start ? sp.x + tw : sp.x, sp.y + 2};
      bool inside = b.x0 >= f.x0 && b.x1 <= f.x1 && b.y0 >= f.y0 && b.y1 <= f.y1;
      bool clear = std::none_of(taken.begin(), taken.end(), [&](const Box& o) { return o.hits(b); });
      if (inside && clear) {
        pick = sp;
        break;
      }
    }
    taken.push_back({pick.start ? pick.x : pick.x - tw, pick.y - th + 2, pick.start ? pick.x + tw : pick.x, pick.y + 2});
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11" font-weight="bold" fill="{}" text-anchor="{}">{}</text>)",
                     pick.x, pick.y, series.colour(p.series), pick.start ? "start" : "end", esc(text));
    s += "</g>\n";
  }
  s += "</g>\n";
  return levels;
}

// Legend: kernels (series), memory levels, ceilings with their sources, and the points that could not be drawn.
void draw_legend(std::string& s, const Layout& l, const Series& series, const std::set<std::string>& levels) {
  const auto& roofs = l.roofs;
  const auto& bws = l.bandwidths;
  double lx = l.width - Layout::kLegendWidth + 5, ly = l.f.y0 + 4;
  s += "<g class=\"legend\" font-size=\"12\" fill=\"#222\">\n";
  auto heading = [&](const char* t) {
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-weight="bold">{}</text>)"
                     "\n",
                     lx, ly, t);
    ly += 18;
  };
  if (!series.order.empty()) {
    heading("Kernels (numbers on the points)");
    for (const auto& name : series.order) {
      s += fmt::format(R"(<g class="legend-kernel"><title>{}</title>)", esc(name));
      s += marker("HBM", lx + 9, ly - 4, series.colour(name));
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}"><tspan font-weight="bold" fill="{}">{}</tspan> {}</text></g>)"
                       "\n",
                       lx + 20, ly, series.colour(name), point_number(series, name),
                       esc(short_name(name, 38)));  // ~38 characters at 12 px fit beside the number
      ly += 17;
    }
    ly += 6;
    heading("Memory level of the AI");
    for (const auto& level : levels) {
      s += marker(level, lx + 9, ly - 4, "#666");
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}">{} bytes</text>)"
                       "\n",
                       lx + 24, ly, esc(level));
      ly += 17;
    }
    if (levels.size() > 1) {
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" fill="#555">one kernel's points: dotted line</text>)"
                       "\n",
                       lx + 24, ly);
      ly += 17;
    }
    ly += 6;
  }
  if (!roofs.empty() || !bws.empty()) {
    heading("Ceilings");
    for (size_t i = 0; i < roofs.size(); ++i) {
      s += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="2"/>)", lx, ly - 4,
                       lx + 18, ly - 4, kRoofColours[i % std::size(kRoofColours)]);
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}">{} ({})</text>)"
                       "\n",
                       lx + 24, ly, esc(roofs[i].name), esc(roofs[i].source.empty() ? "peak" : roofs[i].source));
      ly += 17;
    }
    for (size_t i = 0; i < bws.size(); ++i) {
      s += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#555" stroke-width="2"{}/>)", lx,
                       ly - 4, lx + 18, ly - 4, i == 0 ? "" : R"( stroke-dasharray="7 4")");
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}">{} ({})</text>)"
                       "\n",
                       lx + 24, ly, esc(bws[i].level), esc(bws[i].source.empty() ? "peak" : bws[i].source));
      ly += 17;
    }
    s += fmt::format(R"(<path d="M{:.1f},{:.1f} l4,4 l-4,4 l-4,-4 z" fill="#fff" stroke="#555" stroke-width="1.2"/>)", lx + 9,
                     ly - 8);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}">ridge point (FLOP/byte)</text>)"
                     "\n",
                     lx + 24, ly);
    ly += 17;
  }
  if (!l.skipped.empty()) {
    ly += 6;
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" fill="#a00">Not drawn (no FLOPs or bytes):</text>)"
                     "\n",
                     lx, ly);
    for (const auto& label : l.skipped) {
      ly += 16;
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" fill="#a00">{}</text>)"
                       "\n",
                       lx + 10, ly, esc(label));
    }
  }
  s += "</g>\n";
}

}  // namespace

std::string render_roofline_svg(const RooflineChart& c) {
  const Layout l = lay_out(c);
  const Series series(l.points);
  std::string s;
  draw_header(s, c, l);
  draw_axes(s, l);
  draw_ceilings(s, l);
  draw_series_lines(s, l, series);
  draw_level_links(s, l, series);
  auto levels = draw_points(s, l, series);
  draw_legend(s, l, series, levels);
  s += "</svg>\n";
  return s;
}

void add_spec_roofs(RooflineChart& chart, const DeviceSpec& spec, const std::vector<std::string>& precisions) {
  for (const auto& p : precisions) {
    auto peak = spec.peak(p + "_tflops");
    if (!peak) continue;
    std::string name;
    for (char c : p) name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    chart.roofs.push_back({name, peak->value, spec.peak_kind(p + "_tflops")});
  }
  for (auto [key, level] : {std::pair{"dram_gbps", "HBM"}, std::pair{"l2_gbps", "L2"}}) {
    auto peak = spec.peak(key);
    if (peak) chart.bandwidths.push_back({level, peak->value, spec.peak_kind(key)});
  }
}

}  // namespace kprof::render
