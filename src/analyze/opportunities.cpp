#include "analyze/opportunities.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <map>

namespace kprof::analyze {

namespace {

struct Candidate {
  Opportunity op;
  std::string category;  // remedy: candidates of one category are one opportunity
  double raw_gain = 0;   // fraction of kernel time, before the roofline bound
};

std::string first_sentence(const std::string& text) {
  auto pos = text.find(". ");
  std::string s = pos == std::string::npos ? text : text.substr(0, pos + 1);
  return s.size() > 200 ? s.substr(0, 197) + "..." : s;
}

Candidate make(std::string name, std::string category, double gain, std::string metric, double value,
               std::string trigger, std::string rationale) {
  Candidate c;
  c.op.name = std::move(name);
  c.op.trigger_metric = std::move(metric);
  c.op.trigger_value = value;
  c.op.trigger = std::move(trigger);
  c.op.rationale = std::move(rationale);
  c.op.source = "kprof";
  c.category = std::move(category);
  c.raw_gain = std::clamp(gain, 0.0, 1.0);
  return c;
}

void kprof_candidates(const CanonicalMetrics& m, const Bottleneck& b, const std::optional<RooflinePlacement>& roof,
                      const Thresholds& t, const DeclaredWork& declared, std::vector<Candidate>& out) {
  // Grid fill: with W < 1 waves only a fraction W of the SMs' slots hold work.
  if (m.waves_per_sm && *m.waves_per_sm < t.metric_value("waves_per_sm")) {
    double w = *m.waves_per_sm;
    out.push_back(make("Fill the GPU (more blocks)", "grid_fill", 1.0 - w, "waves_per_sm", w,
                       fmt::format("waves_per_sm={:.2f}", w),
                       "The grid covers under one wave of the GPU; split the work into more blocks."));
  }
  // Occupancy, for latency-bound kernels: the missing warps' share, scaled by the idle throughput.
  if (b.kind == BottleneckKind::latency && m.achieved_occupancy_pct && m.theoretical_occupancy_pct &&
      *m.theoretical_occupancy_pct > 0 && !t.find("achieved_occupancy_pct")->healthy(*m.achieved_occupancy_pct)) {
    double a = *m.achieved_occupancy_pct, th = *m.theoretical_occupancy_pct;
    double busiest = std::max(m.sm_throughput_pct.value_or(0), m.memory_throughput_pct.value_or(0)) / 100.0;
    out.push_back(make("Raise achieved occupancy", "occupancy", (th - a) / th * (1.0 - busiest),
                       "achieved_occupancy_pct", a, fmt::format("achieved_occupancy={:.1f}%", a),
                       fmt::format("Only {:.1f}% of warp slots are active against {:.1f}% possible.", a, th)));
  }
  // Memory-bound below peak bandwidth: the rest of the way to the DRAM roof.
  if (b.kind == BottleneckKind::memory && b.unit == "DRAM") {
    std::optional<double> frac;
    if (roof && roof->memory_level == "dram" && m.achieved_dram_gbps() && roof->peak_gbps > 0)
      frac = *m.achieved_dram_gbps() / roof->peak_gbps;
    else if (m.dram_throughput_pct)
      frac = *m.dram_throughput_pct / 100.0;
    if (frac)
      out.push_back(make("Reach peak DRAM bandwidth", "dram_bandwidth", 1.0 - *frac, "dram_throughput_pct",
                         *frac * 100.0, fmt::format("dram_throughput={:.1f}%", *frac * 100.0),
                         "Memory-bound below peak: wider or more loads in flight (vector loads, more bytes per"
                         " thread) approach the roof."));
    // Bytes above the declared minimum are traffic a memory-bound kernel could avoid.
    if (declared.min_bytes && m.dram_bytes && *m.dram_bytes > *declared.min_bytes && *m.dram_bytes > 0)
      out.push_back(make("Cut DRAM traffic to the declared minimum", "dram_traffic",
                         1.0 - *declared.min_bytes / *m.dram_bytes, "dram_bytes", *m.dram_bytes,
                         fmt::format("dram_bytes={:.3g} B (min {:.3g} B)", *m.dram_bytes, *declared.min_bytes),
                         "The kernel moves more bytes than the work needs; fuse or reuse to cut traffic."));
  }
  // Local memory (spills, local arrays): its share of the traffic through L1, where local accesses go.
  if (m.local_memory_bytes && *m.local_memory_bytes > 0) {
    double lb = *m.local_memory_bytes;
    double total = m.l1_bytes && *m.l1_bytes >= lb ? *m.l1_bytes : lb + m.dram_bytes.value_or(0);
    out.push_back(make("Remove local-memory traffic (spills / local arrays)", "local_memory", lb / total,
                       "local_memory_bytes", lb, fmt::format("local_memory_bytes={:.3g} B", lb),
                       "Per-thread local memory adds slow traffic; keep arrays in registers or shared memory."));
  }
  // FP16/BF16 math on the FMA pipe while the tensor pipe idles.
  if (m.flops_fp16 && *m.flops_fp16 > 0 && m.total_flops() && *m.total_flops() > 0 &&
      m.tensor_pipe_pct.value_or(0) < t.metric_value("tensor_pipe_pct")) {
    double share = *m.flops_fp16 / *m.total_flops();
    if (share >= t.param("opportunities.fp16_share_min"))
      out.push_back(make("Use tensor cores for FP16/BF16 math", "tensor_cores", share, "tensor_pipe_pct",
                         m.tensor_pipe_pct.value_or(0),
                         fmt::format("tensor_pipe={:.1f}%, fp16_flops_share={:.0f}%", m.tensor_pipe_pct.value_or(0),
                                     share * 100.0),
                         "Half-precision FLOPs run on the FMA pipe; MMA instructions run them far faster."));
  }
  // Headroom under the roofline: the most any remedy of a compute-side or on-chip limit can win.
  std::optional<double> headroom;
  if (roof && roof->roof_tflops > 0) headroom = std::max(0.0, 1.0 - roof->achieved_tflops / roof->roof_tflops);
  // Tensor math with the tensor pipe mostly idle: operands do not reach the MMA units fast enough.
  if (headroom && m.flops_tensor && *m.flops_tensor > 0 && m.tensor_pipe_pct &&
      *m.tensor_pipe_pct < t.metric_value("tensor_pipe_pct")) {
    out.push_back(make("Feed the tensor cores (larger MMA tiles staged in shared memory; wgmma on Hopper)",
                       "tensor_util", *headroom, "tensor_pipe_pct", *m.tensor_pipe_pct,
                       fmt::format("tensor_pipe={:.1f}%", *m.tensor_pipe_pct),
                       fmt::format("The tensor pipe is busy {:.1f}% of the time while the kernel reaches {:.1f}% of its"
                                   " roof: each operand byte must feed more MMAs.",
                                   *m.tensor_pipe_pct, 100.0 - *headroom * 100.0)));
  }
  // Bound by on-chip memory (L1/shared/L2 pipes busy, DRAM not): the same bytes are fetched from cache again and
  // again; register and shared-memory tiling cut those requests.
  if (headroom && b.kind == BottleneckKind::memory && b.unit != "DRAM" && m.memory_throughput_pct) {
    out.push_back(make("Cut on-chip memory traffic (register/shared-memory tiling)", "onchip_traffic", *headroom,
                       "memory_throughput_pct", *m.memory_throughput_pct,
                       fmt::format("memory_throughput={:.1f}%, dram_throughput={:.1f}%", *m.memory_throughput_pct,
                                   m.dram_throughput_pct.value_or(0)),
                       "The L1/L2 pipes are saturated while DRAM is not: data is re-read from cache; tiles held in"
                       " registers or shared memory serve the reuse instead."));
  }
  // Locality: raising the L2 hit rate to the threshold removes that share of misses, worth as much
  // time as DRAM is busy.
  if (b.locality_issue && m.l2_hit_pct && *m.l2_hit_pct < 100.0) {
    double target = t.metric_value("l2_hit_pct") / 100.0, hit = *m.l2_hit_pct / 100.0;
    double fewer_misses = 1.0 - (1.0 - target) / (1.0 - hit);
    out.push_back(make("Improve data reuse (tiling / L2 locality)", "locality",
                       fewer_misses * m.dram_throughput_pct.value_or(0) / 100.0, "l2_hit_pct", *m.l2_hit_pct,
                       fmt::format("l2_hit={:.1f}%", *m.l2_hit_pct),
                       "Most L2 lookups miss; if data is reused, tile it so reuse hits in cache."));
  }
}

void ncu_candidates(const std::vector<RuleResult>& rules, const Thresholds& t, std::vector<Candidate>& out) {
  const double local_weight = t.param("opportunities.local_speedup_weight");
  for (const auto& r : rules) {
    if (r.type != "OPT" || !r.speedup_pct || *r.speedup_pct <= 0) continue;
    const bool local = r.speedup_type == "local";
    Candidate c;
    c.op.name = rule_short_name(r.name);
    c.op.trigger_metric = "ncu:" + r.name;
    c.op.trigger_value = *r.speedup_pct;
    c.op.trigger = fmt::format("ncu_estimated_speedup={:.3g}% ({})", *r.speedup_pct,
                               r.speedup_type.empty() ? "unspecified" : r.speedup_type);
    c.op.rationale = first_sentence(r.description);
    c.op.source = "ncu:" + r.name;
    auto cat = t.ncu_categories.find(r.name);
    c.category = cat != t.ncu_categories.end() ? cat->second : "ncu:" + r.name;
    c.raw_gain = std::clamp(*r.speedup_pct / 100.0 * (local ? local_weight : 1.0), 0.0, 1.0);
    out.push_back(std::move(c));
  }
}

}  // namespace

std::string rule_short_name(const std::string& rule_name) {
  auto up = [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; };
  // Split CamelCase, keeping acronyms whole: "CPIStall" → {"CPI", "Stall"}.
  std::vector<std::string> words;
  for (std::size_t i = 0; i < rule_name.size(); ++i) {
    bool next_lower = i + 1 < rule_name.size() && !up(rule_name[i + 1]);
    bool starts = i == 0 || (up(rule_name[i]) && (!up(rule_name[i - 1]) || next_lower));
    if (starts) words.emplace_back();
    words.back() += rule_name[i];
  }
  std::string out;
  for (std::size_t w = 0; w < words.size(); ++w) {
    std::string word = words[w];
    bool acronym = word.size() > 1 && std::all_of(word.begin(), word.end(), up);
    if (w > 0 && !acronym) word[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(word[0])));
    out += (w ? " " : "") + word;
  }
  return out;
}

