#include "analyze/analyze_run.hpp"

#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "analyze/cause_ids.hpp"
#include "analyze/classify.hpp"
#include "analyze/diagnosis.hpp"
#include "analyze/event_stats.hpp"
#include "analyze/interpret.hpp"
#include "analyze/metric_fields.hpp"
#include "analyze/occupancy_limits.hpp"
#include "analyze/opportunities.hpp"
#include "analyze/plausibility.hpp"
#include "analyze/program_advice.hpp"
#include "analyze/roofline.hpp"
#include "analyze/rule_table.hpp"
#include "analyze/time_floor.hpp"
#include "analyze/timeline.hpp"

namespace kprof::analyze {

namespace {

// The speed-of-light figures the kernel has, as numbers only: the cause line after it says what limits the kernel,
// so the two never disagree. Metrics the profile lacks are left out, never shown as 0.
std::string speed_of_light_sentence(const CanonicalMetrics& m) {
  std::vector<std::string> parts;
  if (m.sm_throughput_pct) parts.push_back(fmt::format("SM throughput {:.1f}%", *m.sm_throughput_pct));
  if (m.memory_throughput_pct)
    parts.push_back(fmt::format("memory {:.1f}%{}", *m.memory_throughput_pct,
                                m.dram_throughput_pct ? fmt::format(" (DRAM {:.1f}%)", *m.dram_throughput_pct) : ""));
  else if (m.dram_throughput_pct)
    parts.push_back(fmt::format("DRAM {:.1f}%", *m.dram_throughput_pct));
  if (m.tensor_pipe_pct) parts.push_back(fmt::format("tensor pipe {:.1f}%", *m.tensor_pipe_pct));
  if (parts.empty()) return "";
  return fmt::format("{} of peak.", fmt::join(parts, ", "));
}

// What the heading names in parentheses: the unit a plain bound saturates, or the specific cause itself.
std::string unit_of(const Cause& c) {
  auto id = cause_id(c.id);
  if (!id || c.specific) return c.label;
  switch (*id) {
    case CauseId::dram_bandwidth: return "DRAM";
    case CauseId::l2_bandwidth: return "L2";
    case CauseId::l1_bandwidth: return "L1/shared memory";
    case CauseId::memory_bound: return "memory units";
    // (A kernel reading host memory across the link, rules_bounds.cpp.)
    case CauseId::host_link: return "host link";
    case CauseId::compute_bound: return "instruction issue";
    case CauseId::memory_latency: return "memory latency";
    case CauseId::latency: return "latency";
    case CauseId::tensor_pipe: return "tensor pipe";
    case CauseId::tensor_underfed: return "tensor pipe underfed";
    default: break;
  }
  // The pipe bounds: "FP32 pipe bound" → "FP32 pipe", "integer pipes bound (ALU)" → "integer pipes (ALU)".
  std::string u = c.label;
  for (const std::string cut : {" at its roof", " bound"})
    if (auto at = u.find(cut); at != std::string::npos) u.erase(at, cut.size());
  return u;
}

// Verdicts judged for the kind of kernel: a tensor-pipe verdict means nothing without matrix math, a DRAM verdict
// nothing on a kernel bound by its SM (an elementwise kernel "TC util ✗", a compute-bound one "DRAM underused ✗"
// filled the devlog's Issues with non-issues).
void judge_for_kind(std::vector<MetricVerdict>& verdicts, const CanonicalMetrics& m, const KernelAnalysis& a) {
  const bool matrix_math = m.flops_tensor.value_or(0) > 0 || m.tensor_pipe_pct.value_or(0) >= 5.0 ||
                           has_cause(a.causes, CauseId::matmul_without_tensor_cores) ||
                           has_cause(a.causes, CauseId::tensor_underfed);
  const bool compute_bound = a.bottleneck.kind == BottleneckKind::compute;
  for (auto& v : verdicts) {
    if (!v.value) continue;
    if (v.metric == "tensor_pipe_pct" && !matrix_math) {
      v.verdict = Verdict::not_applicable;
      v.meaning = "No matrix math in this kernel: the tensor pipe has nothing to do.";
    } else if (v.metric == "dram_throughput_pct" && compute_bound && v.verdict == Verdict::warn) {
      v.verdict = Verdict::not_applicable;
      v.meaning = "The kernel is bound by its SM (" + a.bottleneck.unit + "), not by DRAM.";
    }
  }
}

// A group's part of the run: its GPU time, plus the idle gaps between its launches when launch overhead is its
// cause (the remedy removes them).
// Only a group of many launches owns the idle time between them: a tiny kernel launched a few times across a
// program does not cause the seconds of host work between its launches (a PyTorch script with torch.compile on
// the H200: a 1-block kernel launched 4 times over 20 s owned them all, and every other item became 0.01% of the run).
bool owns_idle(const KernelGroup& g, const Thresholds& t) {
  // (Not a graph's nodes: the GPU's idle time over their launches is the host's between graph launches.)
  return g.analysis && !g.analysis->causes.empty() &&
         g.analysis->causes.front().id == name(CauseId::launch_overhead) && !g.graph_launched() &&
         double(g.launch_count()) >= t.param("diagnosis.launch_bound_min_launches");
}

// Several such groups of one stage (a decode step's dozen small kernels, each launched every step) span the same idle
// time: the stage's idle (the largest any of them spans) is shared among them in proportion to the idle each spans,
// and no group owns more than its own span's (set 39's greedy decode: four launch-bound kernels each owned the range's
// idle, so each claimed more of the run than the range spans).
double owned_ns(const KernelGroup& g, const Stage& stage, const Thresholds& t) {
  double own = g.gpu_time_or_profiled_ns();
  if (!owns_idle(g, t)) return own;
  double pooled = 0, spanned = 0;
  for (const auto& other : stage.kernels)
    if (owns_idle(other, t)) {
      pooled = std::max(pooled, other.gpu_idle_ns.value_or(0));
      spanned += other.gpu_idle_ns.value_or(0);
    }
  const double idle = g.gpu_idle_ns.value_or(0);
  return own + (spanned > 0 ? std::min(idle, pooled * idle / spanned) : 0.0);
}

double owned_total(const ProfileRun& run, const Thresholds& t) {
  double total = 0;
  for (const auto& stage : run.stages)
    for (const auto& g : stage.kernels) total += owned_ns(g, stage, t);
  return total;
}

}  // namespace

void complete_metrics(CanonicalMetrics& m, const DeviceSpec* spec) {
  if (!spec) return;
  fill_occupancy_limits(m, spec->sm_limits);
  // FP64 matrix math (DMMA) without its pipe counter (the annotation list counts its FLOPs only): its busy share is
  // the FLOP rate against the FP64 tensor peak. It is FP64 work, and the SM's throughput includes it.
  if (auto peak = spec->peak("fp64_tensor_tflops"); peak && peak->value > 0 && m.tensor_precision == "fp64" &&
                                                    m.flops_tensor && m.duration_ns && *m.duration_ns > 0) {
    // Over elapsed time; the pipe readings are over the SMs' active cycles, so idle SMs are taken out when counted.
    const double active = m.sm_active_pct && *m.sm_active_pct > 0 ? std::min(1.0, *m.sm_active_pct / 100.0) : 1.0;
    const double pct = *m.flops_tensor / (*m.duration_ns * 1e-9) / (peak->value * 1e12) * 100.0 / active;
    const auto it = m.provenance.find("fp64_pipe_pct");
    const bool counted = it != m.provenance.end() && it->second.find("dmma") != std::string::npos;
    if (!counted && pct > m.fp64_pipe_pct.value_or(0)) {
      m.fp64_pipe_pct = pct;
      m.provenance["fp64_pipe_pct"] = fmt::format("FP64 tensor FLOPs / duration against the {} {:.3g} TFLOP/s FP64 "
                                                  "tensor peak (DMMA){}", spec->peak_kind("fp64_tensor_tflops"), peak->value,
                                                  active < 1.0 ? ", over the SMs' active share" : "");
      const auto sm = m.provenance.find("sm_throughput_pct");
      const double elapsed_pct = pct * active;  // sm_throughput_pct is over elapsed cycles
      if (m.sm_throughput_pct && sm != m.provenance.end() && sm->second.rfind("max(", 0) == 0 &&
          elapsed_pct > *m.sm_throughput_pct) {
        m.sm_throughput_pct = elapsed_pct;
        m.provenance["sm_throughput_pct"] = sm->second + ", with the FP64 tensor pipe from its FLOPs";
      }
    }
  }
  auto measured = spec->measured.find("dram_gbps");
  if (auto gbps = m.achieved_dram_gbps(); gbps && measured != spec->measured.end() && measured->second.value > 0) {
    m.dram_measured_pct = *gbps / measured->second.value * 100.0;
    m.provenance["dram_measured_pct"] =
        fmt::format("dram_bytes / duration_ns against the measured {:.0f} GB/s ({})", measured->second.value,
                    measured->second.source);
  }
  if (auto l2 = spec->measured.find("l2_gbps");
      l2 != spec->measured.end() && l2->second.value > 0 && m.l2_bytes && m.duration_ns && *m.duration_ns > 0) {
    m.l2_measured_pct = *m.l2_bytes / *m.duration_ns / l2->second.value * 100.0;
    m.provenance["l2_measured_pct"] = fmt::format("l2_bytes / duration_ns against the measured {:.0f} GB/s ({})",
                                                  l2->second.value, l2->second.source);
  }
}

KernelAnalysis analyze_group(const KernelGroup& g, const DeclaredWork& declared, const DeviceSpec* spec,
                             const Thresholds& t) {
  KernelAnalysis a;
  const CanonicalMetrics& m = g.metrics;
  a.verdicts = interpret(m, t);

  if (spec) {
    a.roofline = place(m, declared, *spec, "dram");
    if (!a.roofline) a.notes.push_back(roofline_gap(m, declared, *spec, "dram") + ": roofline skipped");
    else if (a.roofline->flops_source == "declared") a.notes.push_back("FLOPs from the declaration (no FLOP counters)");
    for (const char* level : {"l2", "l1"})
      if (auto p = place(m, declared, *spec, level)) a.hierarchical.push_back(*p);
  } else {
    a.notes.push_back("no device peaks: roofline skipped");
  }

  // The diagnosis reads a copy without the implausible values: a hit rate of 117% or an L1 throughput of 150% must
  // not name a cause.
  CanonicalMetrics trusted = m;
  for (auto& issue : check_plausibility(g, m, declared, a.roofline, a.hierarchical, t)) {
    if (auto* field = metric_field_ptr(trusted, issue.metric)) field->reset();
    // The metric concerned is never shown as healthy.
    for (auto& v : a.verdicts)
      if (v.metric == issue.metric && v.verdict == Verdict::ok) {
        v.verdict = Verdict::warn;
        v.meaning = "Implausible value: " + issue.message + ".";
      }
    a.implausible.push_back(std::move(issue.message));
  }

  // Share of the kernel's time above its floor (FLOPs and bytes at the device's peaks): no remedy can save more.
  double headroom = 1.0;
  if (spec && m.duration_ns && *m.duration_ns > 0)
    if (auto floor = time_floor_s(m, declared, *spec)) headroom = std::clamp(1.0 - *floor / (*m.duration_ns * 1e-9), 0.0, 1.0);

  a.bottleneck = classify(m, t, a.roofline, declared);
  if (m.sm_throughput_pct || m.memory_throughput_pct || m.tensor_pipe_pct) {
    a.causes = find_causes(trusted, facts_of(g), declared, spec, a.roofline, headroom, t);
    if (!a.causes.empty()) {
      // One cause per kernel, stated the same way everywhere: the heading's kind and unit, the key issue of the
      // stages row, the root-cause line and the JSON all come from the leading cause (a near-tie of SM and
      // memory throughput once read "memory-bound (SM pipes) ... Cause: memory bound").
      const Cause& c = a.causes.front();
      a.bottleneck.cause = c.id;
      std::optional<BottleneckKind> kind;
      if (auto id = cause_id(c.id)) kind = cause_spec(*id).kind;
      // A cause of no kind of its own (a partial last wave) takes the kind of the bound it explains.
      for (std::size_t i = 1; !kind && i < a.causes.size(); ++i)
        if (auto id = cause_id(a.causes[i].id); id && !a.causes[i].specific) kind = cause_spec(*id).kind;
      if (kind) a.bottleneck.kind = *kind;
      a.bottleneck.unit = unit_of(c);
      a.bottleneck.key_issue = c.label;
      a.bottleneck.rule = "cause " + c.id;
      const std::string sol = speed_of_light_sentence(m);
      // The cause first, then the figures that place it: "Root cause: <cause> (<evidence>). <speed of light>."
      std::string cause = c.label + " (" + c.evidence + ").";
      cause[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(cause[0])));
      a.bottleneck.root_cause = cause + (sol.empty() ? "" : " ") + sol;
    }
    judge_for_kind(a.verdicts, m, a);
  } else if (!g.counters_note.empty()) {
    a.bottleneck.key_issue = "no counters (" + g.counters_note + ")";
  }

