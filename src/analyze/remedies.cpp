#include "analyze/remedies.hpp"

namespace kprof::analyze {

namespace {
const Remedy kRemedies[] = {
    {RemedyId::launch_overhead, "Cut launch overhead (CUDA graph, or fuse the small kernels)",
     "The GPU waits between launches longer than the kernels run; a graph or a fused kernel removes the gaps.", true},
    {RemedyId::atomics, "Reduce atomic contention (reduce per warp/block first, one atomic per block)",
     "Atomics to one address serialise (in L2 for global, in the shared-memory banks for shared); a warp-shuffle "
     "or __match_any_sync aggregation, or a private copy per warp, leaves one update per group."},
    {RemedyId::smem_conflicts, "Remove shared-memory bank conflicts (pad or swizzle the array)",
     "Lanes of a warp hit the same bank, so each access replays; padding a row by one word or an XOR swizzle "
     "spreads them over the 32 banks."},
    {RemedyId::coalesce, "Coalesce global accesses (adjacent threads, adjacent addresses)",
     "Each warp access touches many sectors for few useful bytes; remap threads to contiguous data or stage the "
     "transposition through shared memory."},
    {RemedyId::locality, "Improve gather locality (sort or bucket the indices, compact the gathered data)",
     "Random 4-byte gathers pull a 32-byte sector each; ordering the indices or packing hot data makes sectors "
     "serve several accesses."},
    {RemedyId::local_memory, "Keep per-thread data in registers or shared memory (no local memory)",
     "Local memory is DRAM-backed traffic through L1; index arrays statically, cut live values, or relax the "
     "register cap (__launch_bounds__, maxrregcount) to stop spills."},
    {RemedyId::divergence, "Make warps uniform (regroup work so a warp's lanes take the same path)",
     "Lanes of a warp follow different trip counts or branches, so the warp runs with lanes masked off; sort or "
     "bin work by its length."},
    {RemedyId::tensor_cores, "Use tensor cores for the matrix math (mma / wgmma, or TF32/BF16 library GEMMs)",
     "The kernel multiplies matrices with scalar FMAs while the tensor pipe idles; MMA instructions run the same "
     "math an order of magnitude faster.",
     true},
    {RemedyId::whole_waves, "Size the grid to whole waves (more, smaller blocks or a persistent grid)",
     "The last wave of blocks occupies only part of the GPU; with more, shorter blocks (or one block per SM "
     "looping over work) the tail shrinks."},
    {RemedyId::grid_fill, "Fill the GPU (more blocks)",
     "Too few blocks to give every SM work; split the work into more blocks."},
    {RemedyId::occupancy, "Raise occupancy (lift the binding register / shared-memory / block-size limit)",
     "Too few warps are resident to hide latency; fewer registers (__launch_bounds__), less shared memory per "
     "block or a different block size lets more warps in."},
    {RemedyId::memory_parallelism, "Put more independent memory requests in flight (ILP, unrolling, prefetching)",
     "Warps wait on memory with too few requests outstanding to cover its latency (one small load per thread, or "
     "each load waiting for the one before) while the memory system has room; more independent loads per thread "
     "(unrolling, wider loads, prefetching) keep more bytes in flight."},
    {RemedyId::onchip_reuse, "Reuse data on chip (shared-memory / register tiling)",
     "The same bytes are fetched again and again from L1/L2; tiles held in shared memory or registers serve the "
     "reuse at far higher bandwidth."},
    {RemedyId::dram_bandwidth, "Reach peak DRAM bandwidth (wider loads, more bytes in flight)",
     "DRAM-bound below the measured DRAM roof: 16-byte loads and more independent loads per thread approach "
     "the roof."},
    {RemedyId::dram_traffic, "Cut DRAM traffic to the declared minimum (fuse, reuse)",
     "The kernel moves more bytes than its work needs; fuse producers and consumers or reuse data to cut "
     "traffic."},
    {RemedyId::feed_tensor, "Feed the tensor cores (larger MMA tiles staged in shared memory; wgmma on Hopper)",
     "Tensor math runs with the tensor pipe mostly idle: each operand byte must feed more MMAs."},
    {RemedyId::pipe_throughput, "Raise pipe throughput (more independent instructions per warp)",
     "The busiest pipe is below its sustained peak; independent instruction streams (ILP) or fewer auxiliary "
     "instructions keep it fed."},
    {RemedyId::fp_instructions, "Fuse floating-point instructions (FMA instead of separate multiply and add)",
     "Separate FMUL/FADD pairs (counted from the SASS opcodes, by Nsight Compute's rule or kprof) that an FMA would do "
     "in one instruction."},
    {RemedyId::imbalance, "Balance work across SMs and sub-partitions",
     "Some SMs or sub-partitions do more work than others, so the kernel waits for the slowest."},
    {RemedyId::block_balance,
     "Balance work across the warps of a block (split the serial part, fewer __syncthreads per step)",
     "Warps wait at block barriers for the warp with the most work (or for a barrier after every small step); "
     "spread the serial part over all warps, give warps equal shares, or synchronise less often (warp-level "
     "primitives, double buffering, warp specialisation)."},
    {RemedyId::fences, "Remove or narrow memory fences (block-scope fences, one fence per batch of stores)",
     "Warps wait for __threadfence()/membar to make their stores visible GPU-wide; fence once after a batch of "
     "stores, use block scope where that is all that needs to see them, or release/acquire flags."},
    {RemedyId::spin_wait, "Stop spin-waiting (signal completion instead of polling with sleeps)",
     "Warps spend their time in __nanosleep back-off while polling a flag; order the work so no one waits "
     "(separate kernels, or a stream/graph dependency) or shorten the wait the flags encode."},
    {RemedyId::constant_access, "Make constant-memory indices uniform across a warp (or move the table to shared memory)",
     "The constant cache serves one address per warp per cycle: divergent indices serialise, and misses wait on the "
     "constant cache; index __constant__ data uniformly, or read per-thread tables from shared/global memory."},
    {RemedyId::code_size, "Cut code size in the hot loop (less unrolling and inlining)",
     "Warps wait for instructions to be fetched: the hot code does not fit the instruction cache; unroll and "
     "inline less, or split rarely taken paths out of the loop."},
    {RemedyId::branches, "Simplify control flow in the hot loop (fewer, more uniform branches)",
     "Warps wait for branch targets to resolve; hoist conditions out of the loop, use predication or select "
     "instructions, and keep a warp's lanes on one path."},
    {RemedyId::wider_accesses, "Issue fewer, wider memory instructions (16-byte vector loads, fewer local accesses)",
     "The load/store queue to L1 is full: each warp issues many small memory instructions; vector loads and "
     "stores (float4), fewer local-memory accesses and fewer redundant loads drain it."},
    {RemedyId::mio_pressure, "Issue fewer shared-memory and special-function instructions (wider shared accesses)",
     "The MIO path (shared memory, warp shuffles, special functions, some conversions) or the special-function pipe "
     "behind it is busy, or warps wait for its results; 16-byte shared accesses, register caching of reused shared "
     "values, fewer shuffles (one wide broadcast instead of many) and fewer MUFU instructions (hoisted out of loops, "
     "cheaper approximations, tables) relieve it."},
    {RemedyId::library_tuning,
     "Tune the library call (tile-filling shapes, batching, a fused epilogue, lower precision)",
     "The kernel is a library's: its code is not the caller's to change, so what is left is in the call: problem "
     "sizes that fill whole tiles and waves, dimensions whose rows start on 16-byte boundaries (multiples of 8 "
     "bf16/fp16 elements) so the library can pick its fastest kernels (wgmma/TMA on Hopper) rather than a fallback "
     "for unaligned operands, batching small calls, fusing the epilogue (bias, activation) and FP8 where accuracy "
     "allows."},
    {RemedyId::prefetch,
     "Have the data on the GPU before the kernel runs (cudaMemPrefetchAsync for managed memory, or device buffers "
     "and one asynchronous copy)",
     "Prefetching the buffers to the device ahead of the launch (cudaMemPrefetchAsync), or allocating them there and "
     "copying once, moves them in bulk at the host link's rate, off the kernel's path, instead of page by page on "
     "faults while the kernel runs.",
     true},
    {RemedyId::precision,
     "Compute in FP32, not FP64, where the accuracy allows (float literals and float math functions)",
     "FP64 instructions run at a fraction of FP32's rate (half on the H100 and H200, far less on most other GPUs), and "
     "a double literal (1.0, not 1.0f) or a double math function (exp, not expf) promotes a float expression to FP64: "
     "float literals, the f-suffixed functions (or the fast intrinsics) keep it in FP32, with far cheaper hardware "
     "approximations for exp, log and erf than FP64's software sequences."},
    {RemedyId::fuse_stages, "Fuse the stages (keep the intermediate on chip)",
     "One stage writes an intermediate to DRAM and the next reads it back near the DRAM roof; a fused kernel keeps "
     "it in registers or shared memory (epilogue fusion, flash-attention style) and removes the round trip.",
     true},
    {RemedyId::overlap_stages, "Overlap independent stages (streams or a CUDA graph with parallel branches)",
     "Stages that leave most SMs idle run one after another; independent ones can run concurrently."},
    {RemedyId::host_sync, "Remove host synchronisations between launches (async copies, no .item() in the loop)",
     "The GPU idles while the host waits for each result before launching the next kernel; keep results on the "
     "device, synchronise once, and capture the loop in a CUDA graph.",
     true},
    {RemedyId::host_work, "Take the host's work out of the GPU's path (do it on the GPU, or ahead of it)",
     "The GPU idles in long gaps while the host works between its launches: computing outside CUDA calls (data "
     "prepared or random numbers drawn on the CPU, Python work per step) or in calls that do not wait for the GPU "
     "(a buffer pinned, a graph or a library plan built each step); doing that work on the GPU, once ahead of the "
     "loop, or ahead of time on another thread with pinned memory and asynchronous copies keeps the GPU busy.",
     true},
};
}  // namespace

const Remedy* find_remedy(RemedyId id) {
  for (const auto& r : kRemedies)
    if (id == r.id) return &r;
  return nullptr;
}

const char* remedy_assumption(RemedyId id) {
  using R = RemedyId;
  switch (id) {
    case R::launch_overhead: return "the idle time between the launches goes (a graph or one fused kernel)";
    case R::atomics: return "the serialised atomics become one update per block and their waiting time goes";
    case R::smem_conflicts: return "conflict replays go, as far as warps wait on shared memory";
    case R::coalesce: case R::locality: case R::local_memory: case R::dram_traffic:
      return "the wasted share of the memory traffic goes and the kernel moves the rest at today's rate";
    case R::divergence: return "masked-off lanes do useful work, at the issue rate the kernel has now";
    case R::tensor_cores:
      return "the same FLOPs run at the share of the tensor roof a first mma/WMMA port reaches (tensor_port_roof_share), "
             "or at the memory roof if lower";
    case R::whole_waves: return "the idle SMs of the last wave get work at the rate of the full waves";
    case R::grid_fill: return "every SM gets work at the rate the busy SMs reach now (the work splits into more blocks)";
    case R::occupancy: return "more resident warps hide latency until the busiest unit reaches its peak";
    case R::memory_parallelism: return "more bytes in flight fill the idle issue slots until a unit saturates";
    case R::onchip_reuse: return "re-reads are served on chip, so the kernel approaches its DRAM/compute floor";
    case R::dram_bandwidth: return "the kernel streams at the measured DRAM roof (the best read:write mix kprof peaks timed)";
    case R::feed_tensor: return "the tensor pipe runs at its sustained peak";
    case R::pipe_throughput: return "the busiest pipe runs at its sustained peak";
    case R::fp_instructions: return "paired FP multiplies and adds become FMAs (the counted pairs)";
    case R::precision:
      return "the FP64 pipe's busy time shrinks by the device's FP32:FP64 rate ratio and by the fewer instructions of "
             "the float math functions (about a quarter of the double versions': diagnosis.fp64_math_instruction_ratio; "
             "fit to two fix experiments on the H100: set 48's haversine search realised 43.5% against this estimate's "
             "42%, set 50's implied volatilities 61.3% against 49%)";
    case R::imbalance: return "every SM and sub-partition finishes with the busiest";
    case R::block_balance: case R::fences: case R::spin_wait: case R::constant_access: case R::code_size:
    case R::branches: case R::wider_accesses: case R::mio_pressure:
      return "the waiting time of that stall reason becomes issued work at the kernel's current rate";
    case R::library_tuning: return "the library kernel reaches the tensor pipe's sustained peak on a better-shaped call";
    case R::prefetch:
      return "with its data resident the kernel takes the time the profiler's replay measured (the migration, at "
             "the link's bulk rate, moves off the kernel's path)";
    case R::fuse_stages:
      return "the fused kernel keeps the intermediate on chip: the time those bytes take at DRAM's roof goes and "
             "the consumer's math hides under the producer's";
    case R::overlap_stages: return "the shorter of two independent stages hides under the longer";
    case R::host_sync: return "launches queue ahead of the GPU, so the gaps shrink to about a microsecond each";
    case R::host_work:
      return "the host's work between the range's launches leaves the GPU's path, so the range takes its GPU time and "
             "launch costs only";
    case R::none: break;
  }
  return "";
}

bool in_kernel(RemedyId id) {
  using R = RemedyId;
  return id == R::coalesce || id == R::locality || id == R::smem_conflicts || id == R::local_memory ||
         id == R::onchip_reuse || id == R::wider_accesses || id == R::mio_pressure || id == R::fp_instructions ||
         id == R::precision;
}

bool cuts_traffic(RemedyId id) {
  return id == RemedyId::coalesce || id == RemedyId::locality || id == RemedyId::local_memory ||
         id == RemedyId::dram_traffic;
}

bool unbounded_by_floor(RemedyId id) {
  const Remedy* r = find_remedy(id);
  return r && r->changes_roof;
}

}  // namespace kprof::analyze
