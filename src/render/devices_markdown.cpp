#include "render/devices_markdown.hpp"

#include <fmt/format.h>
#include <set>

#include "render/markdown_table.hpp"
#include "render/number_format.hpp"

namespace kprof::render {

namespace {
const std::vector<std::string> kTableKeys = {"dram_gbps", "fp32_tflops", "tf32_tflops", "bf16_tflops", "fp8_tflops"};

std::string peak_cell(const DeviceSpec& d, const std::string& key) {
  auto p = d.peak(key);
  return p ? fmt_number(p->value) : std::string(kDash);
}

std::string source_kind(const DeviceSpec& d) {
  bool any_measured = false, any_datasheet = false;
  for (const auto& k : kTableKeys) {
    auto kind = d.peak_kind(k);
    any_measured |= kind == "measured";
    any_datasheet |= kind == "datasheet";
  }
  if (any_measured && any_datasheet) return "datasheet + measured";
  if (any_measured) return "measured";
  if (any_datasheet) return "datasheet";
  return kDash;
}

std::string unit_of(const std::string& key) {
  if (key.size() > 5 && key.ends_with("_gbps")) return "GB/s";
  if (key.size() > 7 && key.ends_with("_tflops")) return "TFLOP/s";
  return "";
}

std::string or_dash(const std::string& s) { return s.empty() ? std::string(kDash) : s; }
}  // namespace

std::string render_devices(const std::vector<DeviceSpec>& specs) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& d : specs)
    rows.push_back({d.name, or_dash(d.compute_capability), d.sm_count > 0 ? std::to_string(d.sm_count) : kDash,
                    peak_cell(d, "dram_gbps"), peak_cell(d, "fp32_tflops"), peak_cell(d, "tf32_tflops"),
                    peak_cell(d, "bf16_tflops"), peak_cell(d, "fp8_tflops"), fmt_number(d.ridge("bf16")),
                    source_kind(d)});
  std::string out = "## Devices\n\n";
  if (specs.empty()) return out + "No device specs found.\n";
  out += markdown_table({"Device", "CC", "SMs", "DRAM GB/s", "FP32 TFLOP/s", "TF32 TFLOP/s", "BF16 TFLOP/s",
                         "FP8 TFLOP/s", "Ridge bf16 (FLOP/B)", "Source"},
                        rows);
  return out + "\nMeasured peaks replace datasheet ones key by key; the device detail lists every figure with its source.\n";
}

std::string render_device_detail(const DeviceSpec& d) {
  std::string out = fmt::format("## {} ({})\n\n", or_dash(d.name), or_dash(d.id));
  std::string aliases;
  for (const auto& a : d.aliases) aliases += (aliases.empty() ? "" : ", ") + a;
  auto positive = [](double v, const char* unit) {
    return v > 0 ? fmt_number(v) + " " + unit : std::string(kDash);
  };
  out += markdown_table({"Property", "Value"},
                        {{"Id", or_dash(d.id)},
                         {"Aliases", or_dash(aliases)},
                         {"Compute capability", or_dash(d.compute_capability)},
                         {"SMs", d.sm_count > 0 ? std::to_string(d.sm_count) : kDash},
                         {"Boost clock", positive(d.boost_clock_mhz, "MHz")},
                         {"Memory clock", positive(d.memory_clock_mhz, "MHz")},
                         {"L2", positive(d.l2_mb, "MB")},
                         {"Memory", positive(d.memory_gb, "GB")}});

  out += "\n### Peaks\n";
  std::set<std::string> keys;
  for (const auto& [k, _] : d.datasheet) keys.insert(k);
  for (const auto& [k, _] : d.measured) keys.insert(k);
  std::vector<std::vector<std::string>> rows;
  for (const auto& k : keys) {
    std::string used = d.peak_kind(k);
    for (const auto* table : {&d.datasheet, &d.measured}) {
      auto it = table->find(k);
      if (it == table->end()) continue;
      std::string kind = table == &d.measured ? "measured" : "datasheet";
      rows.push_back({k, fmt_number(it->second.value), unit_of(k), kind, or_dash(it->second.source),
                      kind == used ? "✓" : ""});
    }
  }
  out += rows.empty() ? std::string("No peaks known.\n")
                      : markdown_table({"Peak", "Value", "Unit", "Kind", "Source", "In use"}, rows);

  std::vector<std::vector<std::string>> ridges;
  for (const auto& k : keys)
    if (k.ends_with("_tflops")) {
      std::string prec = k.substr(0, k.size() - 7);
      ridges.push_back({prec, fmt_number(d.ridge(prec))});
    }
  if (!ridges.empty()) {
    out += "\n### Ridge points (DRAM)\n";
    out += markdown_table({"Precision", "FLOP/B"}, ridges);
  }
  if (!d.notes.empty()) out += "\nNotes: " + d.notes + "\n";
  return out;
}

}  // namespace kprof::render
