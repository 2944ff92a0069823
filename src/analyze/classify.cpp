#include "analyze/classify.hpp"

#include <cctype>
#include <algorithm>
#include <fmt/format.h>

namespace kprof::analyze {

namespace {

std::string pct(double v) { return fmt::format("{:.1f}%", v); }

// Names the SM pipe a non-tensor compute-bound kernel saturates, from the FLOPs that dominate.
std::string sm_pipe_unit(const CanonicalMetrics& m) {
  std::string p = m.dominant_precision();
  if (p == "fp32") return "FP32 pipe (SM)";
  if (p == "fp64" || p == "fp64_tensor") return "FP64 pipe (SM)";
  if (p == "fp16_vector") return "FP16 pipe (SM)";
  return "SM pipes";
}

void set_locality(Bottleneck& b, const CanonicalMetrics& m, const Thresholds& t, const DeclaredWork& declared,
                  std::string& extra) {
  if (!m.l2_hit_pct) return;
  const auto* th = t.find("l2_hit_pct");
  if (!th || th->healthy(*m.l2_hit_pct)) return;
  // A kernel that already moves (about) the minimum bytes has no reuse to gain: a low hit rate is expected.
  if (declared.min_bytes && *declared.min_bytes > 0 && m.dram_bytes &&
      *m.dram_bytes <= *declared.min_bytes * t.param("classify.streaming_bytes_ratio")) {
    extra = fmt::format(" L2 hit {} is expected: DRAM bytes are {:.2f}x the declared minimum (streaming).",
                        pct(*m.l2_hit_pct), *m.dram_bytes / *declared.min_bytes);
    return;
  }
  // Without a declaration: when the bytes requested from L1 are no more than what DRAM delivered, every byte
  // is used about once (a stream); there is no reuse for tiling to capture.
  if (m.l1_bytes && *m.l1_bytes > 0 && m.dram_bytes && *m.dram_bytes > 0 &&
      *m.l1_bytes <= *m.dram_bytes * t.param("classify.streaming_bytes_ratio")) {
    extra = fmt::format(" L2 hit {} is expected: the kernel requests {:.2f}x the bytes DRAM delivered (streaming, no"
                        " reuse to capture).",
                        pct(*m.l2_hit_pct), *m.l1_bytes / *m.dram_bytes);
    return;
  }
  b.locality_issue = true;
  extra = fmt::format(" L2 hit {} is under {}: if data is reused, tiling could cut traffic; a pure streaming"
                      " kernel cannot do better.",
                      pct(*m.l2_hit_pct), th->healthy_text());
}

}  // namespace

Bottleneck classify(const CanonicalMetrics& m, const Thresholds& t, const std::optional<RooflinePlacement>& roofline,
                    const DeclaredWork& declared) {
  Bottleneck b;
  const double busy = t.param("classify.busy_pct");
  const double saturated = t.param("classify.saturated_pct");
  const double gap = t.param("classify.balanced_gap_pct");
  const double tc_high = t.metric_value("tensor_pipe_pct");
  const double dram_high = t.metric_value("dram_throughput_pct");

  const auto sm = m.sm_throughput_pct;
  // Memory throughput is the max over memory units; DRAM alone is a lower bound when it is all we have.
  const auto mem = m.memory_throughput_pct ? m.memory_throughput_pct : m.dram_throughput_pct;
  const double tc = m.tensor_pipe_pct.value_or(0);
  const double dram = m.dram_throughput_pct.value_or(0);

  if (!sm && !mem && !m.tensor_pipe_pct && roofline && roofline->pct_of_roof > 0) {
    // Timing only (event mode, or counters missing) with work the plan declares: the roofline placement is all
    // there is. Near the roof it names the bound; below it, it says how far off the kernel is, not why.
    const RooflinePlacement& r = *roofline;
    const bool memory = r.bound_by == "memory";
    std::string level = r.memory_level;
    for (char& ch : level) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    const std::string roof = memory ? level + " bandwidth" : r.precision + " compute";
    b.rule = "declared_roofline";
    if (r.pct_of_roof >= saturated) {
      b.kind = memory ? BottleneckKind::memory : BottleneckKind::compute;
      b.unit = memory ? "DRAM" : r.precision + " math";
      b.key_issue = fmt::format("at {} of the {} roof (declared work)", pct(r.pct_of_roof), roof);
    } else {
      b.key_issue = fmt::format("{} of the {} roof (declared work)", pct(r.pct_of_roof), roof);
    }
    b.root_cause = fmt::format(
        "No hardware counters in this profile; from the work the plan declares, the kernel reaches {:.1f} TFLOP/s "
        "at {:.1f} FLOP/B, {} of the roof, which at that intensity is {}.{}",
        r.achieved_tflops, r.arithmetic_intensity, pct(r.pct_of_roof), roof,
        r.pct_of_roof >= saturated ? " Little is left to gain without doing less work."
                                   : " The cause needs counters: profile it in annotation mode.");
    return b;
  }
  if (!sm && !mem && !m.tensor_pipe_pct) {
    b.rule = "no_throughput_data";
    b.key_issue = "no throughput metrics";
    b.root_cause = "The profile has no SM, memory or tensor throughput metrics, so the bottleneck cannot be judged.";
    return b;
  }

  std::string locality;
  set_locality(b, m, t, declared, locality);

  if (m.dram_throughput_pct && dram >= dram_high && tc < tc_high) {
    b.kind = BottleneckKind::memory;
    b.unit = "DRAM";
    b.rule = "dram_high_tc_low";
    b.key_issue = dram >= saturated ? "DRAM bandwidth saturated" : "DRAM bandwidth bound";
    b.root_cause = fmt::format("DRAM throughput is {} of peak{}: time goes to moving bytes.{}", pct(dram),
                               m.tensor_pipe_pct ? " while the tensor pipe is at " + pct(tc) : std::string(), locality);
    return b;
  }
  if (m.tensor_pipe_pct && tc >= tc_high && dram < dram_high) {
    b.kind = BottleneckKind::compute;
    b.unit = "tensor pipe";
    b.rule = "tc_high_dram_low";
    b.key_issue = "tensor pipe bound";
    b.root_cause = fmt::format("The tensor pipe is active {} of the time with DRAM at {}: the kernel is limited by"
                               " tensor math.{}", pct(tc), pct(dram), locality);
    return b;
  }

  const double s = sm.value_or(0), mm = mem.value_or(0);
  if (std::max(s, mm) >= busy) {
    bool compute_side = s > mm;
    if (std::abs(s - mm) < gap) {
      // Too close to call from utilisation alone: the roofline side decides when known, else "balanced".
      if (!roofline) {
        b.kind = BottleneckKind::balanced;
        b.unit = "SM and memory";
        b.rule = "sol_balanced";
        b.key_issue = "balanced SM and memory load";
        b.root_cause = fmt::format("SM throughput {} and memory throughput {} are within {:g} points: both limit"
                                   " the kernel.{}", pct(s), pct(mm), gap, locality);
        return b;
      }
      compute_side = roofline->bound_by == "compute";
    }
    if (compute_side) {
      b.kind = BottleneckKind::compute;
      b.unit = tc >= tc_high ? "tensor pipe" : sm_pipe_unit(m);
      b.rule = "sol_sm_busy";
      b.key_issue = b.unit + " bound";
      b.root_cause = fmt::format("SM throughput is {} of peak against memory {}{}: the {} limits the kernel.{}",
                                 pct(s), pct(mm), m.tensor_pipe_pct ? ", with the tensor pipe at " + pct(tc) : std::string(),
                                 b.unit, locality);
    } else {
      b.kind = BottleneckKind::memory;
      const bool dram_side = m.dram_throughput_pct && dram >= mm - gap;
      b.unit = dram_side ? "DRAM" : "L1/L2 (on-chip memory)";
      b.rule = "sol_memory_busy";
      b.key_issue = dram_side ? "DRAM bandwidth bound" : "on-chip memory bound";
      b.root_cause = fmt::format("Memory throughput is {} of peak (DRAM {}) against SM {}: the {} limits the"
                                 " kernel.{}", pct(mm), pct(dram), pct(s), b.unit, locality);
    }
    return b;
  }

  b.kind = BottleneckKind::latency;
  b.rule = "sol_both_low";
  if (m.waves_per_sm && *m.waves_per_sm < t.metric_value("waves_per_sm")) {
    b.unit = "grid too small";
    b.key_issue = "grid too small";
    b.root_cause = fmt::format("SM {} and memory {} are both under {:g}% with {:.2f} waves per SM: the grid is too"
                               " small to fill the GPU.{}", pct(s), pct(mm), busy, *m.waves_per_sm, locality);
  } else {
    b.unit = "latency";
    b.key_issue = "latency bound";
    b.root_cause = fmt::format("SM {} and memory {} are both under {:g}%: warps wait on latency rather than"
                               " throughput.{}", pct(s), pct(mm), busy, locality);
  }
  return b;
}

}  // namespace kprof::analyze
