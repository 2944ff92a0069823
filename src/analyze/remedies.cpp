#include "analyze/remedies.hpp"

namespace kprof::analyze {

namespace {
const Remedy kRemedies[] = {
    {RemedyId::launch_overhead, "Cut launch overhead (CUDA graph, or fuse the small kernels)",
     "The GPU waits between launches longer than the kernels run; a graph or a fused kernel removes the gaps.", true},
    {RemedyId::atomics, "Reduce atomic contention (reduce per warp/block first, one atomic per block)",
     "Atomics to the same address serialise in L2; a warp-shuffle or shared-memory reduction leaves one update per "
     "block."},
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
     "each load waiting for the one before) while the memory system idles; more independent loads per thread "
     "(unrolling, wider loads, prefetching) keep more bytes in flight."},
    {RemedyId::onchip_reuse, "Reuse data on chip (shared-memory / register tiling)",
     "The same bytes are fetched again and again from L1/L2; tiles held in shared memory or registers serve the "
     "reuse at far higher bandwidth."},
    {RemedyId::dram_bandwidth, "Reach peak DRAM bandwidth (wider loads, more bytes in flight)",
     "DRAM-bound below the measured copy bandwidth: 16-byte loads and more independent loads per thread approach "
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
     "Nsight Compute counted separate FMUL/FADD pairs that an FMA would do in one instruction."},
    {RemedyId::imbalance, "Balance work across SMs and sub-partitions",
     "Some SMs or sub-partitions do more work than others, so the kernel waits for the slowest."},
};
}  // namespace

const Remedy* find_remedy(RemedyId id) {
  for (const auto& r : kRemedies)
    if (id == r.id) return &r;
  return nullptr;
}

bool unbounded_by_floor(RemedyId id) {
  const Remedy* r = find_remedy(id);
  return r && r->changes_roof;
}

}  // namespace kprof::analyze