  std::vector<RuleResult> rules;
  if (g.representative >= 0 && static_cast<std::size_t>(g.representative) < g.launches.size())
    rules = g.launches[static_cast<std::size_t>(g.representative)].rules;
  else if (g.launches.size() == 1)
    rules = g.launches.front().rules;
  a.opportunities = find_opportunities(a.causes, trusted, rules, t, declared, headroom, &a.notes);
  call_level_items(a.opportunities, kernel_owner(g.kernel, g.signature, t), &a.notes);

  if (!m.unavailable.empty()) a.notes.push_back(fmt::format("not in this profile: {}", fmt::join(m.unavailable, ", ")));
  return a;
}

namespace {
// "1 instance", "2 instances": how many of a range's instances its figures are typical of.
std::string instances_of(const RangeTime& r) {
  return fmt::format("{} instance{}", r.instances, r.instances == 1 ? "" : "s");
}

// A range whose GPU span is mostly copies: over the host link (the link bounds it), or inside the device and memsets
// (DRAM moving bytes no kernel computes on).
// Whether the stage's longest kernel is bound on the DRAM side short of its roof: waiting on memory, L2 or the
// generic memory bound (not the host link's), or an access pattern that wastes DRAM sectors. A kernel at the DRAM roof
// names the range already: its copies stream at that roof too (held-out sets 16 and 23: a gradient accumulation and a
// memory bank's index_copy, each labelled DRAM bandwidth); on-chip bounds (shared memory, the MIO or LSU queue, L1)
// and compute have nothing to do with the copies' DRAM traffic.
bool memory_side_kernel(const Stage& stage) {
  const KernelGroup* longest = nullptr;
  for (const auto& g : stage.kernels)
    if (g.analysis && (!longest || g.gpu_time_or_profiled_ns() > longest->gpu_time_or_profiled_ns())) longest = &g;
  if (!longest) return false;
  const auto id = cause_id(longest->analysis->bottleneck.cause);
  if (!id) return false;
  switch (*id) {
    case CauseId::memory_latency:
    case CauseId::l2_bandwidth:
    case CauseId::uncoalesced_global:
    case CauseId::scattered_access:
    case CauseId::memory_bound: return true;  // (not host_link: a kernel reading host memory over the link)
    default: return false;
  }
}

// Copies inside the device and memsets taking a share of the span (below copy_bound_share) beside a kernel that is
// itself bound on the memory side: the range moves bytes, in the copies and in its kernels alike, and is memory bound
// as a whole; the copies are its first item (held-out sets 20 and 26: a stencil waiting on memory at 42-47% of DRAM,
// 30-34% of each step a device copy back where swapping two pointers would do; three blind labels of four say memory
// bound, one DRAM bandwidth, none the kernel's memory latency).
std::optional<Bottleneck> copies_and_memory_kernels(const Stage& stage, const RangeTime& r, const Thresholds& t) {
  const double pct = r.device_fill_ns / r.span_ns * 100.0;
  if (r.device_fill_ns < t.param("diagnosis.copy_memory_bound_share") * r.span_ns || r.device_fill_ns < r.link_copy_ns ||
      !memory_side_kernel(stage))
    return std::nullopt;
  Bottleneck b;
  b.kind = BottleneckKind::memory;
  b.cause = std::string(name(CauseId::memory_bound));
  b.unit = "DRAM";
  b.key_issue = fmt::format("device copies and memsets {:.0f}% of the range, its kernels memory-bound", pct);
  b.root_cause = fmt::format(
      "Copies inside the device and memsets run {:.0f}% of each {} range's GPU span (typically {:.2f} of {:.2f} ms, {}) "
      "beside kernels bound on the memory side: the range's time goes to moving bytes, and the copies, "
      "which no kernel computes on, are the first to go.",
      pct, stage.name, r.device_fill_ns * 1e-6, r.span_ns * 1e-6, instances_of(r));
  b.rule = fmt::format("range device-copy share {:.0f}% >= diagnosis.copy_memory_bound_share, memory-side kernel", pct);
  return b;
}

std::optional<Bottleneck> copy_bound(const Stage& stage, const RangeTime& r, const Thresholds& t, double kernels_best) {
  const double share = t.param("diagnosis.copy_bound_share");
  // Under copy_bound_share, copies still bind the range where they outweigh what its kernels' own first items could
  // save of it, as idle time does (range_bound): a kernel near its roof alternating with its frame's download (set
  // 44's particle advection: the copies 33% of the range, the kernel's first item 10% of its time; both labellers
  // host link).
  // (Host-device copies only, from copy_outweighs_min_share: a two-stream pipeline's first upload and last download
  // stay exposed by design, set 20's overlapped upload 20% of its range.)
  const double link_share = r.link_copy_ns / r.span_ns;
  const bool link = (link_share >= share || (link_share >= t.param("diagnosis.copy_outweighs_min_share") &&
                                             link_share >= kernels_best * (1.0 - link_share))) &&
                    r.link_copy_ns >= r.device_fill_ns;
  if (!link && r.device_fill_ns < share * r.span_ns) return copies_and_memory_kernels(stage, r, t);
  const double pct = (link ? r.link_copy_ns : r.device_fill_ns) / r.span_ns * 100.0;
  const std::string share_rule =
      pct >= share * 100.0 ? fmt::format("range copy share {:.0f}% >= diagnosis.copy_bound_share", pct)
                           : fmt::format("range copy share {:.0f}% >= diagnosis.copy_outweighs_min_share and >= the "
                                         "{:.0f}% of the range its kernels' first items save",
                                         pct, kernels_best * (100.0 - pct));
  // Many small copies: each call's fixed cost takes their time, not the link (set 30's 2048 row copies of 2 KiB).
  if (link && small_copies(r, t)) {
    Bottleneck b;
    b.kind = cause_spec(CauseId::launch_overhead).kind.value_or(BottleneckKind::latency);
    b.cause = std::string(name(CauseId::launch_overhead));
    b.unit = "host link";
    const double each = r.link_copy_bytes / r.link_copies / 1024.0;
    b.key_issue = fmt::format("{} small host-device copies ({:.1f} KiB each) {:.0f}% of the range", r.link_copies, each,
                              pct);
    b.root_cause = fmt::format(
        "{} copies between host and device of {:.1f} KiB each run {:.0f}% of each {} range's GPU span (typically "
        "{:.2f} of {:.2f} ms, {}) at {:.2f} GB/s: each pays its call's fixed cost for a few KiB, so the number of "
        "copies, not the link's rate, sets the time. Its kernels' own tuning wins at most the rest.",
        r.link_copies, each, pct, stage.name, r.link_copy_ns * 1e-6, r.span_ns * 1e-6, instances_of(r),
        r.link_copy_ns > 0 ? r.link_copy_bytes / r.link_copy_ns : 0.0);
    b.rule = fmt::format("{}, {} copies >= diagnosis.small_copy_min_count of <= diagnosis.small_copy_max_bytes",
                         share_rule, r.link_copies);
    return b;
  }
  Bottleneck b;
  b.kind = BottleneckKind::memory;
  b.cause = std::string(name(link ? CauseId::host_link : CauseId::dram_bandwidth));
  b.unit = link ? "host link" : "DRAM";
  b.key_issue = fmt::format("{} {:.0f}% of the range", link ? "host-device copies" : "device copies and memsets", pct);
  b.root_cause = fmt::format(
      "{} run {:.0f}% of each {} range's GPU span (typically {:.2f} of {:.2f} ms, {}): {}. Its kernels' own "
      "tuning wins at most the rest.",
      link ? "Copies between host and device" : "Copies inside the device and memsets", pct, stage.name,
      (link ? r.link_copy_ns : r.device_fill_ns) * 1e-6, r.span_ns * 1e-6, instances_of(r),
      link ? "the host link moves the range's bytes, and only fewer of them (or overlapping them with work) shortens it"
           : "DRAM moves or clears bytes no kernel computes on");
  b.rule = share_rule;
  return b;
}

// Most of a range's launch gaps follow a wait of the host for the GPU (the range's bound reads "launch gaps after host
// waits").
bool gaps_follow_waits(const RangeTime& r) { return r.launch_gaps_ns > 0 && r.wait_gaps_ns >= 0.5 * r.launch_gaps_ns; }
}  // namespace