std::vector<Opportunity> find_opportunities(const CanonicalMetrics& m, const Bottleneck& bottleneck,
                                            const std::optional<RooflinePlacement>& roofline,
                                            const std::vector<RuleResult>& rules, const Thresholds& t,
                                            const DeclaredWork& declared) {
  std::vector<Candidate> all;
  kprof_candidates(m, bottleneck, roofline, t, declared, all);
  ncu_candidates(rules, t, all);

  // No estimate may promise more than the distance to the roof; without a placement the bound is 100%.
  const double headroom = roofline ? std::clamp(1.0 - roofline->pct_of_roof / 100.0, 0.0, 1.0) : 1.0;
  // With under one wave, idle warp slots come from missing blocks: occupancy and grid fill are one remedy.
  const bool grid_short = m.waves_per_sm && *m.waves_per_sm < t.metric_value("waves_per_sm");

  std::map<std::string, std::size_t> best;  // category → index into kept
  std::vector<Candidate> kept;
  for (auto& c : all) {
    if (grid_short && c.category == "occupancy") c.category = "grid_fill";
    c.op.est_gain_pct = std::min(c.raw_gain, headroom) * 100.0;
    if (c.op.est_gain_pct < t.param("opportunities.min_gain_pct")) continue;
    auto it = best.find(c.category);
    if (it == best.end()) {
      best[c.category] = kept.size();
      kept.push_back(std::move(c));
      continue;
    }
    Candidate& have = kept[it->second];
    // Keep the larger estimate (kprof's on a tie: its formula is documented here); name the other source.
    Candidate& other = c.op.est_gain_pct > have.op.est_gain_pct ? have : c;
    std::string also = other.op.source;
    if (&other == &have) std::swap(have, c);
    if (also != have.op.source && have.op.rationale.find(also) == std::string::npos) have.op.rationale += " (also suggested by " + also + ")";
  }
  // Equal bounded gains (several capped by the same headroom) rank by the unbounded estimate.
  std::stable_sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) {
    if (a.op.est_gain_pct != b.op.est_gain_pct) return a.op.est_gain_pct > b.op.est_gain_pct;
    return a.raw_gain > b.raw_gain;
  });
  std::vector<Opportunity> out;
  for (auto& c : kept) out.push_back(std::move(c.op));
  return out;
}

}  // namespace kprof::analyze
