#include "collect/counters/counters_import.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "model/json_support.hpp"  // integer reads range-checked (not nlohmann/json.hpp directly)

#include "collect/counters/counters_format.hpp"
#include "collect/kernel_name.hpp"
#include "collect/ncu/units.hpp"
#include "collect/ncu/value_checks.hpp"
#include "collect/trace/demangle.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::counters {

using nlohmann::json;
namespace key = counters_format::key;

namespace {

MetricValue number(double v, const std::string& unit) {
  MetricValue m;
  m.value = v;
  m.unit = unit;
  return m;
}

// CUPTI's host API names dimensions ("nanosecond", "percent", "gpc_cycle"); ncu prints the same quantities as
// "nsecond", "%", "cycle". Stored in the units the ncu importer stores, so that both sources read alike.
std::string ncu_unit(const std::string& dim) {
  static const std::map<std::string, std::string> names{
      {"nanosecond", "nsecond"}, {"percent", "%"},         {"gpc_cycle", "cycle"}, {"sm_cycle", "cycle"},
      {"dram_cycle", "cycle"},   {"l2_sector", "sector"},  {"sector", "sector"},   {"instruction", "inst"},
      {"math_op", ""},           {"warp", "warp"},         {"thread", "thread"},   {"byte", "byte"}};
  auto it = names.find(dim);
  return it == names.end() ? dim : it->second;
}

// An integer field read without undefined behaviour: a float or an out-of-range number (a fuzzed file had a block
// size of 2.6e36) is a ParseError naming the field instead of a narrowing conversion.
std::int64_t int_field(const nlohmann::json& j, const char* name, std::int64_t fallback, std::int64_t lo,
                       std::int64_t hi, const std::string& where) {
  if (!j.contains(name) || j.at(name).is_null()) return fallback;
  const auto& v = j.at(name);
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi) &&
                                     static_cast<std::int64_t>(v.get<std::uint64_t>()) >= lo
                               : v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi)
      return v.is_number_unsigned() ? static_cast<std::int64_t>(v.get<std::uint64_t>()) : v.get<std::int64_t>();
  }
  throw ParseError(where, 0, fmt::format("\"{}\" must be an integer in [{}, {}], not {}", name, lo, hi, v.dump()));
}

// grid / block: three integers in [0, 2^31).
std::vector<std::int64_t> dims_field(const nlohmann::json& k, const char* name, const std::string& where) {
  if (!k.contains(name)) return {0, 0, 0};
  const auto& v = k.at(name);
  if (!v.is_array() || v.size() != 3) throw ParseError(where, 0, "grid and block need three values");
  std::vector<std::int64_t> out;
  for (const auto& d : v) {
    if (!d.is_number_integer() || (d.is_number_unsigned() ? d.get<std::uint64_t>() > 0x7fffffffULL
                                                          : (d.get<std::int64_t>() < 0 || d.get<std::int64_t>() > 0x7fffffff)))
      throw ParseError(where, 0, fmt::format("\"{}\" values must be integers in [0, 2^31), not {}", name, d.dump()));
    out.push_back(d.is_number_unsigned() ? static_cast<std::int64_t>(d.get<std::uint64_t>()) : d.get<std::int64_t>());
  }
  return out;
}

constexpr std::int64_t kMaxCount = std::int64_t{1} << 53;

}  // namespace