std::optional<Bottleneck> range_bound(const Stage& stage, const RangeTime& r, const Thresholds& t) {
  if (r.span_ns <= 0) return std::nullopt;
  // Idle under half the range still binds it where the idle time outweighs what its kernels' own first items could
  // save of the range (their estimate times their share of its GPU time): the GPU's waiting is then the range's
  // largest limiter (set 30's diffusion steps: 43% idle, the kernel's latency item worth 27% of the range).
  double kernels_best = 0, kernels_ns = 0;
  for (const auto& g : stage.kernels) kernels_ns += g.gpu_time_or_profiled_ns();
  for (const auto& g : stage.kernels)
    if (g.analysis && !g.analysis->opportunities.empty() && kernels_ns > 0)
      kernels_best = std::max(kernels_best, g.analysis->opportunities.front().est_gain_pct / 100.0 *
                                                g.gpu_time_or_profiled_ns() / kernels_ns);
  const double idle_share = r.idle_ns / r.span_ns;
  const bool outweighs = idle_share >= t.param("diagnosis.range_bound_min_idle_share") &&
                         idle_share >= kernels_best * (1.0 - idle_share);
  if (idle_share < t.param("diagnosis.launch_bound_idle_share")) {
    if (!outweighs) return copy_bound(stage, r, t, kernels_best);
    // Copies that take more of the range than its idle time bind it first, where they bind it at all (set 51's
    // Criteo columns, each uploaded from a pageable tensor and synchronised: the staged copies 48% of the range, the
    // host's Python between them 22%; both blind labels read the host link).
    if (std::max(r.link_copy_ns, r.device_fill_ns) > r.idle_ns)
      if (auto b = copy_bound(stage, r, t, kernels_best)) return b;
  }
  // Where the idle time went: the host computing outside CUDA calls, held in blocking calls, or the rest (the gaps
  // between launches: launch calls, short waits).
  const double idle_pct = r.idle_ns / r.span_ns * 100.0;
  const char* what = "launch gaps";
  const char* sentence = "the GPU waits between launches for the host to issue the next";
  // Most of the gaps are a queued instance's host pacing: its kernels ran back to back behind earlier work, but the
  // host issued them slower than the GPU ran them.
  if (r.paced_gaps_ns >= 0.5 * r.launch_gaps_ns && r.paced_gaps_ns > 0)
    sentence = "the host issues its many short launches slower than the GPU runs them (here they queued behind earlier "
               "work, so the gaps show when the call runs on its own)";
  // Most of the gaps follow a wait for the GPU: each wait drains the queue, and the next launch starts from idle.
  if (gaps_follow_waits(r)) {
    what = "launch gaps after host waits";
    sentence = "the host waits for the GPU (synchronisations, read-backs) every few launches, so the queue drains and "
               "each next launch starts from an idle GPU";
  }
  if (r.poll_wait_ns > 0 && r.poll_wait_ns >= r.host_work_ns && r.poll_wait_ns >= r.host_blocked_ns &&
      r.poll_wait_ns >= r.launch_gaps_ns) {
    what = "host polling";
    sentence = "the host polls the GPU with sleeps between its queries, so each finish waits for the next query";
  } else if (r.host_work_ns >= r.host_blocked_ns && r.host_work_ns >= r.launch_gaps_ns) {
    what = "host work";
    sentence = "the host works in the range, before or between its launches (computing outside CUDA calls, or in "
               "calls that do not wait for the GPU: allocations, graph or plan building), while the GPU has nothing "
               "queued";
  } else if (r.host_blocked_ns >= r.launch_gaps_ns) {
    what = "host waits";
    sentence = "the host is held in CUDA calls that wait for the GPU (synchronisations, copies, frees behind queued "
               "work) while the GPU has nothing queued";
  }
  Bottleneck b;
  b.kind = BottleneckKind::latency;
  b.cause = std::string(name(CauseId::launch_overhead));
  b.unit = "host";
  b.key_issue = fmt::format("GPU idle {:.0f}% of the range ({})", idle_pct, what);
  b.root_cause = fmt::format("GPU idle {:.0f}% of each {} range (typically {:.2f} of {:.2f} ms, {}): {}. "
                             "Its kernels' own tuning wins at most the {:.0f}% of the range they run.",
                             idle_pct, stage.name, r.idle_ns * 1e-6, r.span_ns * 1e-6, instances_of(r), sentence,
                             100.0 - idle_pct);
  b.rule = idle_share >= t.param("diagnosis.launch_bound_idle_share")
               ? fmt::format("range idle share {:.0f}% >= diagnosis.launch_bound_idle_share", idle_pct)
               : fmt::format("range idle share {:.0f}% >= diagnosis.range_bound_min_idle_share and >= the {:.0f}% of "
                             "the range its kernels' first items save",
                             idle_pct, kernels_best * (1.0 - idle_share) * 100.0);
  return b;
}

