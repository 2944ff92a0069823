// The causes the diagnosis names and the remedies it points to, as enums: code compares these, so a misspelt id
// does not compile. Their names are the ids a Cause and an Opportunity carry into profile.json and contract.json
// (which tests and agents match on: they never change); analyze/rule_table.cpp and analyze/remedies.cpp say what
// each one means.
#pragma once
#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>

namespace kprof::analyze {

enum class CauseId {
  launch_overhead, atomic_contention, smem_bank_conflicts, uncoalesced_global, scattered_access, local_memory,
  warp_divergence, matmul_without_tensor_cores, tail_wave, grid_too_small, occupancy_registers,
  occupancy_shared_memory, occupancy_warps, occupancy_blocks, dram_bandwidth, fp32_pipe, fp16_pipe, int_pipe,
  fp64_pipe, sfu_pipe, tensor_pipe, l2_bandwidth, l1_bandwidth, memory_latency, latency, memory_bound,
  compute_bound, tensor_underfed,
  // Named by the warp stall reason that dominates (analyze/stall_reasons.cpp maps every reason Nsight Compute
  // reports): barriers, fences, sleeping, the constant and instruction caches, branch resolution, the LSU and MIO
  // queues, shared-memory/special-function results, fixed-latency dependencies; undiagnosed_stall says which
  // reason dominates when kprof has no remedy for it.
  barrier_stall, memory_fence, sleeping, constant_cache, instruction_cache, branch_resolution, lsu_queue, mio_queue,
  shared_latency, dependency_wait, undiagnosed_stall,
  // Work spread unevenly over the SMs: a grid of whole waves whose SMs are active for a small share of its time.
  sm_imbalance,
  // The timed run far slower than the profiler's replay of the same launch, with no other kernel beside it: what the
  // replay did not pay (managed memory migrating on page faults at first touch).
  page_migration,
  // The host link moves the work's bytes: copies between host and device that take most of a range's GPU span, or a
  // kernel reading host memory over the link (zero-copy, mapped) near the link's rate.
  host_link,
};
enum class RemedyId {
  none,  // nothing left to gain: a plain bound at its roof
  launch_overhead, atomics, smem_conflicts, coalesce, locality, local_memory, divergence, tensor_cores, whole_waves,
  grid_fill, occupancy, memory_parallelism, onchip_reuse, dram_bandwidth, dram_traffic, feed_tensor,
  pipe_throughput, fp_instructions, imbalance,
  block_balance, fences, spin_wait, constant_access, code_size, branches, wider_accesses, mio_pressure,
  library_tuning, prefetch, precision,
  // Whole-run remedies (ProfileRun::program_opportunities): fuse stages, overlap them, stop synchronising.
  fuse_stages, overlap_stages, host_sync, host_work,
};

namespace detail {
template <typename Id>
struct IdName {
  Id id;
  std::string_view name;
};
// Each list holds every id once, in declaration order (checked below), so name() is an index.
inline constexpr IdName<CauseId> kCauseNames[] = {
    {CauseId::launch_overhead, "launch_overhead"},
    {CauseId::atomic_contention, "atomic_contention"},
    {CauseId::smem_bank_conflicts, "smem_bank_conflicts"},
    {CauseId::uncoalesced_global, "uncoalesced_global"},
    {CauseId::scattered_access, "scattered_access"},
    {CauseId::local_memory, "local_memory"},
    {CauseId::warp_divergence, "warp_divergence"},
    {CauseId::matmul_without_tensor_cores, "matmul_without_tensor_cores"},
    {CauseId::tail_wave, "tail_wave"},
    {CauseId::grid_too_small, "grid_too_small"},
    {CauseId::occupancy_registers, "occupancy_registers"},
    {CauseId::occupancy_shared_memory, "occupancy_shared_memory"},
    {CauseId::occupancy_warps, "occupancy_warps"},
    {CauseId::occupancy_blocks, "occupancy_blocks"},
    {CauseId::dram_bandwidth, "dram_bandwidth"},
    {CauseId::fp32_pipe, "fp32_pipe"},
    {CauseId::fp16_pipe, "fp16_pipe"},
    {CauseId::int_pipe, "int_pipe"},
    {CauseId::fp64_pipe, "fp64_pipe"},
    {CauseId::sfu_pipe, "sfu_pipe"},
    {CauseId::tensor_pipe, "tensor_pipe"},
    {CauseId::l2_bandwidth, "l2_bandwidth"},
    {CauseId::l1_bandwidth, "l1_bandwidth"},
    {CauseId::memory_latency, "memory_latency"},
    {CauseId::latency, "latency"},
    {CauseId::memory_bound, "memory_bound"},
    {CauseId::compute_bound, "compute_bound"},
    {CauseId::tensor_underfed, "tensor_underfed"},
    {CauseId::barrier_stall, "barrier_stall"},
    {CauseId::memory_fence, "memory_fence"},
    {CauseId::sleeping, "sleeping"},
    {CauseId::constant_cache, "constant_cache"},
    {CauseId::instruction_cache, "instruction_cache"},
    {CauseId::branch_resolution, "branch_resolution"},
    {CauseId::lsu_queue, "lsu_queue"},
    {CauseId::mio_queue, "mio_queue"},
    {CauseId::shared_latency, "shared_latency"},
    {CauseId::dependency_wait, "dependency_wait"},
    {CauseId::undiagnosed_stall, "undiagnosed_stall"},
    {CauseId::sm_imbalance, "sm_imbalance"},
    {CauseId::page_migration, "page_migration"},
    {CauseId::host_link, "host_link"},
};
inline constexpr IdName<RemedyId> kRemedyNames[] = {
    {RemedyId::none, "none"},
    {RemedyId::launch_overhead, "launch_overhead"},
    {RemedyId::atomics, "atomics"},
    {RemedyId::smem_conflicts, "smem_conflicts"},
    {RemedyId::coalesce, "coalesce"},
    {RemedyId::locality, "locality"},
    {RemedyId::local_memory, "local_memory"},
    {RemedyId::divergence, "divergence"},
    {RemedyId::tensor_cores, "tensor_cores"},
    {RemedyId::whole_waves, "whole_waves"},
    {RemedyId::grid_fill, "grid_fill"},
    {RemedyId::occupancy, "occupancy"},
    {RemedyId::memory_parallelism, "memory_parallelism"},
    {RemedyId::onchip_reuse, "onchip_reuse"},
    {RemedyId::dram_bandwidth, "dram_bandwidth"},
    {RemedyId::dram_traffic, "dram_traffic"},
    {RemedyId::feed_tensor, "feed_tensor"},
    {RemedyId::pipe_throughput, "pipe_throughput"},
    {RemedyId::fp_instructions, "fp_instructions"},
    {RemedyId::imbalance, "imbalance"},
    {RemedyId::block_balance, "block_balance"},
    {RemedyId::fences, "fences"},
    {RemedyId::spin_wait, "spin_wait"},
    {RemedyId::constant_access, "constant_access"},
    {RemedyId::code_size, "code_size"},
    {RemedyId::branches, "branches"},
    {RemedyId::wider_accesses, "wider_accesses"},
    {RemedyId::mio_pressure, "mio_pressure"},
    {RemedyId::library_tuning, "library_tuning"},
    {RemedyId::prefetch, "prefetch"},
    {RemedyId::precision, "precision"},
    {RemedyId::fuse_stages, "fuse_stages"},
    {RemedyId::overlap_stages, "overlap_stages"},
    {RemedyId::host_sync, "host_sync"},
    {RemedyId::host_work, "host_work"},
};
template <typename Id, std::size_t N>
constexpr bool in_declaration_order(const IdName<Id> (&names)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(names[i].id) != i) return false;
  return true;
}
static_assert(in_declaration_order(kCauseNames) &&
              std::size(kCauseNames) == static_cast<std::size_t>(CauseId::host_link) + 1);
static_assert(in_declaration_order(kRemedyNames) &&
              std::size(kRemedyNames) == static_cast<std::size_t>(RemedyId::host_work) + 1);

template <typename Id, std::size_t N>
constexpr std::optional<Id> id_named(const IdName<Id> (&names)[N], std::string_view name) {
  for (const auto& n : names)
    if (n.name == name) return n.id;
  return std::nullopt;
}
}  // namespace detail

// How many ids there are: CauseId{0} to CauseId{kCauseIdCount - 1}.
inline constexpr std::size_t kCauseIdCount = std::size(detail::kCauseNames);
inline constexpr std::size_t kRemedyIdCount = std::size(detail::kRemedyNames);

constexpr std::string_view name(CauseId id) { return detail::kCauseNames[static_cast<std::size_t>(id)].name; }
constexpr std::string_view name(RemedyId id) { return detail::kRemedyNames[static_cast<std::size_t>(id)].name; }

// The label of the memory-latency reading of a kernel whose bulk (TMA) tile copies and math take turns
// (rules_bounds.cpp): its item is worded for bulk copies (opportunities.cpp).
inline constexpr const char* kBulkCopiesTakeTurns = "bulk copies and compute take turns";

// The id with this name, read back from a Cause or a data file; nullopt for a name kprof does not know (the
// remedy thresholds.toml gives an Nsight Compute rule kprof has none for).
constexpr std::optional<CauseId> cause_id(std::string_view name) { return detail::id_named(detail::kCauseNames, name); }
constexpr std::optional<RemedyId> remedy_id(std::string_view name) {
  return detail::id_named(detail::kRemedyNames, name);
}

}  // namespace kprof::analyze
