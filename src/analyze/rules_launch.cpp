// Diagnosis rules on how a kernel is launched: launch overhead, a partial last wave, a grid too small for the GPU,
// and the resource that limits occupancy.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analyze/diagnosis_rule.hpp"
#include "analyze/occupancy_limits.hpp"

namespace kprof::analyze {

void detect_launch_overhead(RuleContext& r) {
  const auto& g = r.g;
  if (!g.median_ns || *g.median_ns >= r.p("launch_bound_max_us") * 1e3) return;
  // Nodes of a CUDA graph: the graph launches them back to back, so the GPU idling over their span is the host's
  // between graph launches (re-instantiating the graph each step, set 22), which the range's figures judge, not their
  // own launch cost; "a CUDA graph removes the gaps" cannot apply. A tiny one is still tiny (a node costs about as
  // much as its work; its counters say little), with no gain figure of its own.
  std::optional<double> idle;
  if (g.span_ns && g.gpu_idle_ns && *g.span_ns > 0 && !g.graph_nodes) idle = *g.gpu_idle_ns / *g.span_ns;
  if (g.launches >= r.p("launch_bound_min_launches") && idle && *idle >= r.p("launch_bound_idle_share")) {
    r.add(CauseId::launch_overhead, "launch overhead (tiny kernels)",
          fmt::format("{} launches of {:.1f} us each; the GPU runs no kernel for {} of the {:.2f} ms they span",
                      g.launches, *g.median_ns * 1e-3, pct(*idle), *g.span_ns * 1e-6),
          *idle, fmt::format("launches={}, median={:.1f}us, gpu_idle={}", g.launches, *g.median_ns * 1e-3, pct(*idle)));
    return;
  }
  // A kernel of a few microseconds: its launch costs about as much as its work, and its counters (a handful of
  // blocks, a few thousand cycles) say little about throughput.
  if (*g.median_ns < r.p("tiny_kernel_us") * 1e3)
    r.add(CauseId::launch_overhead, "tiny kernel (launch cost comparable to its work)",
          fmt::format("{:.1f} us per launch{}", *g.median_ns * 1e-3,
                      idle ? fmt::format("; the GPU idles {} of the span of its {} launches", pct(*idle), g.launches)
                      : g.graph_nodes ? std::string(" as a node of a CUDA graph: fusing the small kernels is what is left")
                                      : std::string()),
          idle.value_or(0), fmt::format("median={:.1f}us", *g.median_ns * 1e-3));
}

// The timed run far slower than the profiler's replay of the same launch, on a launch that had the GPU to itself (no
// other kernel beside it to share the SMs with): the replay, its data already resident, did not pay what the timed run
// paid on first touch. Managed memory migrating page by page on faults is the common case (an axpy over 192 MB of
// host-initialised cudaMallocManaged buffers on the H200: 18.5-21.3 ms traced, 57-62 us replayed); the counters
// describe the resident replay, not that time.
void detect_page_migration(RuleContext& r) {
  const auto& g = r.g;
  if (!g.alone_min_ns || !g.replay_ns ||
      !slower_than_replay(*g.alone_min_ns, *g.replay_ns, r.p("replay_slowdown_min"), r.p("replay_slowdown_min_us")))
    return;
  const double ratio = *g.alone_min_ns / *g.replay_ns;
  r.add(CauseId::page_migration, "far slower in the timed run than in the replay (page faults on first touch)",
        fmt::format("its shortest launch with no other kernel beside it took {:.1f} us in the timed run, {:.0f}x the "
                    "{:.1f} us of the profiler's replay of the same launch: the timed run paid what the replay, its "
                    "data already resident, did not, most often managed memory migrating on page faults; the "
                    "counters describe the replay",
                    *g.alone_min_ns * 1e-3, ratio, *g.replay_ns * 1e-3),
        1.0 - 1.0 / ratio,
        fmt::format("alone_min={:.1f}us, replay={:.1f}us ({:.0f}x)", *g.alone_min_ns * 1e-3, *g.replay_ns * 1e-3,
                    ratio));
}

void detect_tail_wave(RuleContext& r) {
  const auto& m = r.m;
  if (!m.waves_per_sm || *m.waves_per_sm < 1.0) return;
  double w = *m.waves_per_sm;
  double full = std::ceil(w - 0.005);
  if (full < 1) return;
  double eff = w / full;
  if (eff >= r.p("tail_wave_efficiency")) return;
  r.add(CauseId::tail_wave, "tail effect (partial last wave)",
        fmt::format("{:.2f} waves: the last wave fills {} of the GPU, which idles during it", w, pct(w - (full - 1))),
        1.0 - eff, fmt::format("waves_per_sm={:.2f}", w));
}

// A grid of whole waves (no partial last wave) whose SMs are active for a small share of the kernel's time: some
// blocks run far longer than others, and the SMs that drew short ones idle until the longest finishes. Balancing
// the work makes the kernel take the average SM's time instead of the busiest's. Or the SMs cannot all take blocks:
// 12-block clusters of 156 KiB blocks fit 7 at a time on the H100, 84 of 132 SMs working, the SMs active 62% of
// the time while those working issue 76% of their cycles (set 35: both blind labels named the idle SMs).
void detect_sm_imbalance(RuleContext& r) {
  const auto& m = r.m;
  // A grid just under one wave fills the GPU too (all its blocks resident at once): a skewed grouped GEMM of 256
  // blocks in 264 slots on the H200.
  // So does one of at least a block per SM under one wave: every SM holds work from the start, so SMs idle for most
  // of the kernel drew less of it than the busiest (a size-sorted halo list cut into one contiguous slice per SM:
  // 132 blocks of 1024 threads, 0.5 waves, the SMs active 27.5% of the time; set 30).
  const int sms = r.spec ? r.spec->sm_count : 0;
  const bool every_sm = sms > 0 && val(m.grid_size) >= sms;
  if (!m.sm_active_pct || !m.waves_per_sm) return;
  if (*m.waves_per_sm < r.p("tail_wave_efficiency") && !every_sm) return;
  if (r.found(CauseId::tail_wave) || r.found(CauseId::launch_overhead)) return;
  const double w = *m.waves_per_sm, full = std::max(1.0, std::ceil(w - 0.005));
  if (w / full < r.p("tail_wave_efficiency") && !(every_sm && w < 1.0)) return;
  const double active = *m.sm_active_pct;
  if (active >= r.p("imbalance_sm_active_max_pct")) return;
  r.add(CauseId::sm_imbalance, "work imbalance across SMs",
        fmt::format("{:.2f} waves, yet the SMs are active {:.0f}% of the kernel's time: blocks of unequal work leave "
                    "the SMs that drew short ones idle until the longest finishes, or blocks cannot be placed on "
                    "every SM (thread-block clusters that fit fewer times than the GPCs hold SMs)",
                    w, active),
        1.0 - active / 100.0, fmt::format("sm_active={:.0f}%, waves_per_sm={:.2f}", active, w));
}

void detect_small_grid(RuleContext& r) {
  const auto& m = r.m;
  if (r.found(CauseId::launch_overhead) || r.found(CauseId::atomic_contention)) return;
  double blocks = val(m.grid_size);
  int sms = r.spec ? r.spec->sm_count : 0;
  if (blocks > 0 && sms > 0 && blocks < sms) {
    // Latency-bound with the grid under one wave, the SMs that have a block idle most of their block slots too: more
    // blocks add warps there as well as on the idle SMs (set 47's paged-attention decode: 128 blocks of 4 warps for
    // 132 SMs, 0.12 waves, long-scoreboard waits; both blind labels split the context over more blocks). The gain is
    // then the under-one-wave one below where it is larger than the idle SMs'.
    // (The SM and memory figures average over every SM, the idle ones too: the active SMs' own is that over
    // blocks / SMs.)
    const bool few_warps = m.waves_per_sm && *m.waves_per_sm < 1.0 && r.latency_bound();
    const double active_sol = std::min(100.0, r.sol_max() * sms / blocks);
    const double slots = few_warps ? (1.0 - *m.waves_per_sm) * (1.0 - active_sol / 100.0) : 0.0;
    const bool slots_lead = slots > 1.0 - blocks / sms;
    // More blocks cannot take a kernel under a launch's own time (tiny_kernel_us): an 11-us kernel of 8 blocks gains
    // at most half its time, however few of the GPU's slots it fills (set 21's per-sequence means).
    const double floor_cap =
        m.duration_ns && *m.duration_ns > 0 ? std::max(0.0, 1.0 - r.p("tiny_kernel_us") * 1e3 / *m.duration_ns) : 1.0;
    r.add(CauseId::grid_too_small, "grid too small (idle SMs)",
          slots_lead ? fmt::format("{:.0f} blocks for {} SMs: {} of the SMs get no work, and at {:.2f} waves the grid "
                                   "fills {} of the GPU's block slots while the SMs that have work stay {:.0f}% busy",
                                   blocks, sms, pct(1.0 - blocks / sms), *m.waves_per_sm, pct(*m.waves_per_sm),
                                   active_sol)
                     : fmt::format("{:.0f} blocks for {} SMs: {} of the SMs get no work", blocks, sms,
                                   pct(1.0 - blocks / sms)),
          std::min(floor_cap, slots_lead ? slots : 1.0 - blocks / sms),
          slots_lead ? fmt::format("blocks={:.0f}, sms={}, waves_per_sm={:.2f}", blocks, sms, *m.waves_per_sm)
                     : fmt::format("blocks={:.0f}, sms={}", blocks, sms));
    return;
  }
  if (m.waves_per_sm && *m.waves_per_sm < 1.0 && r.latency_bound()) {
    double w = *m.waves_per_sm;
    r.add(CauseId::grid_too_small, "grid too small (under one wave)",
          fmt::format("{:.2f} waves: the grid fills {} of the GPU's block slots while SM and memory stay under "
                      "{:.0f}%",
                      w, pct(w), r.busy()),
          (1.0 - w) * (1.0 - r.sol_max() / 100.0), fmt::format("waves_per_sm={:.2f}", w));
  }
}

void detect_occupancy_limit(RuleContext& r) {
  const auto& m = r.m;
  // Latency-bound, or busy in the SM by issue alone with issue slots to spare (issue counted and under
  // issue_bound_pct, pipes counted and none at pipe_bound_pct, SM under saturated_pct, no memory unit busy): the idle
  // issue slots wait for warps, which more resident warps fill (a Triton kernel at 25% theoretical occupancy on the
  // H200: SM 60.2%, issue 60.8%, the FMA pipe 35%; 59.8% with the other counter source, where it read latency-bound).
  // An absent count is not an idle unit: without the issue and pipe counts the rule keeps to latency-bound kernels.
  const bool pipes_counted = m.fma_pipe_pct || m.alu_pipe_pct || m.fp64_pipe_pct || m.xu_pipe_pct || m.tensor_pipe_pct;
  const bool issue_room = m.issue_active_pct && *m.issue_active_pct < r.p("issue_bound_pct") && pipes_counted &&
                          val(m.sm_throughput_pct) < r.param("classify.saturated_pct") && r.memory_max() < r.busy() &&
                          std::max({val(m.fma_pipe_pct), val(m.alu_pipe_pct), val(m.fp64_pipe_pct), val(m.xu_pipe_pct),
                                    val(m.tensor_pipe_pct), val(m.lsu_pipe_pct)}) < r.p("pipe_bound_pct");
  if (r.found(CauseId::launch_overhead) || r.found(CauseId::grid_too_small) || !(r.latency_bound() || issue_room))
    return;
  // Blocks smaller than a warp: each warp holds only the block's threads, the rest of its lanes do not exist, and the
  // SM's block limit caps its resident threads at that limit times the block. Theoretical occupancy counts warps and
  // misses it (an elementwise kernel launched <<<n, 1>>> on the H200: 50% theoretical, 32 threads per SM of 2048,
  // every warp one lane wide).
  if (auto sub_warp = sub_warp_block(m)) {
    const double lanes = *sub_warp;
    const std::string limit =
        m.occupancy_limit_blocks ? fmt::format(" and {:.0f} blocks per SM hold {:.0f} threads", *m.occupancy_limit_blocks,
                                               *m.occupancy_limit_blocks * lanes)
                                 : std::string();
    r.add(CauseId::occupancy_blocks, "blocks smaller than a warp",
          fmt::format("blocks of {:.0f} thread(s): each warp runs {:.0f} of its 32 lanes{}, while SM {:.1f}% and "
                      "memory {:.1f}% wait",
                      lanes, lanes, limit, val(m.sm_throughput_pct), val(m.memory_throughput_pct)),
          (1.0 - lanes / 32.0) * (1.0 - r.sol_max() / 100.0), fmt::format("block_size={:.0f}, warp_lanes=32", lanes));
    return;
  }
  if (!m.theoretical_occupancy_pct) return;
  struct Limit {
    CauseId id;
    const char* what;
    std::optional<double> blocks;
  };
  // A kernel without shared memory is not limited by it: Nsight Compute then reports the block-count cap as the
  // shared-memory limit, a tie that hid the block limit of one-warp blocks (set 33's B+-tree lookups).
  const bool no_smem = m.shared_mem_per_block_bytes && *m.shared_mem_per_block_bytes <= 0;
  // Nsight Compute counts the shared-memory limit under the carveout the driver chose for the launch, which it sizes to
  // the blocks the other limits let in: a kernel held to one block by its registers shows one block's worth of shared
  // memory as a limit of one too (set 35's CUB segmented radix sort, 255 registers and 30 KB a block: 1 and 1, where
  // the SM's full carveout holds 7; CUPTI's figures, computed from the device's limits, say 1 and 7). The limit is the
  // full carveout's, which the driver takes once the other limit is lifted.
  std::optional<double> smem_limit = no_smem ? std::nullopt : m.occupancy_limit_shared_mem;
  if (smem_limit && r.spec)
    if (const auto full = shared_mem_blocks_at_full_carveout(m, r.spec->sm_limits); full && *full > *smem_limit)
      smem_limit = full;
  Limit limits[] = {{CauseId::occupancy_registers, "registers per thread", m.occupancy_limit_registers},
                    {CauseId::occupancy_shared_memory, "shared memory per block", smem_limit},
                    {CauseId::occupancy_warps, "threads per block", m.occupancy_limit_warps},
                    {CauseId::occupancy_blocks, "the blocks-per-SM limit", m.occupancy_limit_blocks}};
  const Limit* bind = nullptr;
  double others = INFINITY;
  for (const auto& l : limits)
    if (l.blocks && (!bind || *l.blocks < *bind->blocks)) bind = &l;
  if (!bind || *bind->blocks <= 0) return;
  // Registers or shared memory bought by fewer warps are a trade (spills, smaller tiles): only a low occupancy is worth
  // it. A block-count limit costs nothing to lift (larger blocks of the same threads): a latency-bound kernel of
  // one-warp blocks at 50% (32 blocks of 32 threads per SM) wants the other half (set 33's B+-tree lookups, one warp
  // per chain of dependent loads: both blind labels, and Nsight Compute's 50%).
  // There the limit must be what holds the warps back: achieved occupancy near the theoretical (one-warp blocks that
  // end too soon for the SM to keep 32 resident reach far less, and more per block changes nothing of that: PyTorch's
  // embedding gather at 20% of a theoretical 50%).
  // Only blocks of one warp or less: larger ones at the block cap are a launch shape of their own choosing.
  const double theo = *m.theoretical_occupancy_pct;
  const bool one_warp_blocks_held = bind->id == CauseId::occupancy_blocks && m.block_size && *m.block_size <= 32 &&
                                    theo <= r.p("occupancy_blocks_low_pct") && m.achieved_occupancy_pct &&
                                    *m.achieved_occupancy_pct >= r.p("occupancy_achieved_share") * theo;
  if (theo > r.p("occupancy_low_pct") && !one_warp_blocks_held) return;
  for (const auto& l : limits)
    if (&l != bind && l.blocks) others = std::min(others, *l.blocks);
  double target = std::isfinite(others) ? std::min(100.0, theo * others / *bind->blocks) : 100.0;
  if (target <= theo) return;
  // More warps hide latency, not waits on other warps: the share of the waiting spent at barriers, fences or in
  // __nanosleep back-off is not theirs to hide (a chained scan whose blocks sleep on their predecessor's flag, 60%
  // of the waits, at 25% theoretical occupancy on the H200).
  const double total = r.waiting_total();
  const double on_others = total > 0 ? std::clamp(m.waiting_stalls({"barrier", "membar", "sleeping"}) / total, 0.0, 1.0)
                                     : 0.0;
  Finding& f = r.add(bind->id, fmt::format("occupancy limited by {}", bind->what),
        fmt::format("theoretical occupancy {:.1f}%: {} allow {:.0f} block(s) per SM (without that limit: {:.0f}%), "
                    "and with SM {:.1f}% and memory {:.1f}% the warps mostly wait{}",
                    theo, bind->what, *bind->blocks, target, val(m.sm_throughput_pct), val(m.memory_throughput_pct),
                    on_others >= 0.05 ? fmt::format(" ({} of it on other warps: barriers, fences, sleep)", pct(on_others))
                                      : std::string()),
        // More warps fill only the cycles in which nothing issued, as the item's estimate says (analyze/opportunities):
        // the cause weighs no more than that against the others (a cluster-limited kernel issuing on 76% of its active
        // cycles at 25% occupancy, set 35, whose idle SMs are the larger loss).
        std::min((1.0 - theo / target) * (1.0 - on_others),
                 m.issue_active_pct ? std::clamp(1.0 - *m.issue_active_pct / 100.0, 0.0, 1.0) : 1.0),
        fmt::format("theoretical_occupancy={:.1f}%, {}_limit={:.0f} blocks", theo, name(bind->id).substr(10),
                    *bind->blocks));
  // A matrix kernel's registers hold its accumulator tiles: its occupancy is low by design, and it hides latency by
  // keeping tiles and MMAs in flight, not by more warps (which would mean smaller tiles, each operand byte feeding
  // fewer MMAs). Its occupancy does not explain an underfed tensor pipe; the pipe's feed is the cause (set 27's WMMA
  // FFN GEMM, 236 registers, one block an SM, tensor pipe 25%; FlashAttention-2's forward, 255 registers, 57%: both
  // blind labels of each, "tensor pipe underfed").
  if (val(m.flops_tensor) > 0 || (m.tensor_pipe_imma && val(m.tensor_pipe_pct) > 0))
    f.does_not_explain.push_back(CauseId::tensor_underfed);
}

}  // namespace kprof::analyze