std::optional<Bottleneck> time_bound(const Stage& stage, const LayoutConversions* conversions) {
  if (conversions && !conversions->conversions.empty()) {
    // The library's layout conversions against the longest other kernel of the stage (its call, most often).
    const auto& list = conversions->conversions;
    double all = 0, longest_other = 0;
    const KernelGroup* other = nullptr;
    for (const auto& g : stage.kernels) {
      const double ns = g.gpu_time_or_profiled_ns();
      all += ns;
      if (std::find(list.begin(), list.end(), &g) == list.end() && ns > longest_other) longest_other = ns, other = &g;
    }
    if (all > 0 && other && conversions->ns > longest_other) {
      std::vector<std::string> names;
      for (const auto* g : list) names.push_back(g->label.empty() ? g->kernel : g->label);
      const std::string call = conversions->call->label.empty() ? conversions->call->kernel : conversions->call->label;
      const double share = conversions->ns / all * 100.0;
      Bottleneck b;
      b.kind = BottleneckKind::memory;
      b.cause = std::string(name(CauseId::memory_bound));
      b.unit = "DRAM";
      b.key_issue = fmt::format("{:.0f}% of the range's kernel time in the library's layout conversions ({})", share,
                                fmt::join(names, ", "));
      b.root_cause = fmt::format(
          "{:.0f}% of the {} range's kernel time runs in the library's own layout conversions ({}) around {}, more "
          "than in any other of its kernels: the range is bound by moving the call's tensors between layouts, data "
          "movement the call does not need where its tensors come in the layout it computes in.",
          share, stage.name, fmt::join(names, ", "), call);
      b.rule = fmt::format("layout conversions {:.0f}% of the stage's kernel time, over its longest other kernel's {:.0f}%",
                           share, longest_other / all * 100.0);
      return b;
    }
  }
  // The stage's kernel time by each group's cause, and its longest group.
  std::map<std::string, double> by_cause;
  std::map<std::string, int> groups;
  const KernelGroup* longest = nullptr;
  double all = 0;
  for (const auto& g : stage.kernels) {
    if (!g.analysis) continue;
    const double ns = g.gpu_time_or_profiled_ns();
    by_cause[g.analysis->bottleneck.cause] += ns;
    ++groups[g.analysis->bottleneck.cause];
    all += ns;
    if (!longest || ns > longest->gpu_time_or_profiled_ns()) longest = &g;
  }
  if (!longest || by_cause.size() < 2 || all <= 0) return std::nullopt;
  std::string top;
  double top_ns = 0;
  for (const auto& [cause, ns] : by_cause)
    if (ns > top_ns) top = cause, top_ns = ns;
  if (top.empty() || top == longest->analysis->bottleneck.cause) return std::nullopt;
  // Its longest kernel of that cause speaks for it.
  const KernelGroup* rep = nullptr;
  for (const auto& g : stage.kernels)
    if (g.analysis && g.analysis->bottleneck.cause == top &&
        (!rep || g.gpu_time_or_profiled_ns() > rep->gpu_time_or_profiled_ns()))
      rep = &g;
  Bottleneck b = rep->analysis->bottleneck;
  const double share = top_ns / all * 100.0;
  const std::string rep_name = rep->label.empty() ? rep->kernel : rep->label;
  const std::string longest_name = longest->label.empty() ? longest->kernel : longest->label;
  b.key_issue = fmt::format("{:.0f}% of the range's kernel time in {} kernel{} with {}'s cause ({})", share,
                            groups[top], groups[top] == 1 ? "" : "s", rep_name, b.key_issue);
  b.root_cause = fmt::format(
      "{:.0f}% of the {} range's kernel time runs in {} of its kernels with the cause {} (the longest of them: {}), "
      "more than in its longest kernel's cause ({}, {}): the range as a whole is bound by {}. {}",
      share, stage.name, groups[top], top, rep_name, longest->analysis->bottleneck.cause, longest_name, top,
      b.root_cause);
  b.rule = fmt::format("stage time by cause: {} {:.0f}% of the kernel time, over the longest kernel's {} {:.0f}%", top,
                       share, longest->analysis->bottleneck.cause,
                       by_cause[longest->analysis->bottleneck.cause] / all * 100.0);
  return b;
}

