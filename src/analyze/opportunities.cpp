#include "analyze/opportunities.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "analyze/cause_ids.hpp"
#include "analyze/diagnosis.hpp"
#include "analyze/diagnosis_rule.hpp"
#include "analyze/remedies.hpp"
#include "analyze/rule_table.hpp"

namespace kprof::analyze {

namespace {

struct Candidate {
  Opportunity op;
  std::optional<RemedyId> remedy;  // op.remedy as kprof knows it; nullopt for an Nsight Compute rule it has none for
  double raw_gain = 0;            // fraction of kernel time, before the bounds
  bool bounded_by_unit = false;   // its estimate was cut to the binding unit's headroom
  bool contradicted = false;      // an Nsight Compute estimate kprof's own counters argue against (weighed down)
  bool roof_lever = false;        // the only lever of a unit at its roof (fewer bytes), with no figure
};

std::string first_sentence(const std::string& text) {
  auto pos = text.find(". ");
  std::string s = pos == std::string::npos ? text : text.substr(0, pos + 1);
  return s.size() > 200 ? s.substr(0, 197) + "..." : s;
}

bool has_occupancy_cause(const std::vector<Cause>& causes) {
  return std::any_of(causes.begin(), causes.end(), [](const Cause& c) {
    auto id = cause_id(c.id);
    return c.remedy == name(RemedyId::occupancy) || (id && cause_spec(*id).remedy == RemedyId::occupancy);
  });
}

// A plain bound naming one saturated unit (analyze/rule_table.hpp).
bool saturates_unit(const Cause& c) {
  auto id = cause_id(c.id);
  return !c.specific && id && throughput_bound(*id);
}

void from_causes(const std::vector<Cause>& causes, std::vector<Candidate>& out) {
  for (const auto& c : causes) {
    const std::optional<RemedyId> remedy = remedy_id(c.remedy);
    if (c.remedy.empty() || remedy == RemedyId::none) continue;
    const Remedy* r = remedy ? find_remedy(*remedy) : nullptr;
    Candidate k;
    k.op.name = r ? r->name : c.remedy;
    k.op.remedy = c.remedy;
    k.remedy = remedy;
    k.op.trigger_metric = c.id;
    k.op.trigger = c.trigger.empty() ? c.evidence : c.trigger;
    k.op.rationale = c.evidence + ". " + (r ? r->rationale : "");
    k.op.source = "kprof";
    if (remedy) k.op.assumes = remedy_assumption(*remedy);
    // A pipe bound's own remedy, when it cuts that pipe's instructions rather than raising its rate, is estimated as
    // the pipe's headroom all the same: a lower bound, since fewer instructions move the pipe's roof.
    if (c.id == name(CauseId::sfu_pipe) && remedy == RemedyId::mio_pressure)
      k.op.assumes = "the special-function pipe runs at its sustained peak (a lower bound: fewer MUFU instructions "
                     "move that roof)";
    k.raw_gain = c.gain_pct / 100.0;
    out.push_back(std::move(k));
  }
}

// kprof's own candidate for a remedy, from one measured metric.
Candidate measured_candidate(const Remedy& r, const char* metric, double value) {
  Candidate k;
  k.op.name = r.name;
  k.op.remedy = name(r.id);
  k.remedy = r.id;
  k.op.trigger_metric = metric;
  k.op.trigger_value = value;
  k.op.source = "kprof";
  return k;
}

// Whether the kernel's first cause is `cause` with nothing left to gain at its roof (remedy none): a unit at its roof,
// where only less work on that unit makes the kernel faster.
bool first_at_roof(const std::vector<Cause>& causes, CauseId cause) {
  return !causes.empty() && causes.front().id == name(cause) && causes.front().remedy == name(RemedyId::none);
}

// That unit's lever: the counters cannot say how much of its work the kernel needs, so the item has no figure and
// ranks as a roof lever (before items estimated under roof_lever_lead_max_pct). `op` holds its name, trigger and
// assumption; its rationale follows the first cause's evidence.
void push_roof_lever(const std::vector<Cause>& causes, RemedyId remedy, Opportunity op, std::vector<Candidate>& out) {
  Candidate k;
  k.remedy = remedy;
  k.op = std::move(op);
  k.op.remedy = name(remedy);
  k.op.rationale = causes.front().evidence + ": " + k.op.rationale;
  k.op.source = "kprof";
  k.op.estimated = false;
  k.roof_lever = true;
  out.push_back(std::move(k));
}

void dram_traffic(const std::vector<Cause>& causes, const CanonicalMetrics& m, const DeclaredWork& declared,
                  std::vector<Candidate>& out) {
  if (!has_cause(causes, CauseId::dram_bandwidth)) return;
  // At the DRAM roof, with no declared minimum (a program's kernel, not a package's stage): only fewer bytes make the
  // kernel faster, and kprof cannot tell how many of them the work needs, so the item has no figure. It leads a kernel
  // with nothing estimated at roof_lever_lead_max_pct or more (a three-pass softmax, a GEMV run once per query, a per-call cast of
  // fp32 weights, each at 95% or more of the measured roof on the H200).
  if (!declared.min_bytes && first_at_roof(causes, CauseId::dram_bandwidth)) {
    Opportunity op;
    op.name = "Move fewer DRAM bytes (fuse with the ops around it, a narrower dtype, read each input once)";
    op.trigger_metric = causes.front().trigger.substr(0, causes.front().trigger.find('='));
    op.trigger = causes.front().trigger + (m.dram_bytes ? fmt::format(", dram_bytes={:.3g} B", *m.dram_bytes) : "");
    op.rationale = "the kernel streams at the roof, so only moving fewer bytes makes it faster (fusing it with its "
                   "producer or consumer, a narrower dtype, reading each input once). With no declared minimum kprof "
                   "cannot tell how many of its bytes the work needs: the gain is the share of them removed.";
    op.assumes = "with no declared minimum of bytes, how many can go is unknown; the time falls with the share removed";
    push_roof_lever(causes, RemedyId::dram_traffic, std::move(op), out);
    return;
  }
  if (!declared.min_bytes || !m.dram_bytes || *m.dram_bytes <= *declared.min_bytes || *m.dram_bytes <= 0) return;
  const Remedy* r = find_remedy(RemedyId::dram_traffic);
  Candidate k = measured_candidate(*r, "dram_bytes", *m.dram_bytes);
  k.op.trigger = fmt::format("dram_bytes={:.3g} B (declared minimum {:.3g} B)", *m.dram_bytes, *declared.min_bytes);
  k.op.rationale = r->rationale;
  k.op.assumes = "the kernel moves only the declared minimum bytes, at today's bandwidth";
  k.raw_gain = 1.0 - *declared.min_bytes / *m.dram_bytes;
  out.push_back(std::move(k));
}

// At the measured L2 bandwidth (rules_bounds.cpp): only fewer L2 bytes make the kernel faster, data a block
// re-reads held in shared memory or registers; how many of the re-reads one block could keep kprof cannot tell (a
// stream over an L2-resident buffer that every block reads in turn keeps none).
void l2_traffic(const std::vector<Cause>& causes, const CanonicalMetrics& m, std::vector<Candidate>& out) {
  if (!first_at_roof(causes, CauseId::l2_bandwidth)) return;
  Opportunity op;
  op.name = "Re-read fewer bytes from L2 (hold what a block re-reads in shared memory or registers)";
  op.trigger_metric = "l2_measured_pct";
  op.trigger_value = m.l2_measured_pct.value_or(0);
  op.trigger = causes.front().trigger + (m.l2_bytes ? fmt::format(", l2_bytes={:.3g} B", *m.l2_bytes) : "");
  op.rationale = "the kernel streams at L2's roof, so only fewer L2 bytes make it faster, re-reads served from shared "
                 "memory or registers where one block reads the same data again. kprof cannot tell how many re-reads "
                 "a block could keep: the gain is the share of L2 bytes removed.";
  op.assumes = "how many L2 bytes can go is unknown; the time falls with the share removed";
  push_roof_lever(causes, RemedyId::onchip_reuse, std::move(op), out);
}

// At the special-function pipe's roof (rules_bounds.cpp): only fewer MUFU instructions make the kernel faster, and
// unlike an FP32 or FP64 pipe at its roof, that work can move to another pipe: a recurrence (sin and cos of k*theta
// by angle addition from one sincos), a polynomial or a table on the FMA pipe, which issues eight times as many
// instructions a cycle, or a call hoisted out of a loop (held-out set 26's Fourier series at 98% of the XU pipe: both
// blind labels name fewer MUFU instructions).
void sfu_work(const std::vector<Cause>& causes, const CanonicalMetrics& m, std::vector<Candidate>& out) {
  if (!first_at_roof(causes, CauseId::sfu_pipe)) return;
  Opportunity op;
  op.name = "Issue fewer special-function instructions (recurrences, FMA polynomials or tables for sin, cos, exp)";
  op.trigger_metric = "xu_pipe_pct";
  op.trigger_value = m.xu_pipe_pct.value_or(0);
  op.trigger = causes.front().trigger;
  op.rationale = "the special-function pipe runs at its roof, so only fewer MUFU instructions make the kernel faster. "
                 "Their work can move to the FMA pipe, which issues eight times as many instructions a cycle: sin and "
                 "cos of multiples of an angle by angle addition from one sincos, a short polynomial, a table in "
                 "shared memory, or a call hoisted out of a loop. kprof cannot tell how many can go: the gain is the "
                 "share of them removed.";
  op.assumes = "how many MUFU instructions can go is unknown; the time falls with the share removed";
  push_roof_lever(causes, RemedyId::mio_pressure, std::move(op), out);
}

// A kernel bound by the host link, reading host memory through L2 (rules_bounds.cpp): the data belongs in device
// memory, copied over once and read from there by every call after. The cause carries the gain: the same bytes at
// DRAM's rate. Where the kernel reads them once per copy, the copy takes the link time the kernel takes now.
void host_memory(const std::vector<Cause>& causes, const CanonicalMetrics& m, std::vector<Candidate>& out) {
  if (causes.empty() || causes.front().id != name(CauseId::host_link) ||
      !causes.front().trigger.starts_with(kHostLinkTrigger))
    return;
  const Cause& c = causes.front();
  // Having the data in device memory before the kernel runs: the prefetch remedy's own words (one asynchronous copy
  // into a device buffer), which blind labellers with that id name for this case (set 27's GEMV on mapped weights).
  const Remedy* r = find_remedy(RemedyId::prefetch);
  Candidate k = measured_candidate(*r, "sysmem_bytes", m.sysmem_bytes.value_or(0));
  k.op.name = "Keep the data in device memory (copy it over once and reuse it, not read across the host link each call)";
  k.op.trigger = c.trigger;
  // (The counter holds reads and writes alike: a kernel writing its output to mapped memory is told the same, the
  // output kept in device memory and copied back once.)
  k.op.rationale = fmt::format(
      "{}: the kernel reads (or writes) host memory (mapped pinned or zero-copy) at the link's rate, so the link, not "
      "the GPU, sets its time. Copied to device memory once (cudaMemcpyAsync, cudaMemPrefetchAsync for managed memory) "
      "and read from there, the same bytes take DRAM's time; an output written to device memory goes back in one "
      "copy when the host needs it. Only bytes the other side needs should cross at all.",
      c.evidence);
  k.op.assumes = "the data is reused across calls, so one copy serves them and each call reads it at DRAM's rate; "
                 "read once per copy, the copy costs the link time the kernel spends now";
  k.raw_gain = c.gain_pct / 100.0;
  out.push_back(std::move(k));
}

// Why the FP32 multiplies and adds left separate would not pair, or "" when they may: a compiler that contracts
// (nvcc's and Triton's default) turns every add of a product into an FFMA, so where it emitted FFMAs too the FADDs
// and FMULs left are ones no add takes the product of (softened gravity on the H200: 201 M FFMA against 201 M
// FADD + FMUL, the adds differences of positions and the multiplies a chain of r^-1/2 factors; Nsight Compute's
// FPInstructions rule estimated 17% for a kernel at its FMA roof).
std::string contraction_on(const CanonicalMetrics& m, const Thresholds& t) {
  if (!m.fp32_fusable_pairs || !m.fp32_fma_instructions || *m.fp32_fusable_pairs <= 0) return "";
  if (*m.fp32_fma_instructions <= t.param("opportunities.fp_fusable_max_fma_ratio") * *m.fp32_fusable_pairs) return "";
  return fmt::format("the compiler contracts: {:.3g} FFMA against {:.3g} FADD/FMUL pairs, so the adds left take no "
                     "product",
                     *m.fp32_fma_instructions, *m.fp32_fusable_pairs);
}

// FP32 multiplies and adds left separate (__fmul_rn/__fadd_rn, -fmad=false, a product rounded before it is added):
// each pair is one FFMA. The gain is the pairs' share of the FMA pipe's thread instructions at the pipe's busy
// share, the cycles that pipe would no longer spend; applies() keeps it to kernels their SM pipes bind. Nsight
// Compute's FPInstructions rule says the same in ncu mode; the annotation pass has the opcode counts too (a 64-tap
// FIR written with __fmul_rn/__fadd_rn on the H200: half of its FMA-pipe instructions, the pipe 77% busy).
void unfused_fp(const std::vector<Cause>& causes, const CanonicalMetrics& m, const Thresholds& t,
                std::vector<Candidate>& out) {
  if (!m.fp32_fusable_pairs || !m.fma_pipe_instructions || *m.fma_pipe_instructions <= 0 || !m.fma_pipe_pct) return;
  // Only where the FMA pipe or instruction issue binds: a kernel bound by the special-function pipe also multiplies
  // (the range reduction before MUFU.SIN) and adds, but no add takes those products (the designed sfu_trig kernel).
  if (!has_cause(causes, CauseId::fp32_pipe) && !has_cause(causes, CauseId::compute_bound)) return;
  const double share = std::min(1.0, *m.fp32_fusable_pairs / *m.fma_pipe_instructions);
  if (share < t.param("opportunities.fp_fusable_min_share") || !contraction_on(m, t).empty()) return;
  const Remedy* r = find_remedy(RemedyId::fp_instructions);
  Candidate k = measured_candidate(*r, "fp32_fusable_pairs", *m.fp32_fusable_pairs);
  k.op.trigger = fmt::format("fp32_fusable_pairs={:.3g}, fma_pipe_instructions={:.3g}, fma_pipe={:.1f}%",
                             *m.fp32_fusable_pairs, *m.fma_pipe_instructions, *m.fma_pipe_pct);
  k.op.rationale = fmt::format(
      "{:.0f}% of the FMA pipe's instructions are FP32 multiplies with an add to pair them (min of FADD and FMUL "
      "counts), the pipe busy {:.1f}% of active cycles. {}",
      share * 100.0, *m.fma_pipe_pct, r->rationale);
  k.op.assumes = "each FADD/FMUL pair becomes one FFMA (an upper bound: only an add of the product pairs), and the "
                 "FMA pipe's busy cycles fall with its instructions";
  k.raw_gain = share * std::clamp(*m.fma_pipe_pct / 100.0, 0.0, 1.0);
  out.push_back(std::move(k));
}

// Why kprof's own counters contradict an access-pattern or occupancy rule of Nsight Compute, or "" when they do not
// (or are missing; an occupancy rule is contradicted whenever kprof's occupancy rules found no occupancy cause). Its
// estimate assumes the excess sectors or conflict wavefronts cost time; on average-coalesced loads the excess comes
// from a few instructions whose sectors mostly hit L1 (PyTorch's layer/RMS norm and max pooling on the H200: 8
// sectors per request, Nsight Compute estimated 42-54%).
std::string contradicted(std::optional<RemedyId> remedy, const std::vector<Cause>& causes, const CanonicalMetrics& m,
                         const Thresholds& t, std::string_view rule_text = {}) {
  // A library kernel whose idle tensor pipe kprof traces to the call: a change to the kernel's own code (its
  // access pattern, shared-memory layout, spills) is not the user's to make (a cuBLAS GEMM on an sm80 CUTLASS kernel
  // for N = 4100 on the H200: Nsight Compute's coalescing estimate 76%, the fix a padded N).
  if (remedy && !causes.empty() && causes.front().id == name(CauseId::tensor_underfed) &&
      causes.front().remedy == name(RemedyId::library_tuning) &&
      in_kernel(*remedy))
    return "kprof finds a library kernel's tensor pipe underfed: its code is not the caller's to change";
  // kprof's FP32 counts say nothing of the rule's FP64 finding (it reports DADD/DMUL/DFMA under the same name).
  const bool fp64 = rule_text.find("FP64") != std::string_view::npos;
  if (remedy == RemedyId::fp_instructions && !fp64) {
    if (auto why = contraction_on(m, t); !why.empty()) return why;
    // kprof's own count of FADD/FMUL pairs: where it finds too few to matter, the instructions Nsight Compute calls
    // non-fused are adds or multiplies with no partner to fuse with (cdist's L1 distance on the H100: 205 M FP32
    // instructions, subtractions and adds of absolute values, no multiply; the rule estimated 17%). Of the FMA
    // pipe's thread instructions, as kprof's own item counts them, or where the export has no such count (ncu
    // mode) of the FP32 instructions: FADD + FMUL + FFMA, the FP32 operations less one per FFMA.
    const bool pipe = m.fma_pipe_instructions && *m.fma_pipe_instructions > 0;
    const double of = pipe ? *m.fma_pipe_instructions
                           : m.flops_fp32.value_or(0) - m.fp32_fma_instructions.value_or(0);
    if (m.fp32_fusable_pairs && of > 0 && *m.fp32_fusable_pairs / of < t.param("opportunities.fp_fusable_min_share"))
      return fmt::format("kprof counts {:.3g} FADD/FMUL pairs ({} of the {}): the separate adds and multiplies have "
                         "no partner to fuse with",
                         *m.fp32_fusable_pairs, pct(*m.fp32_fusable_pairs / of),
                         pipe ? "FMA pipe's instructions" : "FP32 instructions");
    // Fused FP32 instructions relieve the FMA pipe and issue, not the integer, special-function, FP64 or tensor
    // pipe binding the kernel (Triton's dropout on the H200: its FMA pipe busy with IMADs of the random-number
    // hash, 0.4% of its instructions FP32 pairs; Nsight Compute estimated 8%).
    if (!causes.empty() && !has_cause(causes, CauseId::fp32_pipe) && !has_cause(causes, CauseId::compute_bound))
      for (const auto& c : causes)
        if (saturates_unit(c)) return fmt::format("kprof finds the kernel {}, which FP32 fusion does not relieve", c.label);
  }
  if (remedy == RemedyId::coalesce && !has_cause(causes, CauseId::uncoalesced_global) &&
      !has_cause(causes, CauseId::scattered_access)) {
    auto ld = m.load_sectors_per_request(), st = m.store_sectors_per_request();
    if (!ld && !st) return "";
    const double spr = std::max(ld.value_or(0), st.value_or(0));
    if (spr <= t.param("opportunities.coalesced_max_sectors"))
      return fmt::format("kprof measures {:.1f} sectors per global request on average, coalesced", spr);
  }
  // ThreadDivergence estimates from the lanes masked off, wherever they idle: kprof's own divergence rule needs fewer
  // than divergence_threads active lanes per instruction. Lanes that a shrinking step leaves idle while whole warps
  // wait at the block's barrier are the barrier's cost, which balancing the work per step removes (set 50's binomial
  // trees: 32 of 32 lanes active per executed instruction, 53% of the waiting at barriers, ncu 21%, counted from the
  // lanes its predicates turn off; the labels and the fix experiment: fewer barriers per step, realised 16.7%).
  if (remedy == RemedyId::divergence && !has_cause(causes, CauseId::warp_divergence) && m.threads_per_instruction &&
      *m.threads_per_instruction >= t.param("diagnosis.divergence_threads"))
    return fmt::format("kprof measures {:.1f} of 32 threads active per executed instruction", *m.threads_per_instruction);
  // Nsight Compute's occupancy rules estimate from the warps missing (theoretical, or achieved against
  // theoretical), whatever bounds the kernel. More warps only hide latency: they cannot speed up a kernel bound by a
  // unit near its peak, nor one whose occupancy already hides its latency (kprof's own occupancy cause needs a
  // theoretical occupancy at/under diagnosis.occupancy_low_pct in a latency-bound kernel, or one busy by issue
  // alone with slots to spare). On the H200: cuBLAS's
  // DRAM-bound batched GEMM and short-K linear at 3 warps per scheduler by design (ncu 28% and 15%), PyTorch's
  // fused AdamW at 50% (ncu 28%).
  if (remedy == RemedyId::occupancy && !has_occupancy_cause(causes)) {
    for (const auto& c : causes)
      if (saturates_unit(c))
        return fmt::format("kprof finds the kernel {}: more warps cannot raise a unit near its peak", c.label);
    if (m.theoretical_occupancy_pct && *m.theoretical_occupancy_pct > t.param("diagnosis.occupancy_low_pct"))
      return fmt::format("a theoretical occupancy of {:.1f}% already hides latency by kprof's threshold ({:.0f}%)",
                         *m.theoretical_occupancy_pct, t.param("diagnosis.occupancy_low_pct"));
    // Nsight Compute's occupancy rules estimate the share of warp slots left empty, whether or not more warps would
    // be waited on; kprof's occupancy rules weigh that against the stalls and the issue room, and found no limit
    // binding (cuDNN's 7x7 stem conv on the H200: 2 warps per scheduler by design, its time in bank-conflict
    // replays; ncu 28%).
    return "kprof's occupancy rules do not find too few warps to be what slows this kernel";
  }
  // LaunchConfiguration's partial-wave estimate is the last wave's empty share, however many full waves come
  // before it: 3.88 waves (PyTorch's Welford var_mean) or 1.78 (a column mean) leave the GPU idle for a small part
  // of the run, which kprof's own tail rule (waves / ceil(waves) under diagnosis.tail_wave_efficiency) weighs.
  if (remedy == RemedyId::whole_waves && !has_cause(causes, CauseId::tail_wave) && m.waves_per_sm &&
      *m.waves_per_sm >= 1.0) {
    const double w = *m.waves_per_sm, full = std::ceil(w - 0.005);
    return fmt::format("kprof finds the last of {:.2f} waves leaves {:.0f}% of the run's block slots idle", w,
                       (1.0 - w / full) * 100.0);
  }
  if (remedy == RemedyId::smem_conflicts && !has_cause(causes, CauseId::smem_bank_conflicts)) {
    auto share = m.bank_conflict_share();
    if (share && *share < t.param("diagnosis.bank_conflict_share"))
      return fmt::format("kprof counts {:.0f}% of shared-memory wavefronts as conflicts", *share * 100.0);
  }
  return "";
}

void from_ncu_rules(const std::vector<RuleResult>& rules, const std::vector<Cause>& causes, const CanonicalMetrics& m,
                    const Thresholds& t, std::vector<Candidate>& out) {
  const double local_weight = t.param("opportunities.local_speedup_weight");
  for (const auto& rule : rules) {
    if (rule.type != "OPT" || !rule.speedup_pct || *rule.speedup_pct <= 0) continue;
    auto cat = t.ncu_categories.find(rule.name);
    // The data file names a remedy, or "information" for a rule that proposes no change.
    const std::string category = cat != t.ncu_categories.end() ? cat->second : "";
    if (category == "information") continue;
    std::optional<RemedyId> remedy = remedy_id(category);
    // The same rule names different remedies depending on what kprof found.
    if (remedy == RemedyId::grid_fill && m.waves_per_sm && *m.waves_per_sm >= 1.0) remedy = RemedyId::whole_waves;
    if (remedy == RemedyId::coalesce && has_cause(causes, CauseId::scattered_access)) remedy = RemedyId::locality;
    if (remedy == RemedyId::coalesce && has_cause(causes, CauseId::local_memory) &&
        !has_cause(causes, CauseId::uncoalesced_global))
      remedy = RemedyId::local_memory;
    // Conflicts kprof traced to contending shared atomics (detect_bank_conflicts defers to them): fewer colliding
    // updates remove them, padding does not.
    const bool conflicts = remedy == RemedyId::smem_conflicts;
    if (conflicts && has_cause(causes, CauseId::atomic_contention) && !has_cause(causes, CauseId::smem_bank_conflicts) &&
        m.shared_atomic_wavefronts_per_instruction().value_or(0) >= t.param("diagnosis.shared_atomic_wavefronts_per_inst") &&
        m.shared_atomic_share().value_or(0) >= t.param("diagnosis.shared_atomic_share_min"))
      remedy = RemedyId::atomics;
    const Remedy* r = remedy ? find_remedy(*remedy) : nullptr;
    const bool local = rule.speedup_type == "local";
    Candidate k;
    k.op.name = r ? r->name : rule_short_name(rule.name);
    k.op.remedy = r ? std::string(name(r->id)) : "ncu:" + rule.name;
    if (r) k.remedy = r->id;
    k.op.trigger_metric = "ncu:" + rule.name;
    k.op.trigger_value = *rule.speedup_pct;
    k.op.trigger = fmt::format("ncu {} estimated {:.3g}% ({})", rule.name, *rule.speedup_pct,
                               rule.speedup_type.empty() ? "unspecified" : rule.speedup_type);
    k.op.rationale = first_sentence(rule.description);
    k.op.source = "ncu:" + rule.name;
    k.raw_gain = *rule.speedup_pct / 100.0 * (local ? local_weight : 1.0);
    k.op.assumes = fmt::format("Nsight Compute's {} estimate{}", rule.name,
                               local ? fmt::format(" (a local speedup, weighed by {:g})", local_weight) : "");
    if (auto against = contradicted(remedy, causes, m, t, rule.description); !against.empty()) {
      k.raw_gain *= t.param("opportunities.uncorroborated_rule_weight");
      k.op.rationale += " (weighed down: " + against + ")";
      k.contradicted = true;
    }
    // Conflict replays cost time only while warps wait on shared memory: the conflict rules' estimate (the share
    // of excess wavefronts) cannot exceed the share of stalls spent so (CUB's select sweep on the H200: 40%
    // estimated, 12% of stalls on shared memory, latency-bound on global loads).
    if (auto wait = m.shared_wait_share(); conflicts && wait && k.raw_gain > *wait) {
      k.raw_gain = *wait;
      k.op.rationale += fmt::format(" (bounded by the {:.0f}% of warp stalls waiting on shared memory)", *wait * 100.0);
    }
    out.push_back(std::move(k));
  }
}

bool hides_latency(std::optional<RemedyId> remedy) {
  return remedy == RemedyId::occupancy || remedy == RemedyId::memory_parallelism ||
         remedy == RemedyId::pipe_throughput;
}

// Remedies that leave the binding unit's work as it is: with one unit saturated they gain at most that unit's
// remaining headroom. Only these cut it: for DRAM, fewer bytes (coalescing, locality, no local memory, less
// traffic, on-chip reuse); for a pipe, fewer instructions on it (uniform warps, fused FP instructions); and a
// partial last wave idles either (whole waves). Tensor cores and launch overhead change the roof itself.
bool beside_the_unit(std::optional<RemedyId> remedy, const std::string& unit) {
  using R = RemedyId;
  if (!remedy) return true;
  if (unbounded_by_floor(*remedy) || remedy == R::whole_waves) return false;
  if (unit == name(CauseId::dram_bandwidth))
    return !(remedy == R::coalesce || remedy == R::locality || remedy == R::local_memory || remedy == R::dram_traffic ||
             remedy == R::onchip_reuse || remedy == R::dram_bandwidth);
  // A pipe's busy share is per active SM: more blocks for idle SMs are not bounded by it. Removing local arrays
  // removes the integer and FP32 instructions that address them, not the tensor or FP64 work.
  if (remedy == R::local_memory)
    return !(unit == name(CauseId::int_pipe) || unit == name(CauseId::fp32_pipe) || unit == name(CauseId::fp16_pipe));
  // FP-instruction fusion and uniform warps cut CUDA-core instructions, not tensor-pipe work.
  if (unit == name(CauseId::tensor_pipe))
    return !(remedy == R::pipe_throughput || remedy == R::feed_tensor || remedy == R::library_tuning ||
             remedy == R::grid_fill);
  return !(remedy == R::divergence || remedy == R::fp_instructions || remedy == R::pipe_throughput ||
           remedy == R::feed_tensor || remedy == R::library_tuning || remedy == R::grid_fill);
}

// Remedies that cannot help given what else was found.
bool applies(std::optional<RemedyId> remedy, const std::vector<Cause>& causes) {
  // A kernel whose launch cost rivals its work: only removing launches helps; its counters describe a few blocks.
  if (!causes.empty() && causes.front().id == name(CauseId::launch_overhead))
    return remedy == RemedyId::launch_overhead;
  const bool launch_bound = has_cause(causes, CauseId::launch_overhead);
  const bool contention = has_cause(causes, CauseId::atomic_contention);
  if ((remedy == RemedyId::grid_fill || remedy == RemedyId::occupancy || remedy == RemedyId::whole_waves) &&
      (launch_bound || contention))
    return false;
  // A grid under one wave leaves block slots empty already: a higher occupancy limit adds no resident warps
  // (Nsight Compute's occupancy rules still estimate it; on the H200 for PyTorch's batch-norm statistics, 256
  // blocks, 0.48 waves: 52%).
  if (remedy == RemedyId::occupancy && has_cause(causes, CauseId::grid_too_small)) return false;
  // Fusing FP multiplies and adds saves pipe instructions: it helps only a kernel its SM pipes bind (Nsight
  // Compute's FPInstructions rule fires on a DRAM-bound bf16 multiply too).
  if (remedy == RemedyId::fp_instructions && !causes.empty()) {
    // The lead's kind, or, for a cause of no kind of its own (a partial last wave), that of the bound it explains.
    std::optional<BottleneckKind> kind;
    for (const auto& c : causes)
      if (auto id = cause_id(c.id); id && cause_spec(*id).kind && (!kind || !c.specific)) {
        kind = cause_spec(*id).kind;
        break;
      }
    if (kind && *kind != BottleneckKind::compute) return false;
  }
  // Tensor-core advice is for matrix math only: kprof proposes it only for kernels it recognises as matmuls.
  return true;
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

namespace {
// A demangled signature's qualified function name, without its template arguments and parameters:
// "void at::native::(anonymous namespace)::layer_norm<float>(int)" → "void at::native::(anon)::layer_norm". A user's
// kernel instantiated on a library's types (my_gemm<cutlass::half_t>, block_sum<cub::Sum>) is still the user's; only
// a name that says nothing is read with its template arguments (kernel_owner).
std::string qualified_name(std::string signature) {
  for (std::size_t at; (at = signature.find("(anonymous namespace)")) != std::string::npos;)
    signature.replace(at, 21, "(anon)");
  std::size_t end = 0;
  while (end < signature.size() && signature[end] != '<' &&
         !(signature[end] == '(' && signature.compare(end, 6, "(anon)") != 0))
    end += signature.compare(end, 6, "(anon)") == 0 ? 6 : 1;
  return signature.substr(0, end);
}
}  // namespace

std::string kernel_owner(const std::string& kernel, const std::string& signature, const Thresholds& t) {
  // A kernel whose name says nothing (cuSOLVER's `kernel<getrf_wo_pivot_params_<double, ...>>`) is known by its
  // template arguments where they name a library's parameter type (diagnosis.library_parameter_type_names), not any
  // library name: a user's `kernel<cub::Sum>` or `k<cutlass::half_t>` stays the user's.
  const std::string name = qualified_name(signature);
  if (names_match(name.rfind("void ", 0) == 0 ? name.substr(5) : name, t, "diagnosis.generic_kernel_names")) {
    const std::size_t open = name.size(), params = signature.find('(', open);
    const std::string arguments = signature.substr(open, params == std::string::npos ? std::string::npos : params - open);
    if (names_match(arguments, t, "diagnosis.library_parameter_type_names")) return "A library's";
  }
  if (library_kernel_name(kernel, name, t)) return "A library's";
  if (names_match(kernel, t, "diagnosis.framework_kernel_names") ||
      names_match(name, t, "diagnosis.framework_kernel_names"))
    return "PyTorch's";
  return "";
}

void call_level_items(std::vector<Opportunity>& ops, const std::string& owner, std::vector<std::string>* notes) {
  using R = RemedyId;
  if (owner.empty()) return;
  // What in the call reaches the end a kernel-level remedy would: the access order follows the input's layout, the
  // grid follows the shape, and anything else in the code takes another implementation.
  auto hint = [](R r) -> std::pair<const char*, const char*> {
    if (r == R::coalesce || r == R::wider_accesses || r == R::locality)
      return {"a layout the kernel reads in order",
              "feed it a layout it reads in order (a contiguous input, another memory format or dimension order, "
              "sorted indices)"};
    if (r == R::grid_fill || r == R::whole_waves || r == R::imbalance || r == R::block_balance)
      return {"a shape that fills the GPU",
              "give it a shape that fills the GPU evenly (batch the calls, put the long dimension across blocks, "
              "split uneven work)"};
    if (r == R::atomics)
      return {"no contended atomics",
              "choose a call that does not pile atomic updates on few addresses (sorted or unique indices, a "
              "segment-sum or scatter_reduce path, a histogram op)"};
    if (r == R::tensor_cores)
      return {"a math mode or dtype on the tensor cores",
              "let the library run it on the tensor cores (TF32 math for FP32 inputs: "
              "torch.backends.cuda.matmul.allow_tf32 or cublasSetMathMode; BF16/FP16 inputs), or take another "
              "implementation of the op"};
    if (r == R::dram_traffic)
      return {"fewer bytes moved",
              "have it move fewer bytes (a narrower dtype, a size or variant the library does in fewer passes, a "
              "fused op or epilogue so that its neighbours do not write or re-read what it reads or writes)"};
    if (r == R::dram_bandwidth || r == R::memory_parallelism)
      return {"a layout and dtype it streams",
              "let it stream (a contiguous, aligned input, a narrower dtype, fewer and larger calls) or take another "
              "implementation of the op"};
    return {"another implementation of the op",
            "take another implementation (arguments or a dtype that select another path, another op, a backend "
            "flag such as cudnn.benchmark, or a generated kernel from torch.compile or Triton)"};
  };
  std::optional<std::size_t> call;  // index into `out` of the one "change the call" item
  std::vector<Opportunity> out;
  for (auto& o : ops) {
    const std::optional<R> r = remedy_id(o.remedy);
    const bool callers = !r || *r == R::none || *r == R::launch_overhead ||
                         *r == R::fuse_stages || *r == R::overlap_stages ||
                         *r == R::host_sync || *r == R::host_work;
    if (callers) {
      out.push_back(std::move(o));
      continue;
    }
    // Fewer bytes moved is a change of its own to the call (a dtype, a size, a fused op), often without a figure
    // (how many bytes the work needs is unknown): its item stands apart, neither taking in the kernel's other call
    // items (whose estimates it would hide) nor taken in by them; a fusion of its group drops it alone
    // (analyze_run).
    const bool apart = *r == R::dram_traffic;
    if (*r != R::library_tuning) {
      const auto [what, how] = hint(*r);
      o.kernel_remedy = o.remedy;
      o.rationale = fmt::format("{} kernel: its code is not the caller's to change, so {} is reached through the "
                                "call: {}. What the kernel's own code would need (\"{}\", for whoever replaces it): {}",
                                owner, o.remedy, how, o.name, o.rationale);
      o.name = fmt::format("Change the call ({})", what);
      o.assumes = apart ? fmt::format("a call that moves fewer bytes saves what \"{}\" would save inside the kernel "
                                      "({})",
                                      o.remedy, o.assumes.empty() ? "the share of its bytes removed" : o.assumes)
                        : fmt::format("a call that avoids it saves what \"{}\" would save inside the kernel", o.remedy);
      o.remedy = name(R::library_tuning);
    }
    if (apart) {
      out.push_back(std::move(o));
      continue;
    }
    if (call) {
      // One item for the call: the others it covers are named in it.
      const std::string what = o.kernel_remedy.empty() ? o.name : o.kernel_remedy;
      out[*call].rationale += fmt::format(" Also: {} ({:.0f}%).", what, o.est_gain_pct);
      if (notes)
        notes->push_back(fmt::format("also reached through the call: {} ({:.0f}%, {}): {}", what, o.est_gain_pct,
                                     o.source, o.rationale));
      continue;
    }
    call = out.size();
    out.push_back(std::move(o));
  }
  ops = std::move(out);
}

std::vector<Opportunity> find_opportunities(const std::vector<Cause>& causes, const CanonicalMetrics& m,
                                            const std::vector<RuleResult>& rules, const Thresholds& t,
                                            const DeclaredWork& declared, double headroom,
                                            std::vector<std::string>* set_aside) {
  std::vector<Candidate> all;
  from_causes(causes, all);
  dram_traffic(causes, m, declared, all);
  l2_traffic(causes, m, all);
  sfu_work(causes, m, all);
  host_memory(causes, m, all);
  unfused_fp(causes, m, t, all);
  from_ncu_rules(rules, causes, m, t, all);
  // A kernel whose tiles arrive by bulk copies (its memory-latency cause read so: no LSU loads) has no loads to widen
  // or unroll: more in flight means the next tile's copy issued before this tile's math (set 35's TMA kernel).
  if (!causes.empty() && causes.front().id == name(CauseId::memory_latency) &&
      causes.front().label == kBulkCopiesTakeTurns)
    for (auto& c : all)
      if (c.remedy == RemedyId::memory_parallelism) {
        c.op.name = "Overlap the bulk copies with the math (a second tile buffer: issue tile t+1's copy before "
                    "computing tile t, or two blocks per SM)";
        c.op.rationale = "Each tile's bulk copy (TMA) is waited for before its math, so DRAM and the pipes take turns; "
                         "with the next copy in flight during the math, the kernel takes the busier unit's time.";
      }
  // A kernel that already issues warpgroup MMAs (its warps wait on them: the gmma stall) is not told to adopt wgmma;
  // feeding its tensor cores means keeping more of them in flight (Triton's 128x256x64 matmul on the H200, tensor
  // pipe 78%).
  if (m.stalls.count("gmma") && m.stalls.at("gmma") > 0)
    for (auto& c : all)
      if (c.remedy == RemedyId::feed_tensor) {
        c.op.name = "Keep the warpgroup MMAs fed (a deeper TMA pipeline, larger tiles, a persistent or "
                    "warp-specialised schedule)";
        c.op.rationale += " The kernel already issues warpgroup MMAs: what is left is keeping more of them in "
                          "flight, with operand tiles arriving ahead of them.";
      }

  const double max_gain = t.param("diagnosis.max_gain_pct") / 100.0;
  double cap = std::min(std::clamp(headroom, 0.0, 1.0), max_gain);
  // A kernel whose bottleneck sits at its roof (remedy "none": a pipe or DRAM at its peak) has only that roof's
  // remaining capacity to give, whatever another rule estimates.
  // Cutting traffic moves that roof itself: only the documented cap bounds it.
  double traffic_cap = max_gain;
  // (Not the grid's item under a pipe or L1 at its roof: those bound only the SMs that have work, and the idle SMs
  // gain in full: cause_ranking.cpp's grid_leads_saturated_min_gain_pct.)
  double grid_cap = cap;
  if (!causes.empty() && causes.front().remedy == name(RemedyId::none)) {
    const auto lead = cause_id(causes.front().id);
    if (!lead || !per_sm_unit(*lead)) grid_cap = std::min(grid_cap, causes.front().gain_pct / 100.0);
    cap = std::min(cap, causes.front().gain_pct / 100.0);
  }
  // Remedies that hide latency (more warps, more independent instructions or requests in flight) can at best
  // fill the cycles in which the scheduler issued nothing: a kernel issuing on 90% of its active cycles has at
  // most 10% of its time to win that way, whatever a stall-based estimate says.
  const double issue_room =
      m.issue_active_pct ? std::clamp(1.0 - *m.issue_active_pct / 100.0, 0.0, 1.0) : 1.0;
  // A kernel bound by one unit (a pipe or DRAM near its reachable peak): more warps, more work in flight, more
  // blocks or fewer conflicts elsewhere only let that unit run closer to its peak, so they gain at most the unit's
  // remaining headroom (the plain bound's own estimate), however much a stall-based rule promises.
  std::optional<double> unit_room;
  std::string unit_label, unit_id;
  for (const auto& c : causes)
    if (saturates_unit(c)) {
      unit_room = std::max(c.gain_pct / 100.0, 0.0);
      unit_label = c.label;
      unit_id = c.id;
      break;
    }
  std::map<std::string, std::size_t> best;  // remedy → index into kept
  std::vector<Candidate> kept;
  for (auto& c : all) {
    if (!applies(c.remedy, causes)) continue;
    // A traffic cut kprof measured itself (its own cause names that remedy) moves the floor; an Nsight Compute
    // estimate kprof has no cause for does not.
    // The declared minimum against the measured bytes is such a measurement too (the declared dram_traffic item): a
    // stage at the DRAM roof moving nine times its minimum saves most of its time, not the roof's last percent.
    // Likewise FP32 pairs kprof counted: fewer instructions move a pipe's roof as fewer bytes move DRAM's.
    const bool measured_cut = (c.remedy && cuts_traffic(*c.remedy) &&
                               ((*c.remedy == RemedyId::dram_traffic && c.op.estimated && c.op.source == "kprof") ||
                                std::any_of(causes.begin(), causes.end(), [&](const Cause& k) {
                                  return k.specific && k.remedy == name(*c.remedy);
                                }))) ||
                              (c.remedy == RemedyId::fp_instructions && c.op.source == "kprof");
    double bound = c.remedy && unbounded_by_floor(*c.remedy) ? max_gain
                   : measured_cut                                 ? traffic_cap
                   : c.remedy == RemedyId::grid_fill              ? grid_cap
                                                                  : cap;
    std::string why;
    if (hides_latency(c.remedy) && issue_room < bound) {
      bound = issue_room;
      why = fmt::format("{:.0f}% of active cycles without an issued instruction", issue_room * 100.0);
    }
    // Nor is spreading uneven blocks over SMs that idle much of the kernel's time (under imbalance_sm_active_max_pct
    // active): the SMs that drew short blocks gain in full (set 12's skewed blocks: SMs active 16% of the time, the
    // FP32 pipe 64% busy on the active ones). An imbalance between the sub-partitions of busy SMs stays bounded.
    const bool to_idle_sms = c.remedy == RemedyId::imbalance && m.sm_active_pct &&
                             *m.sm_active_pct < t.param("diagnosis.imbalance_sm_active_max_pct");
    if (unit_room && !to_idle_sms && beside_the_unit(c.remedy, unit_id) && *unit_room < bound) {
      bound = *unit_room;
      why = fmt::format("{:.0f}% headroom left by the binding unit ({})", *unit_room * 100.0, unit_label);
      c.bounded_by_unit = c.raw_gain > bound;
    }
    if (!why.empty() && c.raw_gain > bound) c.op.rationale += " (bounded by the " + why + ")";
    c.op.est_gain_pct = std::min(std::max(c.raw_gain, 0.0), bound) * 100.0;
    auto it = best.find(c.op.remedy);
    if (it == best.end()) {
      best[c.op.remedy] = kept.size();
      kept.push_back(std::move(c));
      continue;
    }
    Candidate& have = kept[it->second];
    // One estimate per remedy, the same in every mode: kprof's where its own cause proposes the remedy (its formula
    // is documented and weighs the stalls and the binding unit; Nsight Compute's access-pattern and occupancy
    // estimates are shares of excess sectors or empty warp slots, not of time: 87% for coalescing an under-filled
    // pointer chase whose grid leaves 55% of the SMs idle), else the larger; the other source is named.
    const bool have_kprof = have.op.source == "kprof", c_kprof = c.op.source == "kprof";
    Candidate& other = have_kprof != c_kprof ? (have_kprof ? c : have)
                                             : (c.op.est_gain_pct > have.op.est_gain_pct ? have : c);
    std::string also = other.op.source;
    if (&other == &have) std::swap(have, c);
    if (also != have.op.source && have.op.rationale.find(also) == std::string::npos)
      have.op.rationale += " (also suggested by " + also + ")";
  }
  // Dropped below the floor only after the merge: an Nsight Compute estimate for a remedy kprof weighed at under
  // 1% does not come back in its place.
  std::erase_if(kept, [&](const Candidate& c) {
    return c.op.estimated && c.op.est_gain_pct < t.param("opportunities.min_gain_pct");
  });
  // An estimate kprof's counters contradict ranks after those they do not (sort's and a 2D FFT's occupancy on the
  // H200, weighed down to 12% and 9%, came before kprof's own bank-conflict items); equal bounded gains (several
  // capped by the same headroom) rank by the unbounded estimate, after the remedies that act on the binding unit
  // itself (its own remedy carries exactly that headroom).
  // An item without a figure ranks after every item with one, contradicted or not, except the one lever of a unit at
  // its roof (fewer DRAM or L2 bytes): it ranks before items worth under roof_lever_lead_max_pct, the small change
  // left (Nsight Compute's 7% workload imbalance beside a stream at the L2 roof), it the only large one. (The
  // contract's top 3 ranks by run gain and keeps each kernel's order: render/contract_view.cpp.)
  const double lever_over = t.param("opportunities.roof_lever_lead_max_pct");
  std::stable_sort(kept.begin(), kept.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.roof_lever != b.roof_lever) {
      const Candidate& other = a.roof_lever ? b : a;
      if (!other.op.estimated || other.contradicted || other.op.est_gain_pct < lever_over) return a.roof_lever;
      return !a.roof_lever;
    }
    if (a.op.estimated != b.op.estimated) return a.op.estimated;
    if (a.contradicted != b.contradicted) return !a.contradicted;
    if (a.op.est_gain_pct != b.op.est_gain_pct) return a.op.est_gain_pct > b.op.est_gain_pct;
    if (a.bounded_by_unit != b.bounded_by_unit) return !a.bounded_by_unit;
    return a.raw_gain > b.raw_gain;
  });
  // Nor does such an estimate lead: where kprof's counters argue against every item left, the kernel has no
  // opportunity kprof stands behind, and each item is set aside with the reason (Nsight Compute's store-pattern
  // estimate of 66% for PyTorch's argmax on the H200, its integer pipe at its roof and its 16 sectors per request
  // coalesced, led as "coalesce, 11%").
  // An item without a figure does not count for this: it stands beside nothing to weigh.
  if (std::any_of(kept.begin(), kept.end(), [](const Candidate& c) { return c.contradicted; }) &&
      std::all_of(kept.begin(), kept.end(), [](const Candidate& c) { return c.contradicted || !c.op.estimated; })) {
    if (set_aside)
      for (const auto& c : kept)
        if (c.contradicted)
          set_aside->push_back(fmt::format("not ranked, kprof's counters argue against it: {} ({}) — {}", c.op.name,
                                           c.op.source, c.op.rationale));
    std::erase_if(kept, [](const Candidate& c) { return c.contradicted; });
  }
  std::vector<Opportunity> out;
  for (auto& c : kept) out.push_back(std::move(c.op));
  return out;
}

}  // namespace kprof::analyze
