// The plain bounds: which unit (DRAM, a pipe, L2, L1) or latency limits a kernel, named after its busiest unit
// the way Nsight Compute's speed-of-light section reads.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analyze/diagnosis_rule.hpp"

namespace kprof::analyze {
namespace {

// How many times over its global loads fetch what DRAM reads (each load sector 32 bytes): about 1 for a kernel that
// streams its input, tens and more for one that gathers the same bytes again.
std::optional<double> loads_per_dram_read(const CanonicalMetrics& m) {
  if (!m.global_load_sectors || !m.dram_read_bytes || *m.dram_read_bytes <= 0) return std::nullopt;
  return *m.global_load_sectors * 32.0 / *m.dram_read_bytes;
}

// A latency-bound kernel whose warps wait on no one reason for at least latency_stall_share of their waiting time,
// and whose theoretical occupancy is under mixed_wait_occupancy_max_pct, set by its registers or shared memory (the
// limit on blocks per SM that binds): what more resident warps would hide, or nullopt.
struct MixedWaits {
  std::string top_reason;
  double top_share = 0;
  std::string resource;
};
std::optional<MixedWaits> mixed_waits_occupancy_limit(const RuleContext& r, double total) {
  const auto& m = r.m;
  if (total <= 0 || !m.theoretical_occupancy_pct ||
      *m.theoretical_occupancy_pct >= r.p("mixed_wait_occupancy_max_pct"))
    return std::nullopt;
  MixedWaits w;
  const auto [top, top_v] = m.top_waiting_stall();
  w.top_reason = top, w.top_share = top_v / total;
  // Only over the reasons measured: a total raised by Little's law (too few reasons collected) would dilute the
  // largest share.
  if (w.top_reason.empty() || w.top_share >= r.p("latency_stall_share") || m.waiting_stalls() < 0.9 * total)
    return std::nullopt;
  for (char& c : w.top_reason)
    if (c == '_') c = ' ';
  // The binding limit: the fewest blocks per SM any resource allows; registers or shared memory must be among those
  // that bind (a block-count or warp limit is the launch's shape, not the kernel's resources).
  double fewest = std::numeric_limits<double>::infinity();
  for (const auto& l : {m.occupancy_limit_registers, m.occupancy_limit_shared_mem, m.occupancy_limit_warps,
                        m.occupancy_limit_blocks})
    if (l) fewest = std::min(fewest, *l);
  std::vector<std::string> by;
  if (m.occupancy_limit_registers && *m.occupancy_limit_registers <= fewest) by.push_back("registers");
  if (m.occupancy_limit_shared_mem && *m.occupancy_limit_shared_mem <= fewest) by.push_back("shared memory");
  if (by.empty()) return std::nullopt;
  w.resource = by.size() == 1 ? by[0] : by[0] + " and " + by[1];
  return w;
}

}  // namespace

void detect_plain_bounds(RuleContext& r) {
  const auto& m = r.m;
  const double headroom = r.headroom;
  // Host memory read (or written) through L2 over the host link, most of the kernel's memory traffic, at
  // host_link_bound_pct or more of the link's measured rate (a zero-copy read of mapped pinned memory on the H200: 128
  // MiB at 55.4 GB/s, the measured pinned copy rate, DRAM idle, every warp waiting on memory). The link bounds it;
  // more requests in flight cannot help. Only fewer bytes over the link can (opportunities.cpp's host_memory item).
  if (m.sysmem_bytes && *m.sysmem_bytes > 0 && m.duration_ns && *m.duration_ns > 0 &&
      *m.sysmem_bytes >= r.p("host_memory_min_share") * (*m.sysmem_bytes + val(m.dram_bytes))) {
    double link = r.param("opportunities.pinned_copy_gbps");
    bool measured = false;
    if (r.spec)
      for (const char* key : {"h2d_pinned_gbps", "d2h_pinned_gbps"})
        if (auto it = r.spec->measured.find(key); it != r.spec->measured.end() && it->second.value > 0) {
          link = measured ? std::max(link, it->second.value) : it->second.value;
          measured = true;
        }
    const double gbps = *m.sysmem_bytes / *m.duration_ns, share = gbps / link * 100.0;
    if (share >= r.p("host_link_bound_pct")) {
      // The gain is the same bytes read from device memory at DRAM's rate (measured, else the datasheet's): what
      // keeping them there saves where they are reused (opportunities.cpp's host_memory item says so).
      double device_ns = 0;
      if (r.spec)
        if (auto dram = r.spec->peak("dram_gbps"); dram && dram->value > 0) device_ns = *m.sysmem_bytes / dram->value;
      Finding& f = r.add(CauseId::host_link, "host memory over the link (zero-copy)",
            fmt::format("{:.3g} B of host memory read or written through L2 at {:.1f} GB/s, {:.0f}% of the host link's "
                        "{} {:.1f} GB/s",
                        *m.sysmem_bytes, gbps, share, measured ? "measured" : "assumed", link),
            device_ns > 0 ? 1.0 - device_ns / *m.duration_ns : 0.0,
            fmt::format("{}{:.0f}%, sysmem_bytes={:.3g} B", kHostLinkTrigger, share, *m.sysmem_bytes));
      f.remedy = RemedyId::none;
      // The link is the unit at its roof: more blocks or more requests in flight cannot read host memory faster
      // (set 27's GEMV on mapped weights: 0.65 waves, 51 GB/s of the link's 55, DRAM idle).
      f.unit_room_pct = std::max(0.0, 100.0 - share);
      return;
    }
  }
  struct Unit {
    CauseId id;
    const char* label;
    double pct;
    const char* metric;
    const char* unit;  // the pipe itself, for the evidence line
  };
  std::vector<Unit> units;
  // The FMA pipe runs FP32, FP16 and integer multiply-adds: name it after what dominates its instructions.
  if (m.fma_pipe_pct) {
    CauseId id = CauseId::fp32_pipe;
    const char* label = "FP32 pipe bound";
    double fma_inst = val(m.fma_pipe_instructions);
    if (val(m.fma_integer_share) > 0.5 || (fma_inst > 0 && m.flops_fp32 && *m.flops_fp32 < 0.3 * fma_inst &&
                                           val(m.fp16_pipe_instructions) < 0.5 * fma_inst)) {
      id = CauseId::int_pipe;
      label = "integer pipes bound (IMAD)";
    } else if (val(m.flops_fp16) > val(m.flops_fp32) || (fma_inst > 0 && val(m.fp16_pipe_instructions) > 0.5 * fma_inst)) {
      id = CauseId::fp16_pipe;
      label = "FP16 pipe bound";
    }
    units.push_back({id, label, *m.fma_pipe_pct, "fma_pipe", "FMA pipe"});
  }
  if (m.alu_pipe_pct)
    units.push_back({CauseId::int_pipe, "integer pipes bound (ALU)", *m.alu_pipe_pct, "alu_pipe", "ALU pipe"});
  if (m.fp64_pipe_pct) units.push_back({CauseId::fp64_pipe, "FP64 pipe bound", *m.fp64_pipe_pct, "fp64_pipe", "FP64 pipe"});
  if (m.xu_pipe_pct)
    units.push_back({CauseId::sfu_pipe, "special-function pipe bound", *m.xu_pipe_pct, "xu_pipe", "XU (special-function) pipe"});
  if (m.tensor_pipe_pct)
    units.push_back({CauseId::tensor_pipe, "tensor pipe bound", *m.tensor_pipe_pct, "tensor_pipe", "tensor pipe"});
  const Unit* pipe = nullptr;
  for (const auto& u : units)
    if (!pipe || u.pct > pipe->pct) pipe = &u;

  double dram = r.dram_pct();
  double l2 = val(m.l2_throughput_pct), l1 = val(m.l1_throughput_pct);
  const double pipe_pct = pipe ? pipe->pct : 0;
  const double roof_pct = r.p("at_roof_pct");
  const double pipe_roof = 80.0;  // a pipe's busy-cycle share reads 80-95% at its measured peak

  // DRAM first: a stream that saturates DRAM also keeps L2 and L1 busy. Not over a pipe at its own roof and busier
  // than DRAM: that pipe is what the kernel waits for (PyTorch's argmax on the H200: ALU 88.7% busy, DRAM 82% of its
  // measured roof; cutting compare/select work is what could lift DRAM).
  const bool pipe_ahead = pipe_pct >= pipe_roof && pipe_pct > dram;
  auto add_dram = [&](bool at_roof, const char* extra) {
    Finding& c = r.add(CauseId::dram_bandwidth, at_roof ? "DRAM bandwidth at its roof" : "DRAM bandwidth bound",
                       fmt::format("DRAM at {:.1f}% of {}{}", dram,
                                   m.dram_measured_pct ? "the measured DRAM roof" : "peak", extra),
                       1.0 - dram / 100.0,
                       fmt::format("{}={:.1f}%", m.dram_measured_pct ? "dram_measured" : "dram_throughput", dram));
    if (at_roof) c.remedy = RemedyId::none;
  };
  // Nor, first, over a kernel whose issue slots are busier (a share of active cycles) than DRAM is of its roof, below
  // that roof, and whose warps wait on arithmetic more than on memory: instructions, not bytes, set its pace, and the
  // pipe and issue rules below get to name it before the speed-of-light fallback (PyTorch's bf16 GELU on the H200:
  // DRAM 69.6% of its measured roof, issue 71.7%, ALU 62%; math-pipe throttle, fixed-latency and dispatch waits 6.3
  // against long scoreboard 5.2 per issued instruction).
  const bool issue_over_dram = dram < r.p("dram_at_roof_pct") && val(m.issue_active_pct) > dram &&
                               m.waiting_stalls({"math_pipe_throttle", "wait", "dispatch_stall"}) >
                                   m.waiting_stalls({"long_scoreboard", "lg_throttle"});
  // Tiles copied in bulk (TMA, cp.async.bulk: DRAM read with no LSU load requests), few warps per SM, DRAM and the
  // busiest pipe each busy yet neither at its roof, no matrix math: the copies and the compute on them take turns
  // (each tile waited for before its math, one block per SM), so each unit idles while the other works. A second
  // stage (prefetch tile t+1 while computing tile t) overlaps them: at best the kernel takes the busier unit's time
  // (a Chebyshev calibration over 128 KiB TMA tiles on the H100, set 35: DRAM 77% of its roof, FMA 62%, 25%
  // theoretical occupancy; both blind labels "memory latency, more in flight").
  // (Mostly reads, no atomics, tiles landing in shared memory: a store-only or atomics-only kernel issues no loads
  // either.)
  const bool bulk_copies = m.global_load_requests && *m.global_load_requests <= 0 && m.dram_bytes &&
                           val(m.dram_read_bytes) >= 0.5 * *m.dram_bytes && val(m.global_atomic_requests) <= 0 &&
                           val(m.shared_mem_per_block_bytes) > 0;
  if (bulk_copies && dram >= r.p("dram_bound_pct") && dram < r.p("dram_at_roof_pct") && pipe &&
      pipe->id != CauseId::tensor_pipe && val(m.tensor_pipe_pct) < 5.0 && pipe_pct >= r.busy() &&
      pipe_pct < pipe_roof && m.theoretical_occupancy_pct &&
      *m.theoretical_occupancy_pct <= r.p("occupancy_low_pct")) {
    r.add(CauseId::memory_latency, kBulkCopiesTakeTurns,
          fmt::format("DRAM at {:.1f}% of {} and the {} {:.1f}% busy, neither at its roof, with tiles copied in bulk "
                      "(no LSU loads) at {:.0f}% theoretical occupancy: each tile's copy is waited for before its "
                      "math, so the two take turns",
                      dram, m.dram_measured_pct ? "its measured roof" : "peak", pipe->unit, pipe_pct,
                      *m.theoretical_occupancy_pct),
          std::min(r.headroom, 1.0 - std::max(dram / 100.0, pipe_pct / pipe_roof)),
          fmt::format("dram={:.1f}%, {}={:.1f}%, theoretical_occupancy={:.0f}%", dram, pipe->metric, pipe_pct,
                      *m.theoretical_occupancy_pct));
    return;
  }
  if (dram >= r.p("dram_bound_pct") && dram >= pipe_pct - 10 && !pipe_ahead && !issue_over_dram) {
    add_dram(dram >= r.p("dram_at_roof_pct"), "");
    return;
  }
  // Issue slots near saturation with every pipe well below them: the kernel is bound by instruction issue across
  // several pipes, not by one (PyTorch's reflection pad on the H200: issue 82.9%, ALU 68.8%; fewer instructions of
  // every kind, not one pipe's, is the fix).
  // Only auxiliary work counts so: an FP pipe is the kernel's arithmetic itself (the FMA pipe takes one warp
  // instruction per cycle from its two sub-pipes, the issue rate: the FP16 polynomial at FMA 75%, issue 90% is FP16
  // bound), and a pipe at its own roof (by its busy share, or its FLOPs at the precision's peak) is the bound
  // whatever issue reads (the FP32 FMA roof: FMA 84%, issue 95%). Nor does the special-function pipe: a MUFU
  // occupies it for several cycles of one issue slot, so at 70% busy it is what the kernel's MUFU work waits for and
  // fewer of them relieve it far more than issue (Lanczos weights on the H200: XU 72.7%, issue 85.5%, labelled blind
  // "special-function pipe").
  // FP64 math beside FP32 math in one kernel, the FP64 pipe its busiest, on the SM's side: float expressions promoted
  // to double (a double literal, a double math function) that the work does not need. The FP64 pipe is the cause
  // whatever its busy share (its instructions are also why issue is busy), and computing in FP32 the first fix (set
  // 46's bilateral filter, FP64 pipe 49%, issue 86%, 10 GFLOP of FP32 beside 89 of FP64; set 16's exact GELU over float
  // data, FP64 pipe 58%, issue 92%, 1.2% as many FP32 FLOPs as FP64: each labelled blind FP64-pipe bound, "use FP32",
  // by every labeller). A kernel of FP64 math alone (no FP32 FLOPs: set 28's tracer, set 37's KDE, set 10's DFMA
  // chains) chose FP64. FP16 FLOPs do not count: the compiler moves constants with HFMA2.MMA, which Nsight Compute
  // counts as FP16 work (set 10's DFMA chains: 2.2 GFLOP "FP16" beside 17.7 of FP64, no FP16 in the source).
  // On the SM's side: SM throughput at least every memory unit's, L1 aside where nearly all of its loads hit
  // (l1_table_hit_min_pct): the double-precision math functions read their coefficient tables through L1 (CUDA's
  // sin and cos index a table per call), work the FP32 functions do in registers (set 48's haversine search: sin() of
  // a double expression, L1 78.8% busy at 99.7% hits beside SM 74.3%, the FP64 pipe 49.5% the busiest; both blind
  // labels: FP64 pipe, compute in FP32).
  auto sm_side_of_fp64_math = [&] {
    const double sm = val(m.sm_throughput_pct);
    if (sm < std::max(val(m.l2_throughput_pct), val(m.dram_throughput_pct))) return false;
    return sm >= val(m.l1_throughput_pct) || val(m.l1_hit_pct) >= r.p("l1_table_hit_min_pct");
  };
  // The FP32 work beside it: Nsight Compute's FP32 FLOPs; without them (CUPTI's counters count no SASS opcodes) the
  // FMA pipe's thread instructions less its integer share (the heavy/lite split) and its FP16 ones: FP32
  // instructions, a lower bound on their FLOPs (sets 16, 46, 48 and 50's promoted kernels: 0.016, 0.094, 0.172 and
  // 0.189 of the FP64 FLOPs, against Nsight Compute's 0.012, 0.114, 0.175 and 0.216; 0 on the FP64-only kernels).
  std::optional<double> fp32_work = m.flops_fp32;
  const char* fp32_what = "FP32 FLOPs";
  if (const auto fp = m.fma_pipe_float_instructions(); !fp32_work && fp) {
    fp32_work = std::max(0.0, *fp - val(m.fp16_pipe_instructions));
    fp32_what = "FP32 instructions";
  }
  if (pipe && pipe->id == CauseId::fp64_pipe && m.flops_fp64 && *m.flops_fp64 > 0 && fp32_work &&
      *fp32_work >= r.p("fp64_mixed_min_share") * *m.flops_fp64 &&
      val(m.flops_tensor) <= 0 && val(m.sm_throughput_pct) >= r.busy() && sm_side_of_fp64_math()) {
    // FP32 runs the same instructions at the device's FP32:FP64 rate ratio (2 on the H100 and H200).
    double ratio = 2.0;
    if (r.spec)
      if (auto f32 = r.spec->peak("fp32_tflops"), f64 = r.spec->peak("fp64_tflops"); f32 && f64 && f64->value > 0)
        ratio = std::max(1.0, f32->value / f64->value);
    Finding& c = r.add(CauseId::fp64_pipe, "FP64 pipe bound (float math promoted to FP64)",
                       fmt::format("the FP64 pipe is the busiest pipe ({:.1f}% of active cycles, issue {:.1f}%) with "
                                   "{:.3g} FP64 FLOPs beside {:.3g} {}: float expressions computed in double, "
                                   "at 1/{:.0f} of FP32's rate here",
                                   pipe_pct, val(m.issue_active_pct), *m.flops_fp64, *fp32_work, fp32_what, ratio),
                       // (Fewer instructions too: the float math functions take about 1/fp64_math_instruction_ratio
                       // of the double versions' instructions, hardware approximations against FP64's software
                       // sequences. FP64 -> FP32 on the H100: set 48's haversine search realised 43.5% (the rate
                       // ratio alone 20%, with the instructions at 4: 42%), set 50's implied volatilities 61.3% (29%,
                       // 49%).)
                       std::min(headroom,
                                pipe_pct / 100.0 * (1.0 - 1.0 / (ratio * r.p("fp64_math_instruction_ratio")))),
                       fmt::format("fp64_pipe={:.1f}%, flops_fp64={:.3g}, {}={:.3g}", pipe_pct, *m.flops_fp64,
                                   m.flops_fp32 ? "flops_fp32" : "fp32_instructions", *fp32_work));
    c.remedy = RemedyId::precision;
    // Its remedy moves the work off the FP64 pipe, as the host link's moves it off the link: no other cause explains
    // it away (set 50's implied volatilities, double erfc and exp in a float Newton loop: 22 of 32 lanes active beside
    // the FP64 pipe at 57.5%; sorting quotes by iterations would not take the promotion away; both blind labels: FP32).
    c.unit_room_pct = std::max(0.0, 100.0 - pipe_pct);
    return;
  }
  const bool auxiliary = pipe && pipe->id == CauseId::int_pipe;
  const bool issue_ahead = auxiliary && val(m.issue_active_pct) >= r.p("issue_bound_pct") &&
                           val(m.issue_active_pct) >= pipe_pct + r.p("issue_over_pipe_pct") && pipe_pct < pipe_roof &&
                           !(r.roof && r.roof->pct_of_roof >= roof_pct);
  // A pipe bounds the kernel from pipe_bound_pct; from wait_pipe_bound_pct where the warps wait mostly on fixed-latency
  // dependencies (the "wait" stall, dominant_stall_share of the waiting or more): the results they wait for are that
  // pipe's, its instructions chained one on the next (rules_stalls.cpp leaves such waits to this rule). Not the tensor
  // pipe's: an MMA loop waiting on its accumulators is the tensor rules' (underfed).
  double wait_share = 0;  // the fixed-latency waits' share of the waiting, where they dominate
  if (!m.stalls.empty()) {
    const double total = r.waiting_total();
    const auto [top, top_v] = m.top_waiting_stall();
    if (total > 0 && top == "wait" && top_v / total >= r.p("dominant_stall_share")) wait_share = top_v / total;
  }
  const bool chained = wait_share > 0 && pipe && pipe->id != CauseId::tensor_pipe;
  const double pipe_floor = chained ? std::min(r.p("pipe_bound_pct"), r.p("wait_pipe_bound_pct")) : r.p("pipe_bound_pct");
  if (pipe && !issue_ahead && pipe_pct >= pipe_floor && pipe_pct >= std::max(l1, l2) - 10) {
    bool at_roof = pipe_pct >= pipe_roof || (r.roof && r.roof->pct_of_roof >= roof_pct);
    // A floating-point pipe whose warps, when they stall, mostly are ready but not picked or wait for the pipe
    // itself (not selected, math-pipe throttle, dispatch) takes instructions as fast as it accepts them, whatever its
    // busy share reads: no independent instruction left to find keeps it fuller (the H100's DFMA chain and half2 FIR
    // read 66.6% busy with 94% and 89% of stalls so, a rsqrt n-body 69.8% with 75%: each labelled blind "at the
    // roof"; the FP kernels labelled for more pipe throughput stalled so 44-55%). The kernel's arithmetic is its work;
    // an integer pipe's index arithmetic is not (fewer instructions relieve it), nor is this the tensor pipe's reading.
    const bool fp_pipe =
        pipe->id == CauseId::fp32_pipe || pipe->id == CauseId::fp16_pipe || pipe->id == CauseId::fp64_pipe;
    // Read off a full breakdown of the stall reasons only: with a few of them the share says nothing (and
    // waiting_total's estimate from occupancy already holds the warps not selected).
    const auto ready = m.stalls.find("not_selected");
    const double ready_stalls = ready != m.stalls.end() ? ready->second : 0.0;
    const double stalls = m.stalls.size() >= kFullStallBreakdown ? m.waiting_stalls() + ready_stalls : 0.0;
    const double saturated_share =
        stalls > 0 ? (ready_stalls + m.waiting_stalls({"math_pipe_throttle", "dispatch_stall"})) / stalls : 0.0;
    const bool saturated = !at_roof && fp_pipe && saturated_share >= r.p("pipe_saturated_stall_share");
    const bool chained_only = chained && pipe_pct < r.p("pipe_bound_pct");
    // (Its headroom stays what the busy share leaves: other findings, such as idle SMs, are not capped to nothing.)
    Finding& c = r.add(pipe->id, pipe->label,
                       saturated ? fmt::format("{} busy {:.1f}% of active cycles, with {} of warp stalls ready but not "
                                               "picked or waiting for the pipe: it takes instructions as fast as it "
                                               "accepts them",
                                               pipe->unit, pipe_pct, pct(saturated_share))
                       : chained_only
                           ? fmt::format("{} busy {:.1f}% of active cycles, the busiest pipe, with {} of the warps' "
                                         "waiting on fixed-latency dependencies: its instructions wait on each other's "
                                         "results",
                                         pipe->unit, pipe_pct, pct(wait_share))
                           : fmt::format("{} busy {:.1f}% of active cycles", pipe->unit, pipe_pct),
                       at_roof || saturated ? std::min(headroom, 1.0 - pipe_pct / 100.0)
                       // Named for its chained waits under pipe_bound_pct: independent chains win what the waits cost,
                       // as the dominant-stall rule weighs them (the share of the waiting, up to saturation), not the
                       // pipe's distance to its roof (set 37's float64 KDE: four independent accumulators realised
                       // -7% on the H100, its FP64 pipe at 50.5%; the waits' estimate 10%).
                       : chained_only ? std::min(headroom, wait_share * std::max(0.0, 1.0 - r.sol_max() /
                                                                                       r.param("classify.saturated_pct")))
                                      : std::min(headroom, 1.0 - pipe_pct / pipe_roof),
                       fmt::format("{}={:.1f}%", pipe->metric, pipe_pct));
    if (at_roof || saturated) c.remedy = RemedyId::none;
    else if (pipe->id == CauseId::tensor_pipe && r.library_tensor_kernel()) c.remedy = RemedyId::library_tuning;
    // Index arithmetic around narrow accesses: an integer pipe busy below its roof in a kernel that moves data (its
    // stores at least half its loads' sectors), each warp access coalesced over narrow_access_bytes_max bytes per lane
    // or fewer (a sector per request is 1 byte a lane; the lanes using what they fetch), DRAM below its bound. Each
    // element pays the whole index computation; a lane moving 16 bytes pays it once per 16 (set 47's KV-cache append:
    // one bf16 per thread behind 64-bit divisions, the integer pipes 67% and issue 79% busy, DRAM 18%; both blind
    // labels: 16-byte accesses, the index math once per chunk in 32-bit). The work removed is not capped by the pipe
    // it kept busy, nor by the idle issue slots: the instructions shrink with the bytes per lane, down to the DRAM
    // roof's time (timed on the H100: 935 -> 194 us, 79.2%, against this estimate's 81%;
    // examples/programs/calib_pairs47.cu). Set 7's 5-D permute, the same kernel kind, was labelled "32-bit
    // indexing" (pipe_throughput) by its one labeller.
    else if (pipe->id == CauseId::int_pipe) {
      const double requests = val(m.global_load_requests) + val(m.global_store_requests);
      const double sectors = val(m.global_load_sectors) + val(m.global_store_sectors);
      const double per_lane = requests > 0 ? sectors / requests : 0.0;  // bytes a lane moves, coalesced
      const bool used = !m.global_load_bytes_per_sector || *m.global_load_bytes_per_sector >= r.p("sector_bytes_min");
      // (A kernel that moves data: loads and stores both, DRAM at least narrow_access_dram_min_pct of its roof; set
      // 12's runtime divisions store one word a thread and load nothing: the divisions are its work.)
      if (per_lane > 0 && per_lane <= r.p("narrow_access_bytes_max") && used && val(m.global_load_requests) > 0 &&
          val(m.global_store_sectors) >= 0.5 * val(m.global_load_sectors) &&
          r.dram_pct() >= r.p("narrow_access_dram_min_pct") && r.dram_pct() < r.p("dram_bound_pct")) {
        c.remedy = RemedyId::wider_accesses;
        c.gain_pct = std::max(c.gain_pct, std::max(0.0, 1.0 - std::max(per_lane / 16.0, r.dram_pct() / 100.0)) * 100.0);
        c.evidence += fmt::format(", index arithmetic around global accesses of {:.1f} bytes a lane ({:.3g} "
                                  "requests): each element pays it whole; 16 bytes a lane with the indices computed "
                                  "once per chunk (in 32-bit) pays it once per 16 bytes, down to DRAM's time",
                                  per_lane, requests);
      }
    }
    return;
  }
  // On-chip bandwidth bounds the kernel when that unit is near its peak and at least about as busy as the SM:
  // an L2 at 62-66% beside SM issue at 73-80% (PyTorch's softmax and layer norm on the H200) is not the limit.
  const double onchip = r.p("onchip_bound_pct"), sm = val(m.sm_throughput_pct);
  // In a kernel of matrix math the data re-read through L1 or L2 is the MMA operands: reusing it on chip is feeding
  // the tensor cores (operand tiles staged in shared memory, larger MMA tiles per warp), and a library's kernel is
  // fed through the call (a WMMA GEMM loading its fragments from global memory: L1 99.9%, tensor pipe 4.7%; Triton's
  // 32x32 bf16 tiles: L2-bound with the tensor pipe under a third busy).
  // Left of the roofline's ridge the kernel moves more bytes than its math can use: its re-read data is not the
  // tensor pipe's to wait for, and the reuse remedy stands.
  const bool matrix = (val(m.flops_tensor) > 0 || (m.tensor_pipe_imma && val(m.tensor_pipe_pct) > 0)) &&
                      !(r.roof && r.roof->bound_by == "memory");
  auto operands = [&](Finding& f) {
    if (matrix) f.remedy = r.library_tensor_kernel() ? RemedyId::library_tuning : RemedyId::feed_tensor;
  };
  if (l2 >= onchip && l2 >= l1 && l2 >= sm - 10) {
    // At the device's measured L2 bandwidth (a stream re-reading an L2-resident buffer at 9.2 TB/s on the H200,
    // 103% of kprof-peaks' 8.9): nothing is left to gain at that rate; only fewer L2 bytes (reuse inside a block, in
    // shared memory or registers) make it faster, and how many can go kprof cannot tell (opportunities.cpp's
    // l2_traffic item).
    if (m.l2_measured_pct && *m.l2_measured_pct >= roof_pct && !matrix) {
      Finding& f = r.add(CauseId::l2_bandwidth, "L2 bandwidth at its roof",
                         fmt::format("L2 moves {:.1f}% of the measured L2 bandwidth (busy {:.1f}%) with DRAM at {:.1f}%: "
                                     "data is re-read from L2 at its roof",
                                     *m.l2_measured_pct, l2, dram),
                         std::max(0.0, 1.0 - *m.l2_measured_pct / 100.0),
                         fmt::format("l2_measured={:.1f}%, dram={:.1f}%", *m.l2_measured_pct, dram));
      f.remedy = RemedyId::none;
      return;
    }
    operands(r.add(CauseId::l2_bandwidth, "L2 bandwidth bound",
                   fmt::format("L2 busy {:.1f}% with DRAM at {:.1f}%: data is re-read from L2", l2, dram), headroom,
                   fmt::format("l2_throughput={:.1f}%, dram={:.1f}%", l2, dram)));
    return;
  }
  if (l1 >= onchip && l1 >= sm - 10) {
    // Busy with MIO instructions that move no data (warp shuffles): the dominant-stall rule, which runs first, names
    // it mio_queue. Where its conditions differ from this branch's, the same finding stands here under the unit's
    // name, with the same remedy.
    if (r.found(CauseId::mio_queue)) return;
    const std::optional<double> per_clk = r.l1_data_per_clk();
    if (per_clk && *per_clk < r.p("l1_data_min_bytes_per_clk") && !r.texture_waits()) {
      r.add_mio_instructions(CauseId::l1_bandwidth, l1, *per_clk);
      return;
    }
    operands(r.add(CauseId::l1_bandwidth, "L1/shared-memory bandwidth bound",
                   fmt::format("L1/TEX unit busy {:.1f}% with DRAM at {:.1f}%: operands are re-read through L1", l1, dram),
                   headroom, fmt::format("l1_throughput={:.1f}%, dram={:.1f}%", l1, dram)));
    return;
  }
  if (r.latency_bound()) {
    const double total = r.waiting_total();
    const double scoreboard = m.waiting_stalls({"long_scoreboard"});
    bool memory_wait = total > 0 && scoreboard / total >= r.p("latency_stall_share");
    double gain = std::min(headroom, 1.0 - r.sol_max() / r.param("classify.saturated_pct"));
    if (memory_wait)
      r.add(CauseId::memory_latency, "memory latency (too few requests in flight)",
            fmt::format("SM {:.1f}% and memory {:.1f}% with {} of warp stalls waiting on memory (long scoreboard)",
                        val(m.sm_throughput_pct), val(m.memory_throughput_pct), pct(scoreboard / total)),
            gain,
            fmt::format("long_scoreboard={} of stalls, sm={:.1f}%, memory={:.1f}%", pct(scoreboard / total),
                        val(m.sm_throughput_pct), val(m.memory_throughput_pct)));
    else {
      // What the warps wait on decides the remedy: memory (long scoreboard, LSU queue) wants more requests in
      // flight; dependent arithmetic (a fixed-latency wait, a throttled math pipe, dispatch) wants independent
      // instructions or fewer of them (PyTorch's unfold on the H200: math-pipe throttle, wait and not-selected over
      // long scoreboard; 64-bit index math per output).
      const double memory = m.waiting_stalls({"long_scoreboard", "lg_throttle"});
      const double arithmetic = m.waiting_stalls({"math_pipe_throttle", "wait", "dispatch_stall"});
      Finding& f = r.add(CauseId::latency, "latency bound",
            fmt::format("SM {:.1f}% and memory {:.1f}% both under {:.0f}%: too little work in flight{}",
                        val(m.sm_throughput_pct), val(m.memory_throughput_pct), r.busy(),
                        arithmetic > memory ? "; warps wait on dependent arithmetic more than on memory" : ""),
            gain, fmt::format("sm={:.1f}%, memory={:.1f}%", val(m.sm_throughput_pct), val(m.memory_throughput_pct)));
      if (arithmetic > memory) {
        f.remedy = RemedyId::pipe_throughput;
      } else if (auto limit = mixed_waits_occupancy_limit(r, total)) {
        // Waits spread over several reasons, none of them the memory share that calls for more requests per
        // thread, and few warps resident by the kernel's registers or shared memory: more resident warps hide
        // every kind of wait at once (CUB's onesweep radix sort on the H200: long scoreboard 27%, barrier 25%,
        // short scoreboard 15% of waits, 2 blocks per SM of 80 registers x 384 threads and 45 KB, 37.5%).
        f.remedy = RemedyId::occupancy;
        f.evidence += fmt::format("; its waits spread over several reasons (the largest, {}, {}) with a theoretical "
                                  "occupancy of {:.1f}% set by {}",
                                  limit->top_reason, pct(limit->top_share), *m.theoretical_occupancy_pct,
                                  limit->resource);
      }
    }
    return;
  }
  if (pipe && !issue_ahead && pipe_pct >= r.p("pipe_bound_pct")) {
    r.add(pipe->id, pipe->label, fmt::format("{} busy {:.1f}% of active cycles", pipe->unit, pipe_pct),
          std::min(headroom, 1.0 - pipe_pct / pipe_roof), fmt::format("{}={:.1f}%", pipe->metric, pipe_pct));
    return;
  }
  // Only the speed-of-light pair left (an export of the SOL section alone, or no unit named above): the busier
  // side names the bound (a cuBLAS GEMM at SM 90% and memory 70% is SM-bound, not memory-bound). Reuse on chip
  // changes the traffic itself, so its gain is the distance to the roofline floor, when bytes or FLOPs give one;
  // without them (the SOL section alone) only the memory side's distance to its peak is known.
  const double mem = val(m.memory_throughput_pct);
  const bool floor_known = m.dram_bytes || m.total_flops();
  // The memory side's speed of light is DRAM's own (the busiest memory unit, L1 and L2 below it): DRAM names the
  // bound, below the level at which it is called DRAM-bound (PyTorch's column mean on the H200 through CUPTI: DRAM
  // 61.0% of peak, 66.7% of the measured roof, L2 59.5%, L2 hits 1%; "data re-read on chip" would be wrong).
  if (m.memory_throughput_pct && mem >= r.busy() && mem > val(m.sm_throughput_pct) && m.dram_throughput_pct &&
      *m.dram_throughput_pct >= std::max({mem - 1.0, l1, l2})) {
    add_dram(false, ", the busiest memory unit");
    return;
  }
  if (m.memory_throughput_pct && mem >= r.busy() && mem > val(m.sm_throughput_pct)) {
    // Reuse on chip needs bytes fetched more than once: where the global loads bring about what DRAM reads (at most
    // reuse_reread_min times), no local traffic runs, and L2 rather than L1/shared is the busier unit, nothing is
    // re-read that a tile could keep, and the bytes in flight set the pace (cuFFT's strided pass on the H200: loads
    // 1.08x DRAM's reads, L2 62%, DRAM 41% of its roof).
    const std::optional<double> reread = loads_per_dram_read(m);
    // Loads the counter sees must account for most of DRAM's reads (TMA and cp.async loads are not global load
    // sectors), and local traffic and both cache readings must have been measured.
    const bool streams = reread && *reread >= r.p("stream_loads_min") && *reread <= r.p("reuse_reread_min") &&
                         m.local_memory_bytes &&
                         *m.local_memory_bytes <= 0 && m.l1_throughput_pct && m.l2_throughput_pct && l2 >= l1;
    Finding& f = r.add(
        CauseId::memory_bound, "memory bound",
        fmt::format("memory throughput {:.1f}% against SM {:.1f}%, no single memory unit named{}", mem,
                    val(m.sm_throughput_pct),
                    streams ? fmt::format("; the global loads fetch {:.2f}x what DRAM reads: nothing is re-read on chip",
                                          *reread)
                            : ""),
        // More bytes in flight does not move the floor: it gains at most the memory side's distance to saturation.
        streams                 ? std::min(headroom, 1.0 - mem / r.param("classify.saturated_pct"))
        : floor_known ? headroom : std::min(headroom, 1.0 - mem / 100.0),
        fmt::format("memory_throughput={:.1f}%", mem));
    if (streams) f.remedy = RemedyId::memory_parallelism;
    else operands(f);
  } else if (m.sm_throughput_pct && val(m.sm_throughput_pct) >= r.busy()) {
    // No single pipe saturated: instruction issue is the limit; what is left is the idle issue slots.
    double issued = std::max(val(m.issue_active_pct), val(m.sm_throughput_pct));
    // Issue spent gathering the same bytes again and again (global loads fetching tens of times what DRAM reads: a 7x7
    // window re-read per output, all pairs of rows): the loads and their address math go with reuse in registers or
    // shared memory, not with more instructions in flight (set 25's average pool, 58x; set 4's cdist, 3900x).
    const std::optional<double> reread = loads_per_dram_read(m);
    // L1 must serve a good share of them: a single pass over an input already in L2 reads little from DRAM too, but
    // hits nothing in L1.
    const bool regathers = reread && *reread >= r.p("issue_reread_min") && m.flops_tensor.value_or(0) <= 0 &&
                           m.l1_hit_pct && *m.l1_hit_pct >= r.p("issue_reread_l1_hit_min_pct");
    Finding& f = r.add(CauseId::compute_bound, "compute bound (instruction issue)",
          fmt::format("SM throughput {:.1f}%, issue slots busy {}, {}{}", val(m.sm_throughput_pct),
                      m.issue_active_pct ? fmt::format("{:.1f}%", *m.issue_active_pct) : std::string("not measured"),
                      units.empty()  ? std::string("pipes not measured")
                      : issue_ahead ? fmt::format("the busiest pipe ({}) {:.1f}%: issue binds across pipes", pipe->unit,
                                                  pipe_pct)
                      : pipe && units.size() > 1 && pipe_pct > 0
                                     ? fmt::format("no pipe above {:.0f}% (the busiest, the {}, {:.1f}%)",
                                                   r.p("pipe_bound_pct"), pipe->unit, pipe_pct)
                                     : fmt::format("no pipe above {:.0f}%", r.p("pipe_bound_pct")),
                      regathers ? fmt::format("; the global loads fetch {:.0f}x what DRAM reads: the same bytes "
                                              "gathered again and again",
                                              *reread)
                                : std::string()),
          std::min(headroom, 1.0 - issued / 100.0),
          m.issue_active_pct
              ? fmt::format("sm_throughput={:.1f}%, issue_active={:.1f}%", val(m.sm_throughput_pct), *m.issue_active_pct)
              : fmt::format("sm_throughput={:.1f}%", val(m.sm_throughput_pct)));
    if (regathers) f.remedy = RemedyId::onchip_reuse;
  }
}

}  // namespace kprof::analyze