namespace {
// The stage's item of `program` with this remedy and scope that names two or more of its kernels (the one worth most
// of the run), with those kernels, where it saves more of the run than every one of the stage's kernels' first items:
// the stage's leading item across its kernels. Empty otherwise.
std::pair<const Opportunity*, std::vector<const KernelGroup*>> leading_item(const Stage& stage,
                                                                           const std::vector<Opportunity>& program,
                                                                           RemedyId remedy, std::string_view scope) {
  const Opportunity* lead = nullptr;
  std::vector<const KernelGroup*> kernels;
  if (stage.kernels.size() < 2) return {lead, kernels};
  for (const auto& o : program) {
    if (o.remedy != name(remedy) || o.scope != scope) continue;
    std::vector<const KernelGroup*> named;
    for (const auto& g : stage.kernels)
      if (std::find(o.kernels.begin(), o.kernels.end(), stage_kernel_label(stage, g)) != o.kernels.end())
        named.push_back(&g);
    if (named.size() >= 2 && (!lead || o.run_gain_pct > lead->run_gain_pct)) lead = &o, kernels = named;
  }
  if (lead)
    for (const auto& g : stage.kernels)
      if (g.analysis && !g.analysis->opportunities.empty() &&
          g.analysis->opportunities.front().run_gain_pct > lead->run_gain_pct)
        return {nullptr, {}};
  return {lead, kernels};
}
}  // namespace

