#include "render/device_page.hpp"
#include "util/mapped.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

namespace kprof::render {

namespace {

struct KeyInfo {
  const char* key;
  const char* label;
  const char* unit;
};
const KeyInfo kKeys[] = {
    {"dram_gbps", "HBM / DRAM bandwidth", "GB/s"}, {"l2_gbps", "L2 bandwidth", "GB/s"},
    {"smem_gbps", "Shared-memory bandwidth", "GB/s"}, {"fp64_tflops", "FP64", "TFLOP/s"},
    {"fp32_tflops", "FP32", "TFLOP/s"},             {"tf32_tflops", "TF32 tensor", "TFLOP/s"},
    {"bf16_tflops", "BF16 tensor", "TFLOP/s"},       {"fp16_tflops", "FP16 tensor", "TFLOP/s"},
    {"fp8_tflops", "FP8 tensor", "TFLOP/s"},         {"fp64_tensor_tflops", "FP64 tensor (DMMA)", "TFLOP/s"},
    {"h2d_pinned_gbps", "Host to device, pinned", "GB/s"}, {"d2h_pinned_gbps", "Device to host, pinned", "GB/s"},
    {"both_pinned_gbps", "Both directions at once, pinned (bytes both ways)", "GB/s"},
};
const char* kPrecisions[] = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp64_tensor"};

// Markdown table cells: pipes and newlines would break the row.
std::string cell(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n' || c == '\r') o += ' ';
    else o += c;
  }
  return o;
}

std::string fmt_value(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

std::string render_device_page(const DeviceSpec& spec) {
  std::string md;
  md += "# " + cell(spec.name.empty() ? spec.id : spec.name) + "\n\n";
  std::vector<std::string> facts;
  if (!spec.id.empty()) facts.push_back("id `" + spec.id + "`");
  if (!spec.compute_capability.empty()) facts.push_back("compute capability " + spec.compute_capability);
  if (spec.sm_count > 0) facts.push_back(std::to_string(spec.sm_count) + " SMs");
  if (spec.boost_clock_mhz > 0) facts.push_back("boost clock " + fmt_value(spec.boost_clock_mhz) + " MHz");
  if (!spec.aliases.empty()) {
    auto quoted = [](const std::string& x) { return "\"" + cell(x) + "\""; };
    facts.push_back(fmt::format("profilers call it {}", fmt::join(mapped(spec.aliases, quoted), ", ")));
  }
  if (!facts.empty()) md += fmt::format("{}.\n\n", fmt::join(facts, "; "));

  md += "## Peaks\n\n";
  md += "kprof uses the measured figure when there is one, else the datasheet's.\n\n";
  md += "| Peak | Unit | Datasheet | Measured | Measured / datasheet | Used | Source of the figure used |\n";
  md += "| --- | --- | ---: | ---: | ---: | --- | --- |\n";
  for (const auto& k : kKeys) {
    auto ds = spec.datasheet.find(k.key);
    auto ms = spec.measured.find(k.key);
    if (ds == spec.datasheet.end() && ms == spec.measured.end()) continue;
    std::string dsv = ds != spec.datasheet.end() ? fmt_value(ds->second.value) : "–";
    std::string msv = ms != spec.measured.end() ? fmt_value(ms->second.value) : "–";
    std::string ratio = (ds != spec.datasheet.end() && ms != spec.measured.end() && ds->second.value > 0)
                            ? fmt::format("{:.0f}%", 100.0 * ms->second.value / ds->second.value)
                            : "–";
    auto used = spec.peak(k.key);
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", k.label, k.unit, dsv, msv, ratio,
                      spec.peak_kind(k.key), cell(used ? used->source : ""));
  }

  md += "\n## Ridge points\n\n";
  md += "Arithmetic intensity (FLOP/byte) above which a kernel is bound by compute rather than by that memory "
        "level: peak FLOP/s ÷ peak bytes/s.\n\n";
  const bool have_l2 = spec.peak("l2_gbps").has_value();
  md += have_l2 ? "| Precision | Peak TFLOP/s | HBM ridge | L2 ridge |\n| --- | ---: | ---: | ---: |\n"
                : "| Precision | Peak TFLOP/s | HBM ridge |\n| --- | ---: | ---: |\n";
  auto hbm = spec.peak("dram_gbps"), l2 = spec.peak("l2_gbps");
  bool any_ridge = false;
  for (const char* p : kPrecisions) {
    auto flops = spec.peak(std::string(p) + "_tflops");
    if (!flops) continue;
    auto ridge = [&](const std::optional<Peak>& bw) {
      return (bw && bw->value > 0) ? fmt::format("{:.1f}", flops->value * 1e3 / bw->value) : std::string("–");
    };
    std::string name = p;
    for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    md += fmt::format("| {} | {} | {}", name, fmt_value(flops->value), ridge(hbm));
    md += have_l2 ? fmt::format(" | {} |\n", ridge(l2)) : " |\n";
    any_ridge = true;
  }
  if (!any_ridge) md += "| – | – | – |" + std::string(have_l2 ? " – |" : "") + "\n";
  if (!have_l2) md += "\nNo L2 bandwidth known: run `kprof-peaks` on this device for L2 ridges.\n";

  md += "\n## Memory hierarchy\n\n";
  md += "| Level | Size | Bandwidth (GB/s) | Source |\n| --- | ---: | ---: | --- |\n";
  auto bw_row = [&](const char* level, const std::string& size, const char* key) {
    auto pk = spec.peak(key);
    md += fmt::format("| {} | {} | {} | {} |\n", level, size, pk ? fmt_value(pk->value) : "–",
                      pk ? spec.peak_kind(key) : "unknown");
  };
  bw_row("Shared memory / L1 (per SM)", "–", "smem_gbps");
  bw_row("L2", spec.l2_mb > 0 ? fmt_value(spec.l2_mb) + " MB" : "–", "l2_gbps");
  bw_row("HBM / DRAM", spec.memory_gb > 0 ? fmt_value(spec.memory_gb) + " GB" : "–", "dram_gbps");
  if (spec.memory_clock_mhz > 0) md += "\nMemory clock " + fmt_value(spec.memory_clock_mhz) + " MHz.\n";

  md += "\n## Measured by kprof\n\n";
  if (spec.measured.empty()) {
    md += "Nothing yet: these are datasheet figures. Measure with `kprof-peaks --out peaks.json` on the device and "
          "import the result.\n";
  } else {
    for (const auto& k : kKeys) {
      auto it = spec.measured.find(k.key);
      if (it == spec.measured.end()) continue;
      md += fmt::format("- {}: {} {}, {}\n", k.label, fmt_value(it->second.value), k.unit, cell(it->second.source));
    }
    for (const auto& [key, peak] : spec.measured) {
      bool listed = false;
      for (const auto& k : kKeys) listed = listed || key == k.key;
      if (!listed) md += fmt::format("- `{}`: {}, {}\n", key, fmt_value(peak.value), cell(peak.source));
    }
  }
  if (!spec.notes.empty()) md += "\n## Notes\n\n" + spec.notes + "\n";
  return md;
}

}  // namespace kprof::render
