#include "analyze/stall_reasons.hpp"

#include <algorithm>
#include <iterator>

namespace kprof::analyze {

namespace {
using C = CauseId;
// Nsight Compute's stall reasons on Hopper (its WarpStateStats section), with what warps wait for.
const StallReason kStalls[] = {
    {"long_scoreboard", "an L1TEX result (global, local, texture memory)", std::nullopt, C::memory_latency},
    {"barrier", "the other warps of the block at a barrier (__syncthreads)", C::barrier_stall},
    {"membar", "a memory fence (__threadfence) to complete", C::memory_fence},
    {"sleeping", "the end of a __nanosleep or a yield", C::sleeping},
    {"imc_miss", "the immediate constant cache (a constant-memory miss or divergent constant indices)",
     C::constant_cache},
    {"no_instruction", "instructions to be fetched (instruction-cache misses)", C::instruction_cache},
    {"branch_resolving", "a branch target to be computed", C::branch_resolution},
    {"lg_throttle", "room in the local/global memory instruction queue", C::lsu_queue},
    {"tex_throttle", "room in the texture/L1 queue", C::lsu_queue},
    {"mio_throttle", "room in the MIO queue (shared memory, special functions, shuffles)", C::mio_queue},
    {"short_scoreboard", "an MIO result (shared memory, special functions)", C::shared_latency},
    {"wait", "a fixed-latency dependency (the result of the previous arithmetic instruction)", C::dependency_wait},
    {"math_pipe_throttle", "a busy math pipe", std::nullopt, C::compute_bound},
    {"gmma", "warpgroup MMA (wgmma) operations to complete", std::nullopt, C::tensor_pipe},
    {"not_selected", "the scheduler, which picked another eligible warp", std::nullopt, C::compute_bound},
    {"selected", "nothing: it issued", std::nullopt, C::compute_bound},
    {"dispatch_stall", "the dispatcher (a pipeline conflict)", std::nullopt},
    {"drain", "its stores to drain at exit", std::nullopt},
    {"misc", "something Nsight Compute does not break down", std::nullopt},
};
}  // namespace

std::span<const StallReason> stall_reasons() { return kStalls; }

const StallReason* find_stall_reason(std::string_view reason) {
  auto it = std::find_if(std::begin(kStalls), std::end(kStalls), [&](const StallReason& s) { return s.reason == reason; });
  return it == std::end(kStalls) ? nullptr : &*it;
}

}  // namespace kprof::analyze