// A stage whose leading item fuses its kernels (a pipeline item naming two or more of them, worth more of the run than
// any of its kernels' own first items), each of those kernels bound on the memory side: the chain moves its
// intermediates through DRAM, and that traffic is the range's bound, DRAM's where most of the chain's bytes move at
// the DRAM roof, memory's where none do (set 30's Euler step: the right-hand side waiting on memory at 48% of the roof
// beside the update at 96%, which moves 60% of the pair's bytes; both blind labels DRAM-bound, where the longest
// kernel's cause read memory latency; set 45's decode-filter-sum chain at 47-58% of the roof, both blind labels
// memory-bound, "no kernel is near the roof").
std::optional<Bottleneck> chain_bound(const Stage& stage, const std::vector<Opportunity>& program) {
  const auto [fuse, chain] = leading_item(stage, program, RemedyId::fuse_stages, "pipeline");
  if (!fuse) return std::nullopt;
  static const std::set<std::string> memory_side = {
      std::string(name(CauseId::dram_bandwidth)), std::string(name(CauseId::memory_bound)),
      std::string(name(CauseId::memory_latency)), std::string(name(CauseId::l2_bandwidth)),
      std::string(name(CauseId::uncoalesced_global)), std::string(name(CauseId::scattered_access))};
  const KernelGroup* at_roof = nullptr;
  const KernelGroup* longest = nullptr;
  double bytes = 0, roof_bytes = 0;  // the chain's DRAM traffic over all its launches, and the share at the roof
  for (const auto* g : chain) {
    if (!g->analysis || !memory_side.count(g->analysis->bottleneck.cause)) return std::nullopt;
    const double moved = (g->metrics.dram_read_bytes.value_or(0) + g->metrics.dram_write_bytes.value_or(0)) *
                         static_cast<double>(std::max<std::size_t>(1, g->launch_count()));
    bytes += moved;
    if (g->analysis->bottleneck.cause == name(CauseId::dram_bandwidth)) {
      roof_bytes += moved;
      if (!at_roof || g->gpu_time_or_profiled_ns() > at_roof->gpu_time_or_profiled_ns()) at_roof = g;
    }
    if (!longest || g->gpu_time_or_profiled_ns() > longest->gpu_time_or_profiled_ns()) longest = g;
  }
  // DRAM's where most of the chain's bytes move at its roof; memory's where none do; in between, the kernels' own
  // causes stand (set 19's attention weights: a third of the bytes in a reduction at the roof, two thirds in a softmax
  // waiting on memory, labelled memory latency).
  if (at_roof && roof_bytes < 0.5 * bytes) return std::nullopt;
  Bottleneck b = at_roof ? at_roof->analysis->bottleneck : Bottleneck{};
  if (!at_roof) {
    b.kind = BottleneckKind::memory;
    b.cause = std::string(name(CauseId::memory_bound));
    b.unit = "DRAM";
  }
  std::vector<std::string> names, causes;
  for (const auto* g : chain) {
    names.push_back(g->label.empty() ? g->kernel : g->label);
    causes.push_back(g->analysis->bottleneck.cause);
  }
  b.key_issue = fmt::format("{} kernels passing intermediates through DRAM ({})", chain.size(), fmt::join(names, ", "));
  b.root_cause = fmt::format(
      "The {} range's kernels {} hand their intermediates to each other through DRAM, each bound on the memory side "
      "({}): the chain's traffic binds the range, {}. Fusing them keeps the intermediates on chip.",
      stage.name, fmt::join(names, ", "), fmt::join(causes, ", "),
      at_roof ? fmt::format("at the DRAM roof in {}", at_roof->label.empty() ? at_roof->kernel : at_roof->label)
              : std::string("below the DRAM roof in every kernel"));
  b.rule = fmt::format("the stage's leading item fuses {} memory-side kernels, {:.0f}% of their DRAM bytes in kernels "
                       "at the DRAM roof",
                       chain.size(), bytes > 0 ? roof_bytes / bytes * 100.0 : 0.0);
  if (b.cause == (longest && longest->analysis ? longest->analysis->bottleneck.cause : std::string())) return std::nullopt;
  return b;
}

// A stage whose leading item fills the GPU in several of its kernels at once (shape_advice: kernels launching one
// block count under the SM count, worth more of the run together than any of its kernels' own first items): the
// range as a whole is bound by its grid, though its longest kernel may be bound otherwise (set 32's top-p sampling:
// the scan, softmaxes and reductions over one 64-block row each, 0.8 ms of the range beside a radix sort's 0.8 ms;
// both blind labels read the grid).
std::optional<Bottleneck> shape_bound(const Stage& stage, const std::vector<Opportunity>& program) {
  const auto [fill, named] = leading_item(stage, program, RemedyId::grid_fill, "stage");
  if (!fill) return std::nullopt;
  const KernelGroup* longest = nullptr;
  for (const auto& g : stage.kernels)
    if (g.analysis && (!longest || g.gpu_time_or_profiled_ns() > longest->gpu_time_or_profiled_ns())) longest = &g;
  const KernelGroup* rep = nullptr;
  for (const auto* g : named)
    if (g->analysis && g->analysis->bottleneck.cause == name(CauseId::grid_too_small) &&
        (!rep || g->gpu_time_or_profiled_ns() > rep->gpu_time_or_profiled_ns()))
      rep = g;
  if (!rep || !longest || longest->analysis->bottleneck.cause == name(CauseId::grid_too_small)) return std::nullopt;
  Bottleneck b = rep->analysis->bottleneck;
  std::vector<std::string> names;
  for (const auto* g : named) names.push_back(g->label.empty() ? g->kernel : g->label);
  b.key_issue = fmt::format("{} kernels of {:.0f} blocks each for the GPU's SMs ({})", named.size(),
                            fill->trigger_value.value_or(0), fmt::join(names, ", "));
  b.root_cause = fmt::format(
      "The {} range's kernels {} each launch {:.0f} blocks, fewer than the GPU has SMs: filling the GPU in them saves "
      "more of the range than any of its kernels' own first items (its longest, {}, is {}), so the range as a whole "
      "is bound by its grid. {}",
      stage.name, fmt::join(names, ", "), fill->trigger_value.value_or(0),
      longest->label.empty() ? longest->kernel : longest->label, longest->analysis->bottleneck.cause, b.root_cause);
  b.rule = fmt::format("the stage's leading item fills the GPU in {} kernels of {:.0f} blocks", named.size(),
                       fill->trigger_value.value_or(0));
  return b;
}