CounterSession parse_counters(const std::string& text, const std::string& where) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw ParseError(where, 0, std::string("not JSON (") + e.what() + ")");
  }
  // Checked by hand: json::value() throws type_error for a schema that is not a string (fuzz_counters_json found
  // `"schema": 741.5`, an uncaught exception and "internal error").
  const auto schema = doc.is_object() ? doc.find(key::schema) : doc.end();
  if (!doc.is_object() || schema == doc.end() || !schema->is_string() ||
      schema->get_ref<const std::string&>() != counters_format::kSchema)
    throw ParseError(where, 0, std::string("not a kprof counters file (schema ") + counters_format::kSchema + " expected)");
  CounterSession s;
  try {
    s.chip = doc.value(key::chip, "");
    if (doc.contains(key::device) && doc.at(key::device).is_object()) {
      const auto& d = doc.at(key::device);
      s.device.name = d.value(key::device_name, "");
      s.device.compute_capability = d.value(key::device_cc, "");
      s.device.sm_count = static_cast<int>(int_field(d, key::device_sms, 0, 0, 1 << 20, where));
    }
    s.passes = static_cast<std::size_t>(int_field(doc, key::passes, 0, 0, kMaxCount, where));
    s.setup_ms = doc.value(key::setup_ms, 0.0);
    s.metrics = doc.value(key::metrics, std::vector<std::string>{});
    s.unsupported = doc.value(key::unsupported, std::vector<std::string>{});
    s.launches_seen = static_cast<std::uint64_t>(int_field(doc, key::launches_seen, 0, 0, kMaxCount, where));
    s.launches_profiled = static_cast<std::uint64_t>(int_field(doc, key::launches_profiled, 0, 0, kMaxCount, where));
    s.launches_captured = static_cast<std::uint64_t>(int_field(doc, key::launches_captured, 0, 0, kMaxCount, where));
    s.interrupted = doc.value(key::interrupted, false);
    if (s.launches_captured > 0)
      s.warnings.push_back(fmt::format(
          "counters: {} launches were captured into CUDA graphs; kernels that run only from graph launches have no "
          "counters with --counters cupti (Nsight Compute profiles graph nodes: --counters ncu)",
          s.launches_captured));
    auto units = doc.value(key::units, std::map<std::string, std::string>{});
    for (const auto& e : doc.value(key::errors, std::vector<std::string>{})) s.warnings.push_back("counters: " + e);
    std::vector<std::string> not_collected;
    for (const auto& m : s.unsupported)
      if (m.rfind("launch__", 0) != 0 && m != "sm__maximum_warps_per_active_cycle_pct") not_collected.push_back(m);
    if (!not_collected.empty())
      s.warnings.push_back(
          fmt::format("counters: not available on {} through CUPTI: {}", s.chip, fmt::join(not_collected, ", ")));
    int id = 0;
    ncu::ValueWarnings bad_values;
    s.cost.setup_ms = s.setup_ms;
    std::vector<double> replays;
    // A non-negative number of milliseconds under `name`, else none.
    auto ms_of = [](const json& o, const char* name) -> std::optional<double> {
      auto it = o.find(name);
      if (it == o.end() || !it->is_number() || it->get<double>() < 0) return std::nullopt;
      return it->get<double>();
    };
    for (const auto& k : doc.at(key::kernels)) {
      if (k.is_object()) {  // the collector's own timings of this launch (CounterCost)
        if (auto r = ms_of(k, key::replay_wall_ms)) replays.push_back(*r);
        if (auto ph = k.find(key::phases_ms); ph != k.end() && ph->is_object()) {
          s.cost.has_phases = s.cost.has_phases || ph->contains("start");
          s.cost.start_ms += ms_of(*ph, "start").value_or(0);
          s.cost.write_ms += ms_of(*ph, "write").value_or(0);
        }
      }
      KernelLaunch l;
      l.id = id++;
      l.mangled = k.at(key::mangled).get<std::string>();
      l.name = demangle(l.mangled);
      l.function = function_base_name(l.name);
      l.context = int_field(k, key::context, -1, -1, kMaxCount, where);
      l.stream = int_field(k, key::stream, -1, -1, kMaxCount, where);
      l.device = static_cast<int>(int_field(k, key::kernel_device, 0, 0, 1 << 16, where));
      l.nvtx_stack = k.value(key::nvtx, std::vector<std::string>{});
      if (!l.nvtx_stack.empty()) l.nvtx_range = l.nvtx_stack.back();
      auto grid = dims_field(k, key::grid, where);
      auto block = dims_field(k, key::block, where);
      for (int i = 0; i < 3; ++i) l.launch.grid[i] = int(grid[i]), l.launch.block[i] = int(block[i]);
      double threads = double(block[0]) * block[1] * block[2];
      double blocks = double(grid[0]) * grid[1] * grid[2];
      l.metrics["launch__grid_size"] = number(blocks, "");
      l.metrics["launch__block_size"] = number(threads, "");
      auto dyn = int_field(k, key::shared_mem_dynamic, 0, 0, kMaxCount, where);
      l.launch.shared_mem_dynamic_bytes = dyn;
      l.metrics["launch__shared_mem_per_block_dynamic"] = number(double(dyn), "byte");
      if (k.contains(key::registers)) {
        const auto& regs = k.at(key::registers);
        if (!regs.is_number_integer() || regs.get<std::int64_t>() < 0 || regs.get<std::int64_t>() > 65536)
          throw ParseError(where, 0, fmt::format("kernel {}: \"{}\" is not a register count: {}", l.mangled,
                                                 key::registers, regs.dump()));
        l.launch.registers_per_thread = regs.get<int>();
        l.launch.shared_mem_static_bytes = int_field(k, key::shared_mem_static, 0, 0, kMaxCount, where);
        l.metrics["launch__registers_per_thread"] = number(l.launch.registers_per_thread, "register/thread");
        l.metrics["launch__shared_mem_per_block_static"] = number(double(l.launch.shared_mem_static_bytes), "byte");
        MetricValue occ = number(k.value(key::theoretical_occupancy_pct, 0.0), "%");
        if (auto problem = ncu::check_value("sm__maximum_warps_per_active_cycle_pct", occ);
            problem != ncu::ValueProblem::none)
          bad_values.note(problem, where, 0, l.function + ": " + key::theoretical_occupancy_pct, fmt::format("{}", occ.value));
        else
          l.metrics["sm__maximum_warps_per_active_cycle_pct"] = occ;
        l.metrics["launch__waves_per_multiprocessor"] = number(k.value(key::waves_per_sm, 0.0), "");
      }
      int collected = 0;
      if (k.contains(key::values) && k.at(key::values).is_object())
        for (const auto& [name, v] : k.at(key::values).items()) {
          if (!v.is_number()) continue;  // a NaN written as null by an older collector: not a value
          auto it = units.find(name);
          auto scale = ncu::unit_scale(ncu_unit(it == units.end() ? "" : it->second));
          MetricValue mv = number(v.get<double>() * scale.factor, scale.base_unit);
          if (auto problem = ncu::check_value(name, mv); problem != ncu::ValueProblem::none) {
            bad_values.note(problem, where, 0, l.function + ": " + name, v.dump());
            continue;
          }
          l.metrics[name] = std::move(mv);
          ++collected;
        }
      if (auto d = l.metrics.find("gpu__time_duration.sum"); d != l.metrics.end()) l.duration_ns = d->second.value;
      if (k.contains(key::error))
        s.warnings.push_back(fmt::format("counters: {} (launch {} of it): {}", l.function,
                                         int_field(k, key::invocation, 0, 0, kMaxCount, where), k.at(key::error).get<std::string>()));
      if (k.contains(key::non_finite))
        s.warnings.push_back(fmt::format("counters: {}: CUPTI evaluated {} to NaN or infinity (left out)", l.function,
                                         k.at(key::non_finite).dump()));
      // A launch without counters is no counter source: the join would otherwise label it as profiled.
      if (collected > 0) s.launches.push_back(std::move(l));
    }
    s.cost.replayed = replays.size();
    for (double r : replays) s.cost.replay_ms += r;
    if (!replays.empty()) {
      std::sort(replays.begin(), replays.end());
      s.cost.replay_median_ms = replays[replays.size() / 2];
    }
    for (auto& w : bad_values.messages()) s.warnings.push_back("counters: " + w);
  } catch (const json::exception& e) {
    throw ParseError(where, 0, e.what());
  }
  return s;
}

std::string describe_cost(const CounterSession& s, double process_seconds) {
  const CounterCost& c = s.cost;
  std::string out = fmt::format("counter run {:.2f} s: set-up {:.2f} s", process_seconds, c.setup_ms / 1000);
  if (c.replayed > 0)
    out += fmt::format("; {} launch{} replayed ({} pass{} each) {:.2f} s, {:.0f} ms the median", c.replayed,
                       c.replayed == 1 ? "" : "es", s.passes, s.passes == 1 ? "" : "es", c.replay_ms / 1000,
                       c.replay_median_ms);
  if (c.has_phases)
    out += fmt::format("; range starts {:.2f} s; file writes {:.2f} s", c.start_ms / 1000, c.write_ms / 1000);
  const double rest = process_seconds - (c.setup_ms + c.replay_ms + c.start_ms + c.write_ms) / 1000;
  if (process_seconds > 0 && rest >= 0) out += fmt::format("; the program and its process {:.2f} s", rest);
  return out;
}

CounterSession import_counters(const std::filesystem::path& file) {
  return parse_counters(read_file(file), file.string());
}

}  // namespace kprof::counters
