#include "analyze/rule_table.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace kprof::analyze {

namespace {

using C = CauseId;
using R = RemedyId;
constexpr auto kMemory = BottleneckKind::memory;
constexpr auto kCompute = BottleneckKind::compute;
constexpr auto kLatency = BottleneckKind::latency;

CauseSpec specific(CauseId id, RemedyId remedy, std::optional<BottleneckKind> kind, std::vector<CauseId> explains) {
  return {.id = id, .specific = true, .remedy = remedy, .kind = kind, .explains = std::move(explains)};
}
CauseSpec bound(CauseId id, RemedyId remedy, std::optional<BottleneckKind> kind) {
  return {.id = id, .specific = false, .remedy = remedy, .kind = kind};
}
CauseSpec unit_bound(CauseId id, RemedyId remedy, BottleneckKind kind) {
  return {.id = id, .specific = false, .remedy = remedy, .kind = kind, .saturates_unit = true};
}

// A wasteful access pattern explains every memory bound, and the tensor pipe it starves (see bank_conflicts).
const std::vector<CauseId> kAccessExplains = {C::l1_bandwidth, C::l2_bandwidth,   C::dram_bandwidth, C::memory_bound,
                                              C::latency,      C::memory_latency, C::tensor_underfed};
// Too few resident warps explain idle issue slots, whether the SM reads latency-bound or busy by issue alone with
// slots to spare (the occupancy rule's two paths): the plain compute bound there ("raise pipe throughput", SM 60%
// with no pipe near its roof) is the same idle slots, which more warps fill (set 17's Triton Fourier features in ncu
// mode ranked both at 39%).
const std::vector<CauseId> kOccupancyExplains = {C::latency, C::memory_latency, C::compute_bound};
// A dominant stall explains the latency it is, an issue-bound reading made of those waits, and a pipe busy short
// of its roof (the rule fires only when no unit is at its roof: the waits are why the pipe is not; set 9's huge
// unrolled kernel, FMA pipe 73% with 92% of its waiting on instruction fetch).
const std::vector<CauseId> kStallExplains = {C::latency,  C::memory_latency, C::compute_bound, C::fp32_pipe,
                                             C::fp16_pipe, C::int_pipe,      C::fp64_pipe,     C::sfu_pipe,
                                             C::tensor_pipe};
// Waits on the MIO path (its queue full, or its results: shared memory, shuffles, special functions) explain, besides,
// an L1 busy with that path's own traffic: the generic memory bound and L1 bandwidth, where L1 is the busiest memory
// unit (rules_stalls.cpp says where it is not). A shuffle-broadcast MLP on the H200: L1 67.7%, memory 66% against SM
// 59%, 57% of the waits on short scoreboard, no shared wavefronts: the shuffles fill L1, no reuse is missing.
const std::vector<CauseId> kMioExplains = {C::latency,   C::memory_latency, C::compute_bound, C::fp32_pipe,
                                           C::fp16_pipe, C::int_pipe,       C::fp64_pipe,     C::sfu_pipe,
                                           C::tensor_pipe, C::memory_bound, C::l1_bandwidth};
// Fence waits explain, besides, a memory side streaming short of its roof: each fence holds a warp's next accesses
// until the last are acknowledged, capping the bytes in flight (rules_stalls.cpp; set 28's per-element system fence
// at 88-89% of the measured DRAM roof). At the roof the fence's estimate (the room left) is too small to lead.
const std::vector<CauseId> kFenceExplains = {C::latency,  C::memory_latency, C::compute_bound, C::fp32_pipe,
                                             C::fp16_pipe, C::int_pipe,      C::fp64_pipe,     C::sfu_pipe,
                                             C::tensor_pipe, C::memory_bound, C::dram_bandwidth};

std::vector<Rule> make_rules() {
  return {
      {"launch_overhead",
       detect_launch_overhead,
       {{.id = C::launch_overhead, .specific = true, .remedy = R::launch_overhead, .kind = kLatency,
         .explains_every_bound = true, .leads_without_gain = true}},
       {"diagnosis.launch_bound_max_us", "diagnosis.launch_bound_min_launches", "diagnosis.launch_bound_idle_share",
        "diagnosis.tiny_kernel_us"}},
      // Its counters describe the profiler's resident replay, not the timed run's first-touch time: it explains
      // every bound they show.
      {"page_migration",
       detect_page_migration,
       {{.id = C::page_migration, .specific = true, .remedy = R::prefetch, .kind = kMemory,
         .explains_every_bound = true}},
       {"diagnosis.replay_slowdown_min", "diagnosis.replay_slowdown_min_us"}},
      // No kind of its own: contended atomics wait (latency-bound), atomics that saturate L2 keep it busy
      // (memory-bound); the heading takes the kind of the bound the finding explains.
      {"atomic_contention",
       detect_atomic_contention,
       {specific(C::atomic_contention, R::atomics, std::nullopt,
                 {C::latency, C::memory_latency, C::l1_bandwidth, C::l2_bandwidth, C::memory_bound})},
       {"diagnosis.atomic_request_share", "diagnosis.atomic_l2_sector_share", "diagnosis.atomic_spread_dram_bytes",
        "diagnosis.shared_atomic_wavefronts_per_inst", "diagnosis.shared_atomic_share_min", "diagnosis.onchip_bound_pct",
        "diagnosis.atomic_l2_traffic_share_min", "diagnosis.atomic_l2_spread_sectors", "diagnosis.dram_bound_pct",
        "classify.busy_pct"}},
      // A tensor pipe left underfed is fed through shared memory and registers from global memory: conflicts on the
      // staged tiles, spilled registers and wasteful loads are why it idles, and the first thing to fix (cuDNN's
      // 7x7 stem conv with 48% conflicted wavefronts, PyTorch's fp32 memory-efficient attention with local memory,
      // both on the H200, ranked "feed the tensor cores" first).
      {"bank_conflicts",
       detect_bank_conflicts,
       {specific(C::smem_bank_conflicts, R::smem_conflicts, kMemory,
                 {C::l1_bandwidth, C::memory_bound, C::latency, C::memory_latency, C::tensor_underfed})},
       {"diagnosis.bank_conflict_share", "diagnosis.shared_atomic_share_min",
        "diagnosis.shared_atomic_wavefronts_per_inst", "diagnosis.latency_stall_share"}},
      {"access_pattern",
       detect_access_pattern,
       {specific(C::uncoalesced_global, R::coalesce, kMemory, kAccessExplains),
        specific(C::scattered_access, R::locality, kMemory, kAccessExplains)},
       {"diagnosis.uncoalesced_sectors_per_request", "diagnosis.uncoalesced_l2_bound_sectors_per_request",
        "diagnosis.uncoalesced_l1_hit_min_pct",
        "diagnosis.uncoalesced_l2_hit_min_pct", "diagnosis.scattered_sectors_per_request",
        "diagnosis.scattered_l2_hit_max_pct", "diagnosis.dram_bound_pct", "diagnosis.sector_bytes_min", "diagnosis.onchip_bound_pct",
        "diagnosis.atomic_spread_dram_bytes", "diagnosis.store_sector_rewrites_min",
        "diagnosis.rewrite_min_dram_write_mb", "diagnosis.store_rewrite_waste_min", "diagnosis.store_fill_min",
        "diagnosis.store_fill_max", "diagnosis.store_fill_writes_share", "diagnosis.dram_at_roof_pct",
        "classify.busy_pct", "classify.streaming_bytes_ratio", "diagnosis.strided_dram_per_sector_max",
        "diagnosis.merged_store_dram_share", "diagnosis.strided_dram_min_pct",
        "diagnosis.atomic_l2_sector_share", "diagnosis.gather_reread_min", "diagnosis.strided_used_per_dram_min"}},
      // Removing a local array removes the instructions that address it: a pipe those instructions keep busy (the
      // integer pipe of a kernel with 8.8 GB of local traffic) does not bound the fix.
      {"local_memory",
       detect_local_memory,
       {specific(C::local_memory, R::local_memory, kMemory,
                 {C::l1_bandwidth, C::l2_bandwidth, C::dram_bandwidth, C::memory_bound, C::latency, C::memory_latency,
                  C::tensor_underfed, C::int_pipe, C::fp32_pipe, C::compute_bound})},
       {"diagnosis.local_traffic_share"}},
      {"divergence",
       detect_divergence,
       {specific(C::warp_divergence, R::divergence, kCompute,
                 {C::fp32_pipe, C::fp16_pipe, C::int_pipe, C::fp64_pipe, C::sfu_pipe, C::compute_bound})},
       {"diagnosis.divergence_threads"}},
      // Specific on the compute side only: the rule demotes it on the memory side.
      {"matmul_off_tensor",
       detect_matmul_off_tensor,
       {specific(C::matmul_without_tensor_cores, R::tensor_cores, kCompute,
                 {C::fp32_pipe, C::fp16_pipe, C::int_pipe, C::l1_bandwidth, C::compute_bound})},
       {"diagnosis.matmul_names", "diagnosis.matmul_min_intensity", "diagnosis.matmul_min_counted_intensity",
        "diagnosis.matmul_max_fma_integer_share", "diagnosis.tensor_port_roof_share",
        "diagnosis.dram_bound_pct"}},
      // A partial last wave idles most SMs for its duration: it lowers the average throughput of whatever unit
      // binds, DRAM as much as a pipe (PyTorch's fused AdamW: 1.21 waves, DRAM at 83% of the copy roof).
      {"tail_wave",
       detect_tail_wave,
       {specific(C::tail_wave, R::whole_waves, std::nullopt,
                 {C::latency, C::memory_latency, C::fp32_pipe, C::fp16_pipe, C::int_pipe, C::fp64_pipe, C::sfu_pipe,
                  C::tensor_pipe, C::compute_bound, C::dram_bandwidth})},
       {"diagnosis.tail_wave_efficiency"}},
      // Blocks of unequal work on a grid of whole waves: the SMs that drew short blocks idle while the others run
      // (a grid of 8 blocks per SM where every 16th block does 48x the work, on the H200: SMs active 16% of the
      // kernel's time, the FMA pipe 64% busy while they are). Like idle SMs, it explains every SM-local bound.
      {"sm_imbalance",
       detect_sm_imbalance,
       {specific(C::sm_imbalance, R::imbalance, kLatency,
                 {C::latency, C::memory_latency, C::tensor_underfed, C::fp32_pipe, C::fp16_pipe, C::int_pipe,
                  C::fp64_pipe, C::sfu_pipe, C::tensor_pipe, C::compute_bound, C::l1_bandwidth})},
       {"diagnosis.tail_wave_efficiency", "diagnosis.imbalance_sm_active_max_pct"}},
      // Idle SMs lower every unit's average, the tensor pipe's too: cuDNN's persistent LSTM on 64 of 132 SMs read
      // "tensor pipe underfed" at 24% busy, and filling the GPU is the first step.
      // A pipe's busy share is measured over the active SMs' cycles: 77% busy on 8 of 132 SMs bounds nothing on
      // the 124 idle ones, so filling the GPU is not capped by that pipe's headroom (it explains every SM-local
      // bound; DRAM and L2 are shared by all SMs and stay real bounds).
      {"small_grid",
       detect_small_grid,
       {specific(C::grid_too_small, R::grid_fill, kLatency,
                 {C::latency, C::memory_latency, C::tensor_underfed, C::fp32_pipe, C::fp16_pipe, C::int_pipe,
                  C::fp64_pipe, C::sfu_pipe, C::tensor_pipe, C::compute_bound, C::l1_bandwidth})},
       {"classify.busy_pct", "classify.saturated_pct", "diagnosis.grid_leads_saturated_min_gain_pct",
        "diagnosis.tiny_kernel_us"}},
      // What warps wait for, when one reason dominates: barriers (uneven work in a block), fences, sleeping, the
      // constant or instruction cache, branches, full queues, dependent instructions; or "not diagnosed".
      {"dominant_stall",
       detect_dominant_stall,
       {specific(C::barrier_stall, R::block_balance, kLatency, kMioExplains),
        specific(C::memory_fence, R::fences, kLatency, kFenceExplains),
        specific(C::sleeping, R::spin_wait, kLatency, kStallExplains),
        specific(C::constant_cache, R::constant_access, kLatency, kStallExplains),
        specific(C::instruction_cache, R::code_size, kLatency, kStallExplains),
        specific(C::branch_resolution, R::branches, kLatency, kStallExplains),
        specific(C::lsu_queue, R::wider_accesses, kMemory, kStallExplains),
        specific(C::mio_queue, R::mio_pressure, kMemory, kMioExplains),
        // Waiting on MIO results is relieved by fewer MIO instructions (wider shared accesses, values kept in
        // registers, fewer shuffles or special functions): Nsight Compute's guidance for short-scoreboard stalls, and
        // what the blind labels of a shuffle-bound kernel name (held-out set 27; set 10's shuffle butterfly, on the MIO
        // queue, likewise).
        specific(C::shared_latency, R::mio_pressure, kLatency, kMioExplains),
        specific(C::dependency_wait, R::pipe_throughput, kLatency, kStallExplains),
        {.id = C::undiagnosed_stall, .specific = true, .remedy = R::none, .kind = kLatency,
         .explains = kStallExplains, .leads_without_gain = true}},
       {"diagnosis.dominant_stall_share", "diagnosis.pipe_bound_pct", "diagnosis.dram_bound_pct",
        "diagnosis.onchip_bound_pct", "diagnosis.l1_data_min_bytes_per_clk", "diagnosis.uncoalesced_sectors_per_request",
        "classify.saturated_pct", "classify.busy_pct", "diagnosis.barrier_streaming_dram_pct",
        "diagnosis.barrier_memory_wait_share", "diagnosis.at_roof_pct", "diagnosis.library_kernel_names",
        "diagnosis.wait_pipe_bound_pct"}},
      {"occupancy_limit",
       detect_occupancy_limit,
       {specific(C::occupancy_registers, R::occupancy, kLatency, kOccupancyExplains),
        specific(C::occupancy_shared_memory, R::occupancy, kLatency, kOccupancyExplains),
        specific(C::occupancy_warps, R::occupancy, kLatency, kOccupancyExplains),
        specific(C::occupancy_blocks, R::occupancy, kLatency, kOccupancyExplains)},
       {"diagnosis.occupancy_low_pct", "diagnosis.occupancy_blocks_low_pct", "diagnosis.occupancy_achieved_share",
        "classify.busy_pct",
        "diagnosis.issue_bound_pct", "diagnosis.pipe_bound_pct",
        "classify.saturated_pct"}},
      // Each bound points to the remedy below its roof; at the roof the rule leaves none.
      {"plain_bounds",
       detect_plain_bounds,
       {unit_bound(C::dram_bandwidth, R::dram_bandwidth, kMemory),
        unit_bound(C::fp32_pipe, R::pipe_throughput, kCompute),
        unit_bound(C::fp16_pipe, R::pipe_throughput, kCompute),
        unit_bound(C::int_pipe, R::pipe_throughput, kCompute),
        unit_bound(C::fp64_pipe, R::pipe_throughput, kCompute),
        // Below its roof, a special-function pipe is relieved by fewer MUFU instructions (hoisted out of loops,
        // cheaper approximations, tables), not by more of them in flight: what the blind labels of four such kernels
        // name (held-out sets 12, 14, 24, 25).
        unit_bound(C::sfu_pipe, R::mio_pressure, kCompute),
        unit_bound(C::tensor_pipe, R::feed_tensor, kCompute),
        bound(C::l2_bandwidth, R::onchip_reuse, kMemory),
        bound(C::l1_bandwidth, R::onchip_reuse, kMemory),
        bound(C::memory_latency, R::memory_parallelism, kLatency),
        bound(C::latency, R::memory_parallelism, kLatency),
        bound(C::memory_bound, R::onchip_reuse, kMemory),
        // Host memory read over the link at its rate (zero-copy): the finding leaves no in-kernel remedy (the link is
        // at its roof); the host-memory item moves the bytes into device memory.
        bound(C::host_link, R::prefetch, kMemory),
        bound(C::compute_bound, R::pipe_throughput, kCompute)},
       {"diagnosis.host_memory_min_share", "diagnosis.host_link_bound_pct", "opportunities.pinned_copy_gbps",
        "diagnosis.at_roof_pct", "diagnosis.dram_at_roof_pct", "diagnosis.dram_bound_pct", "diagnosis.pipe_bound_pct", "diagnosis.onchip_bound_pct",
        "diagnosis.latency_stall_share", "diagnosis.issue_bound_pct", "diagnosis.issue_over_pipe_pct", "diagnosis.library_kernel_names", "classify.busy_pct",
        "classify.saturated_pct", "diagnosis.mixed_wait_occupancy_max_pct", "diagnosis.reuse_reread_min",
        "diagnosis.stream_loads_min", "diagnosis.l1_data_min_bytes_per_clk", "diagnosis.uncoalesced_sectors_per_request", "diagnosis.issue_reread_min", "diagnosis.issue_reread_l1_hit_min_pct",
        "diagnosis.wait_pipe_bound_pct",
        "diagnosis.occupancy_low_pct", "diagnosis.dominant_stall_share", "diagnosis.pipe_saturated_stall_share",
        "diagnosis.fp64_mixed_min_share", "diagnosis.fp64_math_instruction_ratio", "diagnosis.narrow_access_bytes_max", "diagnosis.narrow_access_dram_min_pct", "diagnosis.l1_table_hit_min_pct",
        "diagnosis.sector_bytes_min"}},
      {"tensor_underfed",
       detect_tensor_underfed,
       {bound(C::tensor_underfed, R::feed_tensor, std::nullopt)},
       {"diagnosis.pipe_bound_pct", "diagnosis.library_kernel_names", "classify.saturated_pct",
        "diagnosis.dominant_stall_share", "diagnosis.at_roof_pct"}},
  };
}

}  // namespace