namespace {
// Copies binding a range over the host link that run on a stream of their own, put there to run beside the kernels,
// and only wait for them because the host synchronises the whole device each step: the synchronisation binds the range,
// not the link (its own item, "synchronise only the stream whose result the host needs", says so). Set 24's checkpoint
// copy: 46% of each step alone, on a side stream behind a cudaDeviceSynchronize; both blind labels read the host's
// synchronisation (launch overhead), with that item as the fix.
std::optional<Bottleneck> synced_copies(const Stage& stage, const Bottleneck& copies,
                                        const std::vector<const std::vector<Opportunity>*>& items) {
  if (copies.cause != name(CauseId::host_link) || !stage.range || stage.range->span_ns <= 0) return std::nullopt;
  for (const auto* list : items)
    for (const auto& o : *list)
      if (o.remedy == name(RemedyId::host_sync) && o.trigger_metric == "serial_copy_ns" &&
          o.trigger.rfind(stage.name + ":", 0) == 0) {
        Bottleneck b;
        b.kind = cause_spec(CauseId::launch_overhead).kind.value_or(BottleneckKind::latency);
        b.cause = std::string(name(CauseId::launch_overhead));
        b.unit = "host";
        b.key_issue = copies.key_issue + ", held behind the host's device-wide synchronisations";
        const RangeTime& r = *stage.range;  // (copy_bound named the copies from it)
        b.root_cause = fmt::format(
            "Copies between host and device run {:.0f}% of each {} range's GPU span (typically {:.2f} of {:.2f} ms, "
            "{}) on a stream of their own, put there to run beside the kernels; but the host synchronises the whole "
            "device in each range, which waits for them too, so the next kernels wait behind them. The "
            "synchronisation binds the range, not the link.",
            r.link_copy_ns / r.span_ns * 100.0, stage.name, r.link_copy_ns * 1e-6, r.span_ns * 1e-6, instances_of(r));
        b.rule = copies.rule + "; the copies' stream holds no kernel and the host synchronises the device each range";
        return b;
      }
  return std::nullopt;
}

// Each stage's bound from its range figures (none without them), and the whole run's bottleneck: its dominant
// kernel's, or, where that kernel's stage is bound outside its kernels, the stage's (a training step whose GPU idles
// most of each range is bound by the host, not by the GEMM that takes most of the GPU time), or by the cause most of
// its kernel time runs under (Stage::time_bound).
void apply_range_bounds(ProfileRun& run, const Thresholds& t, const std::vector<Opportunity>* more = nullptr) {
  std::vector<const std::vector<Opportunity>*> items{&run.program_opportunities};
  if (more) items.push_back(more);
  for (auto& stage : run.stages) {
    stage.bound = stage.range ? range_bound(stage, *stage.range, t) : std::nullopt;
    if (stage.bound)
      if (auto synced = synced_copies(stage, *stage.bound, items)) stage.bound = synced;
    const auto conversions = layout_conversions(stage, run.device_spec ? &*run.device_spec : nullptr, t);
    stage.time_bound = stage.bound ? std::nullopt : chain_bound(stage, run.program_opportunities);
    if (!stage.bound && !stage.time_bound) stage.time_bound = shape_bound(stage, run.program_opportunities);
    if (!stage.bound && !stage.time_bound) stage.time_bound = time_bound(stage, conversions ? &*conversions : nullptr);
  }
  const Stage* dominant_stage = nullptr;
  const KernelGroup* dominant = nullptr;
  for (const auto& stage : run.stages)
    for (const auto& g : stage.kernels)
      if (g.analysis && (!dominant || g.gpu_time_or_profiled_ns() > dominant->gpu_time_or_profiled_ns()))
        dominant = &g, dominant_stage = &stage;
  if (!dominant) return;
  if (dominant_stage->bound || dominant_stage->time_bound) {
    run.overall = dominant_stage->bound ? *dominant_stage->bound : *dominant_stage->time_bound;
    run.overall->rule = "dominant stage " + dominant_stage->name + ": " + run.overall->rule;
  } else {
    run.overall = dominant->analysis->bottleneck;
    run.overall->rule = "dominant kernel " + (dominant->label.empty() ? dominant->kernel : dominant->label) + ": " +
                        run.overall->rule;
  }
}
}  // namespace

void analyze_run(ProfileRun& run, const DeviceDb& db, const Thresholds& t) {
  std::string reason;
  if (const DeviceSpec* spec = db.match(run.device, &reason)) {
    run.device_spec = *spec;
    run.device.matched_spec = spec->id;
  } else if (!run.device_spec) {
    run.warnings.push_back({WarningCode::Device, "device peaks unknown: " + reason + "; roofline and bandwidth headroom skipped"});
  }
  const DeviceSpec* spec = run.device_spec ? &*run.device_spec : nullptr;

  for (auto& stage : run.stages) {
    for (auto& g : stage.kernels) {
      complete_metrics(g.metrics, spec);
      g.analysis = analyze_group(g, stage.declared_for(g), spec, t);
    }
  }
  // Run-level impact: each opportunity's share of the run. A launch-bound group also owns the GPU idle time
  // between its launches, which the remedy removes.
  const double total = owned_total(run, t);
  for (auto& stage : run.stages)
    for (auto& g : stage.kernels) {
      if (!g.analysis) continue;
      double share = total > 0 ? owned_ns(g, stage, t) / total * 100.0 : 0.0;
      for (auto& o : g.analysis->opportunities) {
        o.run_share_pct = share;
        o.run_gain_pct = o.est_gain_pct * share / 100.0;
      }
    }
  // A group a plain fusion names moves the intermediate the fusion keeps on chip, and its "cut DRAM traffic to the
  // declared minimum" counts those bytes as excess: the fusion item says so with where the bytes go, and stands alone
  // (mla v4's softmax, declared minimum 0 B, between the two GEMMs whose scores and probabilities it moves).
  std::vector<const KernelGroup*> fused;
  run.program_opportunities = fusion_advice(run, total, t, &fused);
  for (auto& stage : run.stages)
    for (auto& g : stage.kernels)
      if (g.analysis && std::find(fused.begin(), fused.end(), &g) != fused.end())
        std::erase_if(g.analysis->opportunities, [](const Opportunity& o) {
          // (A library's kernel has it as a change to its call.)
          return (o.remedy == name(RemedyId::dram_traffic) || o.kernel_remedy == name(RemedyId::dram_traffic)) &&
                 o.estimated;
        });
  for (auto& o : overlap_advice(run, total)) run.program_opportunities.push_back(std::move(o));
  for (auto& o : shape_advice(run)) run.program_opportunities.push_back(std::move(o));
  for (auto& o : layout_advice(run, total, t)) run.program_opportunities.push_back(std::move(o));
  // The run's bottleneck, and its stages' bounds from their range figures (a run read back from its profile.json
  // keeps them; the trace entry below measures them again).
  apply_range_bounds(run, t);
}

