#include "analyze/diagnosis_rule.hpp"

#include "analyze/rule_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <unordered_map>
#include <stdexcept>

namespace kprof::analyze {

std::string pct(double fraction) { return fmt::format("{:.0f}%", fraction * 100.0); }

double RuleContext::param(std::string_view full_key) const {
  // A rule's declared keys are what the registry test checks against data/thresholds.toml: an undeclared read
  // would escape that check.
  if (std::find(rule->thresholds.begin(), rule->thresholds.end(), full_key) == rule->thresholds.end())
    throw std::logic_error(fmt::format("diagnosis rule {} reads {} without declaring it", rule->name, full_key));
  return t.param(std::string(full_key));
}

double RuleContext::p(std::string_view key) const { return param(std::string("diagnosis.") + std::string(key)); }

double RuleContext::busy() const { return param("classify.busy_pct"); }

double RuleContext::sol_max() const { return std::max(val(m.sm_throughput_pct), val(m.memory_throughput_pct)); }

std::optional<double> RuleContext::l1_data_per_clk() const {
  // Global requests spread over many sectors keep the unit busy with each sector's lookup, whatever the bytes they
  // carry: a layernorm with one thread per row on the H100 (31.9 sectors per store request, 4 bytes used of each
  // sector, L1/TEX 70% busy moving 5.4 B per cycle) is bound by its access pattern, not by other MIO instructions.
  // (Over loads and stores together: a rare strided store beside a shuffle-bound kernel's loads does not count.)
  const double requests = val(m.global_load_requests) + val(m.global_store_requests);
  if (requests > 0 && (val(m.global_load_sectors) + val(m.global_store_sectors)) / requests >=
                          p("uncoalesced_sectors_per_request"))
    return std::nullopt;
  const double clock_hz = m.sm_clock_hz ? *m.sm_clock_hz : spec ? spec->boost_clock_mhz * 1e6 : 0;
  const double sms = spec ? spec->sm_count : 0;
  if (!m.l1_bytes || !m.shared_wavefronts || !m.duration_ns || clock_hz <= 0 || sms <= 0 || val(m.flops_tensor) > 0 ||
      val(m.tensor_pipe_pct) >= 5.0)
    return std::nullopt;
  // (Annotation derives shared atomic wavefronts as all shared wavefronts less loads' and stores', which counts
  // shuffles too: only with atomic instructions counted are they atomics.)
  return (*m.l1_bytes + 128.0 * (*m.shared_wavefronts +
                                 (val(m.shared_atomic_instructions) > 0 ? val(m.shared_atomic_wavefronts) : 0.0))) /
         (sms * clock_hz * *m.duration_ns * 1e-9);
}

bool RuleContext::texture_waits() const {
  const double waiting = waiting_total();
  return waiting > 0 && m.waiting_stalls({"tex_throttle"}) / waiting >= p("dominant_stall_share");
}

Finding& RuleContext::add_mio_instructions(CauseId id, double l1, double per_clk) {
  Finding& f = add(id, "L1/shared-memory unit bound (MIO instructions, not data)",
                   fmt::format("L1/TEX unit busy {:.1f}% while it moves {:.1f} B per SM cycle of loads, stores and "
                               "shared-memory wavefronts: the unit is busy with other MIO instructions (warp shuffles, "
                               "...), not with re-read data",
                               l1, per_clk),
                   headroom, fmt::format("l1_throughput={:.1f}%, l1_data={:.1f} B/clk/SM", l1, per_clk));
  f.remedy = RemedyId::mio_pressure;
  return f;
}

double RuleContext::dram_pct() const {
  return m.dram_measured_pct ? *m.dram_measured_pct : val(m.dram_throughput_pct);
}

double RuleContext::memory_max() const {
  return std::max({val(m.memory_throughput_pct), val(m.l1_throughput_pct), val(m.l2_throughput_pct),
                   val(m.dram_throughput_pct)});
}

bool RuleContext::latency_bound() const {
  return (m.sm_throughput_pct || m.memory_throughput_pct) && sol_max() < busy();
}

double RuleContext::waiting_total() const {
  double total = m.waiting_stalls();
  if (m.stalls.size() < kFullStallBreakdown && m.achieved_occupancy_pct && m.issue_active_pct && *m.issue_active_pct > 0) {
    const double warps_per_scheduler = (spec && spec->sm_limits.max_warps > 0 ? spec->sm_limits.max_warps : 64) / 4.0;
    total = std::max(total, warps_per_scheduler * *m.achieved_occupancy_pct / *m.issue_active_pct - 1.0);
  }
  return total;
}

bool RuleContext::library_tensor_kernel() const {
  if (val(m.flops_tensor) <= 0 && val(m.tensor_pipe_pct) < 5.0) return false;
  // The name decides: a user's own wgmma kernel issues warpgroup MMAs too, and is told to feed them.
  return library_kernel_name(g.kernel, g.signature, t);
}

bool names_match(const std::string& text, const Thresholds& t, const std::string& key) {
  auto it = t.texts.find(key);
  if (it == t.texts.end() || it->second.empty()) return false;
  // Each pattern is compiled once per thread, not once per kernel group (a run can hold thousands); a malformed
  // one is remembered as such. The cache is cleared should a process see more distinct patterns than a table holds.
  thread_local std::unordered_map<std::string, std::optional<std::regex>> compiled;
  auto at = compiled.find(it->second);
  if (at == compiled.end()) {
    if (compiled.size() >= 256) compiled.clear();
    std::optional<std::regex> re;
    try {
      re.emplace(it->second, std::regex::ECMAScript | std::regex::icase);
    } catch (const std::regex_error&) {
    }
    at = compiled.emplace(it->second, std::move(re)).first;
  }
  return at->second && std::regex_search(text, *at->second);
}

std::optional<double> sub_warp_block(const CanonicalMetrics& m) {
  constexpr double kWarpLanes = 32.0;
  if (m.block_size && *m.block_size > 0 && *m.block_size < kWarpLanes) return *m.block_size;
  return std::nullopt;
}

bool RuleContext::mma_pipeline_waits() const {
  const bool matrix = val(m.flops_tensor) > 0 || (m.tensor_pipe_imma && val(m.tensor_pipe_pct) > 0);
  if (!matrix || m.tensor_precision == "fp64" || !m.tensor_pipe_pct) return false;
  const double busy = *m.tensor_pipe_pct, waiting = waiting_total();
  if (busy < p("pipe_bound_pct") || busy >= param("classify.saturated_pct") || waiting <= 0) return false;
  if (roof && (roof->bound_by == "memory" || roof->pct_of_roof >= p("at_roof_pct"))) return false;
  return m.waiting_stalls({"barrier"}) / waiting >= p("dominant_stall_share");
}

bool library_kernel_name(const std::string& kernel, const std::string& signature, const Thresholds& t) {
  return names_match(kernel, t, "diagnosis.library_kernel_names") ||
         names_match(signature, t, "diagnosis.library_kernel_names");
}

Finding& RuleContext::add(CauseId id, std::string label, std::string evidence, double gain, std::string trigger) {
  auto spec_of = std::find_if(rule->causes.begin(), rule->causes.end(), [&](const CauseSpec& c) { return c.id == id; });
  if (spec_of == rule->causes.end())
    throw std::logic_error(fmt::format("diagnosis rule {} names {}, not one of its causes", rule->name, name(id)));
  out.push_back({id, std::move(label), std::move(evidence), std::move(trigger), spec_of->remedy,
                 std::clamp(gain, 0.0, 1.0) * 100.0, spec_of->specific});
  return out.back();
}

bool Finding::accounts_for(CauseId bound) const {
  return explains(id, bound) &&
         std::find(does_not_explain.begin(), does_not_explain.end(), bound) == does_not_explain.end();
}

bool RuleContext::found(CauseId id) const {
  return std::any_of(out.begin(), out.end(), [&](const Finding& c) { return c.id == id; });
}

}  // namespace kprof::analyze