const std::vector<Rule>& diagnosis_rules() {
  static const std::vector<Rule> rules = make_rules();
  return rules;
}

const CauseSpec& cause_spec(CauseId id) {
  static const auto by_id = [] {
    std::array<const CauseSpec*, kCauseIdCount> index{};
    for (const auto& rule : diagnosis_rules())
      for (const auto& c : rule.causes) index[static_cast<std::size_t>(c.id)] = &c;
    return index;
  }();
  const CauseSpec* spec = by_id[static_cast<std::size_t>(id)];
  if (!spec) throw std::logic_error("cause " + std::string(name(id)) + " is in no diagnosis rule");
  return *spec;
}

bool explains(CauseId specific, CauseId bound) {
  const CauseSpec& s = cause_spec(specific);
  if (s.explains_every_bound) return !cause_spec(bound).specific;
  return std::find(s.explains.begin(), s.explains.end(), bound) != s.explains.end();
}

bool throughput_bound(CauseId cause) { return cause_spec(cause).saturates_unit; }

bool per_sm_unit(CauseId cause) {
  using C = CauseId;
  return cause == C::fp32_pipe || cause == C::fp16_pipe || cause == C::int_pipe || cause == C::fp64_pipe ||
         cause == C::sfu_pipe || cause == C::tensor_pipe || cause == C::l1_bandwidth;
}

}  // namespace kprof::analyze