std::optional<TraceAnalysis> analyze_run(ProfileRun& run, const DeviceDb& db, const Thresholds& t, const Trace* trace,
                                         bool timeline) {
  analyze_run(run, db, t);
  if (!trace) return std::nullopt;
  TraceAnalysis a;
  a.stats = compute_event_stats(*trace);
  if (timeline) a.timeline = analyze_timeline(*trace);
  // Launch gaps are a property of the whole program, in every traced mode.
  std::optional<TimelineSummary> own;
  if (!a.timeline) own = analyze_timeline(*trace, {.max_steps = 0, .keep_launch_order = false});
  const TimelineSummary& gaps = a.timeline ? *a.timeline : *own;
  auto gap = gap_advice(run, *trace, gaps, t);
  std::map<const Stage*, RangeTime> times;
  // A range's own launch-gap item stands aside where the program's launch-gap item names the stage, or a kernel of
  // the stage owns the gaps over its launches (its own launch-overhead item says the same).
  auto said = [&](const Opportunity& o) {
    if (o.trigger_metric != "range_gap_ns") return false;
    for (const auto& p : gap)
      if (p.scope == "program")
        for (const auto& k : p.kernels)
          if (std::find(o.kernels.begin(), o.kernels.end(), k) != o.kernels.end()) return true;
    for (const auto& stage : run.stages)
      for (const auto& g : stage.kernels)
        if (owns_launch_gaps(g, t) &&
            std::find(o.kernels.begin(), o.kernels.end(), stage_kernel_label(stage, g)) != o.kernels.end())
          return true;
    return false;
  };
  for (auto& o : range_advice(run, *trace, gaps.overlap.span_ns, t, &times)) {
    if (!said(o)) {
      gap.push_back(std::move(o));
      continue;
    }
    // The program's item decides its remedy by the whole program's waits (one per four launches); the range that
    // holds the largest share of its gaps (the first stage it names) knows its own: where the host waits between
    // the range's launches, a graph cannot span them and the waits go first (set 31's MoE loop: a torch.where per
    // expert reads a count back, 8 waits among 60 launches of a program of 700).
    if (o.remedy != name(RemedyId::host_sync)) continue;
    // The range's reasoning in place of an item's ("a graph removes the gaps" cannot stand beside "a graph cannot
    // span the waits"); its estimate stays the item's own.
    auto take_reasoning = [&](Opportunity& item) {
      item.remedy = o.remedy;
      item.name = o.name;
      item.rationale = o.rationale;
    };
    // So does a kernel's own launch-overhead item that stands for the range's gaps, where most of those gaps follow
    // the host's waits (the range's bound): a graph or fused kernels cannot span the waits, and the waits go first
    // (set 42's Jacobi loop: a residual read back every sweep, the reduction's 2.5 us launches owning the gaps). A
    // loop of many launches with a wait now and then keeps its launch-overhead item (set 34's greedy NMS: 478 waits
    // among 5278 launches, a fifth of the gaps after them; both blind labels "launch overhead").
    for (auto& stage : run.stages)
      for (auto& g : stage.kernels)
        if (owns_launch_gaps(g, t) && o.trigger.rfind(stage.name + ":", 0) == 0 && times.count(&stage) &&
            gaps_follow_waits(times.at(&stage)) &&
            std::find(o.kernels.begin(), o.kernels.end(), stage_kernel_label(stage, g)) != o.kernels.end())
          for (auto& k : g.analysis->opportunities)
            if (k.remedy == name(RemedyId::launch_overhead)) take_reasoning(k);  // its own span's estimate
    for (auto& p : gap)
      if (p.scope == "program" && p.remedy == name(RemedyId::launch_overhead) && !p.kernels.empty() &&
          std::find(o.kernels.begin(), o.kernels.end(), p.kernels.front()) != o.kernels.end()) {
        // (Its estimate is the range's gaps, as the range's item's: so is what it assumes.)
        take_reasoning(p);
        p.assumes = o.assumes;
      }
  }
  // A kernel's launch-overhead item claims the GPU's idle time over its launches; its range's figures tell what that
  // time was: a graph (or fused kernels) removes the launch gaps, dropping the waits removes those gaps and the
  // blocking calls' time, and neither removes the host's own work (a tokenizer decode after each step's read-back:
  // set 39's greedy decode, 270-630 us of host computing in each step's gap), its polling or a graph's own gaps
  // between nodes. The item keeps the share of the range's idle time its remedy removes, and says what stays; the
  // range's host-work item speaks for the host's work. (The typical instance's shares stand for the whole span of the
  // kernel's launches, the time between instances included.)
  for (auto& stage : run.stages) {
    const auto it = times.find(&stage);
    if (it == times.end() || it->second.idle_ns <= 0) continue;
    const RangeTime& r = it->second;
    for (auto& g : stage.kernels) {
      if (!owns_launch_gaps(g, t)) continue;
      for (auto& o : g.analysis->opportunities) {
        const bool sync = o.remedy == name(RemedyId::host_sync);
        if (!sync && o.remedy != name(RemedyId::launch_overhead)) continue;
        const double removable = std::min(1.0, (r.launch_gaps_ns + (sync ? r.host_blocked_ns : 0.0)) / r.idle_ns);
        std::vector<std::string> stays;
        auto add = [&](double ns, const char* what) {
          if (ns > 0) stays.push_back(fmt::format("{:.2f} ms {}", ns * 1e-6, what));
        };
        add(r.host_work_ns, "of the host's work (outside CUDA calls, or in calls that wait for nothing)");
        if (!sync) add(r.host_blocked_ns, "of the host held in calls that wait for the GPU");
        add(r.poll_wait_ns, "of the host's polling");
        add(r.graph_node_gaps_ns, "between a graph's nodes");
        if (removable >= 1.0 || stays.empty()) continue;
        o.est_gain_pct *= removable;
        o.run_gain_pct *= removable;
        o.assumes += fmt::format("; of the GPU's idle time in {} ({:.2f} ms a range, typically), {} stay{}",
                                 stage.name, r.idle_ns * 1e-6, fmt::join(stays, ", "), stays.size() == 1 ? "s" : "");
      }
    }
  }
  for (auto& stage : run.stages) {
    stage.range.reset();
    if (auto it = times.find(&stage); it != times.end()) stage.range = it->second;
  }
  apply_range_bounds(run, t, &gap);
  // A program item for launch gaps is a share of the traced span; the others are shares of the kernels' time. On
  // one scale, the span's: a kernel item worth 40% of the kernels' time in a program idle half its span is worth
  // 20% of the run.
  if (!gap.empty() && gaps.overlap.span_ns > 0) {
    const double scale = std::min(1.0, owned_total(run, t) / gaps.overlap.span_ns);
    for (auto& stage : run.stages)
      for (auto& g : stage.kernels)
        if (g.analysis)
          for (auto& o : g.analysis->opportunities) o.run_share_pct *= scale, o.run_gain_pct *= scale;
    for (auto& o : run.program_opportunities) o.run_share_pct *= scale, o.run_gain_pct *= scale;
  }
  for (auto& o : gap) run.program_opportunities.push_back(std::move(o));

  return a;
}

}  // namespace kprof::analyze
