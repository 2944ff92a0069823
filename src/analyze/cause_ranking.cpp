#include "analyze/cause_ranking.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "analyze/remedies.hpp"
#include "analyze/rule_table.hpp"

namespace kprof::analyze {

namespace {
// An on-chip unit kept busy by the kernel's own data movement (what the library's operand staging does).
bool onchip_bound(CauseId id) { return id == CauseId::l1_bandwidth || id == CauseId::l2_bandwidth; }
// A plain bound on one unit near its roof: DRAM or a pipe, or a unit whose own remedy moves the work off it (the host
// link: Finding::unit_room_pct).
bool saturating(const Finding& c) { return !c.specific && (throughput_bound(c.id) || c.unit_room_pct); }
// The room a saturating bound leaves a fix that does not remove its work.
double room_of(const Finding& c) { return c.unit_room_pct.value_or(c.gain_pct); }
// Whether specific cause s accounts for bound b. A bound whose own remedy moves the work off its unit (the host link)
// is explained by none: an access pattern that wastes cache sectors does not add bytes over the link, which carries
// each byte the kernel reads once (set 27's GEMV on mapped weights: 26.7 sectors per request, 79% of them L1 hits,
// the link moving the 33.5 MB matrix once).
bool explained(const Finding& s, const Finding& b) { return !b.unit_room_pct && s.accounts_for(b.id); }
}  // namespace

void rank_causes(std::vector<Finding>& causes, double headroom, const Thresholds& t) {
  // The units the bounds rule found at their roof (remedy none: classify.saturated_pct or more), before a specific
  // cause that explains a bound takes its remedy away below.
  std::vector<CauseId> at_roof;
  for (const auto& c : causes)
    if (saturating(c) && c.remedy == RemedyId::none) at_roof.push_back(c.id);
  // Whether the tensor rule found a library kernel's idle tensor pipe (its remedy the call), before a specific
  // cause that explains the bound takes that remedy away below.
  const bool library_call = std::any_of(causes.begin(), causes.end(), [](const Finding& c) {
    return c.id == CauseId::tensor_underfed && c.remedy == RemedyId::library_tuning;
  });
  // A partial last wave idles SMs on top of whatever bounds the full waves: it explains a plain bound only when
  // filling it saves more than that bound's own remedy. Otherwise the full waves' bound is the cause and the tail
  // one more item (PyTorch's embedding_bag on the H200: 1.29 waves worth 35.5%, long-scoreboard waits on
  // dependent index-then-row loads worth 35.9%; its fused AdamW at 1.21 waves and the DRAM bound, 20.9% each).
  for (auto& tail : causes)
    if (tail.id == CauseId::tail_wave)
      for (const auto& b : causes)
        if (!b.specific && b.gain_pct >= tail.gain_pct && tail.accounts_for(b.id)) tail.does_not_explain.push_back(b.id);
  // Too few resident warps explain the plain compute bound's idle issue slots (rule_table.cpp), not its other remedy
  // (the same bytes gathered again: on-chip reuse), nor a compute bound that promises more than the occupancy fix.
  for (auto& occ : causes)
    if (cause_spec(occ.id).remedy == RemedyId::occupancy)
      for (const auto& b : causes)
        if (b.id == CauseId::compute_bound && (b.remedy != RemedyId::pipe_throughput || b.gain_pct > occ.gain_pct))
          occ.does_not_explain.push_back(b.id);
  // A kernel bound by one saturated unit (DRAM or a pipe) gains from a specific fix only as far as that unit has
  // room left, unless the specific cause is what keeps the unit busy (explains it): more blocks for a cuBLAS GEMV
  // at the DRAM roof, or fewer bank conflicts in a flash-attention kernel whose tensor pipe is busy 76% of the
  // time (both on the H200), do not let the unit run faster than its peak.
  for (const auto& b : causes) {
    if (!saturating(b)) continue;
    for (auto& c : causes)
      if (c.specific && !unbounded_by_floor(c.remedy) && !explained(c, b) && c.gain_pct > room_of(b)) {
        c.gain_pct = room_of(b);
        c.evidence += fmt::format("; at most the {:.0f}% headroom left by {}", room_of(b), b.label);
      }
    break;
  }
  // A plain bound that a specific cause explains (latency from an occupancy limit, L1 traffic from uncoalesced
  // loads, ...) keeps its name but not a remedy of its own: fixing the specific cause is how to approach that roof.
  const double lead_min = t.param("diagnosis.specific_min_gain_pct");
  for (auto& c : causes) {
    if (c.specific || c.remedy == RemedyId::none) continue;
    for (const auto& s : causes)
      if (s.specific && (s.gain_pct >= lead_min || cause_spec(s.id).leads_without_gain) && explained(s, c)) {
        c.evidence += "; explained by " + s.label;
        c.remedy = RemedyId::none;
        break;
      }
  }
  // No estimate may promise more than the distance to the roofline floor, nor more than the documented cap.
  // Two remedies change the roof itself, so the current floor does not bound them: tensor cores (the tensor
  // roof; the rule computes its own bound) and launch overhead (its gain is GPU idle time, outside the kernels).
  const double cap = std::min(t.param("diagnosis.max_gain_pct"), headroom * 100.0);
  for (auto& c : causes)
    c.gain_pct = std::min(c.gain_pct, unbounded_by_floor(c.remedy) || cuts_traffic(c.remedy)
                                          ? t.param("diagnosis.max_gain_pct")
                                          : cap);
  const double lead = t.param("diagnosis.specific_min_gain_pct");
  // A specific cause leads only when its remedy is worth something, and never past a saturated unit it does not
  // explain: its gain is bounded by that unit's headroom, which the unit's own remedy has in full (the ALU pipe of
  // PyTorch's argmax at 89% on the H200 was led by bank conflicts worth at most its 11%).
  const Finding* saturated = nullptr;
  for (const auto& c : causes)
    if (saturating(c)) {
      saturated = &c;
      break;
    }
  // Nor past a plain bound of at least its own gain that it says it does not explain (a partial last wave beside a
  // bound worth more; bank conflicts beside a latency bound whose warps wait mostly elsewhere: CUB's onesweep sort on
  // the H200, 20% of its waits on shared memory).
  auto leads = [&](const Finding& c) {
    if (!c.specific) return false;
    if (std::any_of(causes.begin(), causes.end(), [&](const Finding& b) {
          return !b.specific && b.gain_pct >= c.gain_pct &&
                 std::find(c.does_not_explain.begin(), c.does_not_explain.end(), b.id) != c.does_not_explain.end();
        }))
      return false;
    if (cause_spec(c.id).leads_without_gain) return true;
    // Nor past a latency bound worth more that it does not explain: lanes masked off by divergence do not make
    // warps wait on memory (PyTorch's masked index_put_ backward on the H200: 21 of 32 lanes active, worth 16%,
    // beside 76% of its stalls on long-scoreboard memory waits, worth 43%). The generic memory and compute bounds
    // are not weighed so: a stall-specific cause names them better (cuFFT's pass waiting on the global queue).
    if (std::any_of(causes.begin(), causes.end(), [&](const Finding& b) {
          return !b.specific && (b.id == CauseId::memory_latency || b.id == CauseId::latency) &&
                 b.remedy != RemedyId::none && b.gain_pct > c.gain_pct && !explained(c, b);
        }))
      return false;
    // A grid that leaves SMs idle explains an SM-local unit's low average over the GPU, not how busy that unit is
    // where it runs: beside a pipe at its roof on the SMs that have work (found there by the bounds rule), the unit
    // binds the kernel and the idle SMs are an item, unless they cost at least grid_leads_saturated_min_gain_pct
    // (cuDNN convolutions of 120 blocks on 132 SMs with the tensor pipe 82-93% busy on the active SMs, sets 11 and 29:
    // worth 9%, and every blind label names the tensor pipe). The item's estimate is not capped by the unit: the idle
    // SMs gain in full.
    if (c.id == CauseId::grid_too_small && saturated && !saturated->unit_room_pct && per_sm_unit(saturated->id) &&
        std::find(at_roof.begin(), at_roof.end(), saturated->id) != at_roof.end() &&
        c.gain_pct < t.param("diagnosis.grid_leads_saturated_min_gain_pct"))
      return false;
    return c.gain_pct >= lead && (!saturated || explained(c, *saturated));
  };
  // When no specific cause leads, the unit that binds the kernel (DRAM or a pipe) names it, even with no
  // headroom left: a GEMV at the DRAM roof is DRAM-bound, not "grid too small" with nothing to gain.
  auto binding = [&](const Finding& c) { return saturating(c); };
  // Whether each cause leads is decided over the whole list before the sort moves any of it (leads() reads the
  // other causes); the sort then orders indices.
  std::vector<bool> leading(causes.size());
  std::vector<std::size_t> order(causes.size());
  for (std::size_t i = 0; i < causes.size(); ++i) leading[i] = leads(causes[i]), order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    const Finding &a = causes[i], &b = causes[j];
    if (leading[i] != leading[j]) return bool(leading[i]);
    if (!leading[i] && binding(a) != binding(b)) return binding(a);
    return a.gain_pct > b.gain_pct;
  });
  // An idle tensor pipe leads over an in-kernel cause that explains only a small part of it: a WMMA GEMM's loads at
  // 20 sectors per request where 16 would do (worth 17%) beside a tensor pipe 29% busy (77%). A library kernel's
  // idle tensor pipe is fixed in the call (shape, alignment, backend, precision): a user cannot edit the kernel. Its in-kernel causes (spills, bank conflicts, an L1 or L2 kept busy by operand staging) lead
  // only where they account for most of the lost tensor time, their gain at least 1/library_call_lead_ratio of the
  // underfed pipe's (PyTorch's memory-efficient attention on the H200: spills worth 59% of 75%); otherwise the call
  // does (FlashAttention-2 and cuDNN attention with a float mask: spills worth 18-22% of 54-57%; a cuBLAS GEMM on an
  // sm80 kernel for N = 4100: L1 90% busy staging operands, tensor pipe 45%).
  const double ratio = t.param("diagnosis.library_call_lead_ratio");
  auto underfed = std::find_if(order.begin(), order.end(),
                               [&](std::size_t i) { return causes[i].id == CauseId::tensor_underfed; });
  if (underfed != order.end() && underfed != order.begin()) {
    const Finding& first = causes[order.front()];
    const Finding& call = causes[*underfed];
    // Only an in-kernel cause gives way (a grid, a tail or launch overhead are the call's shape, weighed as they are).
    const bool code_fix = in_kernel(cause_spec(first.id).remedy);
    // An on-chip unit kept busy by the operands names the bound of one's own kernel (its remedy is already to feed
    // the tensor cores: rules_bounds.cpp); of a library kernel, the call leads.
    const bool gives_way = first.specific ? code_fix && first.gain_pct * ratio < call.gain_pct
                                          : library_call && onchip_bound(first.id) && first.gain_pct <= call.gain_pct;
    if (gives_way) {
      Finding& lead = causes[*underfed];
      // The call for a library's kernel; for one's own, feeding the pipe (its remedy, which the specific cause
      // had taken over when it explained the bound).
      lead.remedy = library_call ? RemedyId::library_tuning : cause_spec(lead.id).remedy;
      // It leads now: the in-kernel cause below it no longer explains it.
      if (auto at = lead.evidence.find("; explained by "); at != std::string::npos) lead.evidence.erase(at);
      std::rotate(order.begin(), underfed, underfed + 1);
    }
  }
  std::vector<Finding> sorted;
  sorted.reserve(causes.size());
  for (std::size_t i : order) sorted.push_back(std::move(causes[i]));
  causes = std::move(sorted);
}

}  // namespace kprof::analyze
