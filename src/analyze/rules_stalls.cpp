// Diagnosis rule on what warps wait for: the stall reason that dominates a kernel's waiting time names the cause
// (barriers, fences, sleeping, the constant or instruction cache, ...), or, for a reason kprof has no remedy for,
// says so ("not diagnosed: <reason> stalls dominate") instead of falling back to a generic remedy. Reasons a plain
// bound already names (long scoreboard: memory latency; a busy math pipe) are left to that bound.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "analyze/diagnosis_rule.hpp"
#include "analyze/stall_reasons.hpp"

namespace kprof::analyze {

void detect_dominant_stall(RuleContext& r) {
  const auto& m = r.m;
  // The indexed constant cache saturated while little else runs: divergent constant indices serialise there (its
  // queue shows as MIO throttle, not as constant-cache misses). Uniform indices issue one request per warp.
  if (m.idc_pct && *m.idc_pct >= r.p("pipe_bound_pct") && *m.idc_pct >= val(m.issue_active_pct) &&
      *m.idc_pct >= val(m.lsu_pipe_pct)) {
    const double busy_elsewhere = std::max({val(m.issue_active_pct), val(m.dram_throughput_pct), val(m.l1_throughput_pct)});
    r.add(CauseId::constant_cache, "constant-cache serialisation (divergent constant indices)",
          fmt::format("the indexed constant cache is busy {:.1f}% of the time while instruction issue runs at {:.1f}%: "
                      "constant loads whose index differs across a warp are served one address at a time",
                      *m.idc_pct, val(m.issue_active_pct)),
          std::min(r.headroom, 1.0 - busy_elsewhere / *m.idc_pct), fmt::format("idc={:.1f}%", *m.idc_pct));
    return;
  }
  // The L1/TEX unit saturated by MIO instructions that move no data: the bytes through L1's tag stage and the shared
  // loads' and stores' wavefronts (128 B at most each) come to under l1_data_min_bytes_per_clk per SM cycle while the
  // unit is the busiest (no DRAM, L2 or pipe bound ahead of it). Its queue shows as MIO throttle, and fewer of those
  // instructions, not reuse on chip, is the fix (a shuffle butterfly on the H200: L1 99% busy, 1.1 MB through L1 in
  // 673 us, MIO throttle 37% of the waits, the top reason; a blind label named the MIO queue). Not in a kernel of
  // launch overhead: a 1-us kernel's unit readings name no bound (PyTorch's tiny fills: L1 94%, nothing moved).
  // Not where the warps wait mostly for room in the texture queue (texture_waits: set 38's point-sampled bicubic
  // through tex2D, L1/TEX 97% busy, 0.5 B per cycle counted, tex_throttle 73% of the waiting).
  if (!r.found(CauseId::launch_overhead) && !r.texture_waits()) {
    const double l1 = val(m.l1_throughput_pct);
    const double pipe = std::max({val(m.fma_pipe_pct), val(m.alu_pipe_pct), val(m.fp64_pipe_pct), val(m.xu_pipe_pct),
                                  val(m.tensor_pipe_pct)});
    if (l1 >= r.p("onchip_bound_pct") && l1 >= val(m.sm_throughput_pct) - 10 && l1 > val(m.l2_throughput_pct) &&
        r.dram_pct() < r.p("dram_bound_pct") && (pipe < r.p("pipe_bound_pct") || pipe < l1 - 10))
      if (const auto per_clk = r.l1_data_per_clk(); per_clk && *per_clk < r.p("l1_data_min_bytes_per_clk")) {
        r.add_mio_instructions(CauseId::mio_queue, l1, *per_clk);
        return;
      }
  }
  if (m.stalls.empty()) return;
  const double total = r.waiting_total();
  if (total <= 0) return;
  const auto [top, top_v] = m.top_waiting_stall();
  const double share = top_v / total;
  if (top.empty() || share < r.p("dominant_stall_share")) return;
  // Warps that are ready but not picked (not_selected) or issuing (selected) mean the scheduler has work: when they
  // outweigh the waiting, issue or a pipe binds, and what the others wait on is secondary (the probe's FMA loop:
  // 7.8 warps ready per issue against 4.7 waiting, 88% of that on dispatch).
  const auto ready = [&](const char* reason) {
    auto it = m.stalls.find(reason);
    return it == m.stalls.end() ? 0.0 : it->second;
  };
  if (ready("not_selected") + ready("selected") > m.waiting_stalls()) return;
  // A kernel with a unit near its roof is bound by that unit, whatever its warps wait on meanwhile: the SM or
  // memory speed-of-light, DRAM against the measured copy bandwidth, or one pipe.
  const double pipe = std::max({val(m.fma_pipe_pct), val(m.alu_pipe_pct), val(m.fp64_pipe_pct), val(m.xu_pipe_pct),
                                val(m.tensor_pipe_pct)});
  // The SM's speed-of-light counts units kprof does not name (the barrier unit among them): where instruction issue
  // and every measured pipe are below the level at which a unit does real work, the SM figure is that unnamed unit,
  // and what the warps wait on says which (a shared-memory tree reduction with a barrier per step on the H200: SM
  // 90.4% in Nsight Compute's full set, issue 32.6%, no pipe above 9%, barrier 58% of the waits).
  // (The LSU and indexed-constant units count among the named ones: annotation's SM figure is the maximum of them.)
  const double named = std::max({pipe, val(m.lsu_pipe_pct), val(m.idc_pct)});
  const bool sm_unnamed = val(m.sm_throughput_pct) >= r.busy() && m.issue_active_pct &&
                          val(m.issue_active_pct) < r.busy() && named < r.busy();
  // Waits on the MIO path where L1 is the busiest memory unit, short of saturation: L1 is busy with that path's own
  // traffic (shared memory, shuffles), which removing the waited-on instructions frees too; the memory side's speed of
  // light is then not a roof the remedy runs into (a shuffle-broadcast MLP: L1 67.7%, memory 66%). L1 at its roof is a
  // bound of its own, the waits its symptom (a shared-memory SGEMM without register tiling: L1 91.8%, MIO throttle
  // 63% of the waits; reuse in registers is the fix).
  const StallReason* s = find_stall_reason(top);
  const bool mio = s && s->cause && (*s->cause == CauseId::mio_queue || *s->cause == CauseId::shared_latency);
  const double l1 = val(m.l1_throughput_pct);
  // And L1 busy with little data: the MIO path's traffic moves few bytes (shuffles, shared words), global loads
  // hitting L1 move many (the data-rate cut of the MIO-queue rule above).
  const std::optional<double> l1_per_clk = mio ? r.l1_data_per_clk() : std::nullopt;
  const bool l1_carries = mio && m.l1_throughput_pct && l1 >= r.busy() && l1 < r.param("classify.saturated_pct") &&
                          l1 >= val(m.l2_throughput_pct) && l1 >= val(m.dram_throughput_pct) && l1_per_clk &&
                          *l1_per_clk < r.p("l1_data_min_bytes_per_clk");
  // Barrier waits where L1 is busy with shared memory (more shared wavefronts than the global and local sectors through
  // L1): each step of the block reads and writes shared memory and meets at a barrier, so the L1 traffic is the steps'
  // own, and fewer, larger steps (several elements a thread, kept in registers, a barrier per batch) remove both; L1's
  // roof is then not a bound the remedy runs into (set 50's binomial trees: a 1024-thread block per option, two
  // barriers per time step around a dozen instructions; L1 81% busy with 172M shared wavefronts against 8 MB through
  // its tag stage, barrier 54% of the waits; both blind labels: barrier stalls, fewer barriers).
  const bool barrier_steps = top == "barrier" && m.shared_wavefronts &&
                             *m.shared_wavefronts * 32.0 >= val(m.l1_bytes) && *m.shared_wavefronts > 0 &&
                             l1 >= val(m.l2_throughput_pct) && l1 >= val(m.dram_throughput_pct);
  const double sol = sm_unnamed ? val(m.memory_throughput_pct)
                     : l1_carries || barrier_steps
                         ? std::max({val(m.sm_throughput_pct), val(m.l2_throughput_pct), val(m.dram_throughput_pct)})
                         : r.sol_max();
  const bool at_roof = sol >= r.param("classify.saturated_pct") || val(m.dram_measured_pct) >= r.p("dram_bound_pct") ||
                       pipe >= r.param("classify.saturated_pct");
  // Fence waits are the exception: a fence moves no data, it holds each warp's next loads and stores until the last
  // ones are acknowledged, so it caps the bytes in flight even in a kernel that streams near its roof; the distance
  // left to that roof is what removing the fences can win (set 28's per-element system fence: DRAM 88-89% of the
  // measured roof, membar 51% of the waiting; both blind labels name the fence). Not where a pipe is at its roof.
  const bool fence = s && s->cause == CauseId::memory_fence;
  if (at_roof && (!fence || pipe >= r.param("classify.saturated_pct"))) return;
  if (s && s->covered_by) return;
  // Barrier waits in a kernel that streams DRAM (at/above barrier_streaming_dram_pct of its measured roof) with
  // long scoreboard at least barrier_memory_wait_share of the waiting: the warps at the barrier wait for the
  // block's loads, as in a tiled scan or select (CUB's cumsum and nonzero on the H200: barrier 56-66%, long
  // scoreboard 18-30%, DRAM 46-57%). Every warp has the same work, so balancing it changes nothing; more loads in
  // flight per thread does. The plain bounds name that (latency, or DRAM nearer its roof).
  if (top == "barrier" && r.dram_pct() >= r.p("barrier_streaming_dram_pct") &&
      m.waiting_stalls({"long_scoreboard"}) / total >= r.p("barrier_memory_wait_share"))
    return;
  // Barrier waits that are an MMA pipeline's (RuleContext::mma_pipeline_waits): balancing the block's work changes
  // nothing; the tensor rules name the underfed pipe (set 42's fp8 Triton GEMM, tensor pipe 64%, 62% of its stall
  // samples on WARPGROUP.DEPBAR by the labellers' SASS reading).
  if (top == "barrier" && r.mma_pipeline_waits()) return;
  const std::string what = s ? std::string(s->meaning) : "a reason this kprof does not know";
  const std::string trigger = fmt::format("stall_{}={} of waiting stalls", top, pct(share));
  if (!s || !s->cause) {
    Finding& f = r.add(CauseId::undiagnosed_stall, fmt::format("not diagnosed: {} stalls dominate", top),
                       fmt::format("{} of the warps' waiting time is spent waiting for {}; kprof has no remedy for "
                                   "this stall reason: read the source view (ncu mode) for the instructions it "
                                   "stalls on",
                                   pct(share), what),
                       0.0, trigger);
    f.remedy = RemedyId::none;
    return;
  }
  // Queue and shared-memory stalls follow from an access pattern an earlier rule has named on the same path: that
  // cause is the one to fix. The local/global queue (lg_throttle, tex_throttle) is the global and local path's
  // (uncoalesced, scattered or local accesses, global atomics); the MIO queue and short scoreboard are shared
  // memory's (bank conflicts, shared atomics). Bank conflicts do not fill the global queue (cuFFT's strided pass on
  // the H200: lg_throttle 48% of waits beside 43% conflicted shared wavefronts).
  const CauseId id = *s->cause;
  // Fixed-latency waits where one math pipe does half its cycles' work or more: the waited-on results are that
  // pipe's, and the pipe is what the kernel runs on; the plain bounds name it (with the same remedy, independent
  // chains or fewer of its instructions). Sets 28 and 37's FP64 kernels (FP64 pipe 68.5% and 50.5%, 47% and 46% of
  // the waits fixed-latency) and set 21's col2im (the FMA pipe 53% busy with integer multiply-adds, 41%): every blind
  // label names the pipe.
  // (Not the tensor pipe: an MMA loop's waits on its accumulators are the tensor rules' to read, as underfed.)
  if (id == CauseId::dependency_wait &&
      std::max({val(m.fma_pipe_pct), val(m.alu_pipe_pct), val(m.fp64_pipe_pct), val(m.xu_pipe_pct)}) >=
          r.p("wait_pipe_bound_pct"))
    return;
  if (id == CauseId::lsu_queue)
    for (CauseId named : {CauseId::uncoalesced_global, CauseId::scattered_access, CauseId::local_memory,
                          CauseId::atomic_contention})
      if (r.found(named)) return;
  if (id == CauseId::mio_queue || id == CauseId::shared_latency)
    for (CauseId named : {CauseId::smem_bank_conflicts, CauseId::atomic_contention})
      if (r.found(named)) return;
  // Removing the wait turns that share of the waiting time into issued work at the kernel's current rate, as far
  // as no unit saturates (an unnamed SM unit is the one the waits are on: removing them frees it too).
  // Fewer barriers fill the issue slots the waiting warps leave idle: instruction issue, the math pipes and the memory
  // side beyond L1 bound what they win (the shared loads and stores may stay: set 50's binomial trees, issue 61%,
  // the ALU 22%; one barrier a step and four nodes a thread realised 16.7% on the H100, both labellers had expected
  // 1.5-2x; bounded by the SM's 68.6%, this estimate was 8%).
  const double room_sol =
      barrier_steps ? std::max({pipe, val(m.issue_active_pct), val(m.l2_throughput_pct), val(m.dram_throughput_pct)})
                    : sol;
  // (A fence's room is the distance to the roof below it too: it paces the accesses wherever the unit stands, and the
  // estimate does not jump at the saturation line; set 35's seq_cst atomic histogram, L2 74% busy: 3% -> 12.5%.)
  const double room = at_roof || fence ? std::max(0.0, 1.0 - std::max(sol, r.dram_pct()) / 100.0)
                              : std::max(0.0, 1.0 - room_sol / r.param("classify.saturated_pct"));
  static constexpr const char* kLabels[] = {"warps wait at block barriers (uneven work in the block)",
                                            "memory fences (membar)", "warps sleeping (spin-wait polling)",
                                            "constant-cache serialisation or misses",
                                            "instruction-cache misses (code too large)", "branch resolution",
                                            "load/store queue full (many small memory instructions)",
                                            "MIO queue full (shared memory / special functions)",
                                            "waiting on shared-memory or special-function results",
                                            "fixed-latency dependencies (too little ILP)"};
  static_assert(std::size(kLabels) ==
                static_cast<std::size_t>(CauseId::undiagnosed_stall) - static_cast<std::size_t>(CauseId::barrier_stall));
  const std::size_t at = static_cast<std::size_t>(id) - static_cast<std::size_t>(CauseId::barrier_stall);
  // (Barrier steps over shared memory may be uneven work or a barrier after every few instructions, set 7's one
  // working warp or set 50's binomial trees: the label claims neither.)
  const bool steps = id == CauseId::barrier_stall && barrier_steps;
  Finding& f = r.add(id,
                     steps ? std::string("warps wait at block barriers between shared-memory steps")
                     : at < std::size(kLabels) ? kLabels[at]
                                               : std::string(name(id)),
                     fmt::format("{} of the warps' waiting time is spent waiting for {} (SM {:.1f}%, memory {:.1f}%{})",
                                 pct(share), what, val(m.sm_throughput_pct), val(m.memory_throughput_pct),
                                 l1_carries ? fmt::format(", L1 {:.1f}% the busiest memory unit", l1)
                                 : steps ? fmt::format(", L1 {:.1f}% busy with the block's shared-memory traffic", l1)
                                         : std::string()),
                     share * std::min(room, r.headroom), trigger);
  // Where L2 or DRAM is busier than L1, the memory side's load is not the MIO path's.
  if (mio && !l1_carries) f.does_not_explain = {CauseId::memory_bound, CauseId::l1_bandwidth};
  // Barrier waits explain the memory bounds only where L1 carries the steps' shared traffic.
  if (id == CauseId::barrier_stall && !barrier_steps) f.does_not_explain = {CauseId::memory_bound, CauseId::l1_bandwidth};
}

}  // namespace kprof::analyze
