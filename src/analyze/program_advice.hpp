// Advice across kernels (ProfileRun::program_opportunities): what an expert does next when the time is lost
// between kernels rather than inside one. Each item carries its whole-run gain and ranks with the kernels' own
// items in the contract's top 3.
//   fuse_stages     a stage reads back, near the DRAM roof, an intermediate the previous stage wrote (and/or
//                   writes one the next stage reads): a fused kernel keeps it on chip. Needs DRAM read/write bytes.
//   host_sync       the GPU idles between many launches while the host waits for results (syncs, device-to-host
//                   copies): needs a trace.
//   launch_overhead the same gaps without host waits: a CUDA graph or a persistent kernel.
//   host_work       a named range whose GPU idles in long gaps while the host computes outside any CUDA call (data
//                   or random numbers made on the CPU each step): needs a trace with API calls.
//   overlap_stages  consecutive under-filled stages that ran one after the other: streams, if independent; not
//                   where filling both grids (their grid_fill items) saves at least as much of the run.
//   grid_fill       kernels of one named stage sharing one under-filled launch shape: one item for the shape.
#pragma once
#include <map>
#include "analyze/thresholds.hpp"
#include "model/profile.hpp"
#include "model/trace.hpp"
#include "model/trace_analysis.hpp"

namespace kprof::analyze {

// A kernel group that owns the launch gaps over its launches: its own cause is launch overhead, with at least
// diagnosis.launch_bound_min_launches launches and the GPU idle diagnosis.launch_bound_idle_share of their span.
bool owns_launch_gaps(const KernelGroup& g, const Thresholds& t);
// Whether a range's host-device copies are many small ones (at least diagnosis.small_copy_min_count of at most
// diagnosis.small_copy_max_bytes on average in its typical instance): each call's fixed cost, not the link's rate,
// takes their time.
bool small_copies(const RangeTime& r, const Thresholds& t);
// A kernel the program did not mark: its stage is unnamed or named after the kernel (no NVTX range around it).
bool unmarked(const Stage& s, const KernelGroup& g);

// Stages in run order whose intermediates pass through DRAM. `total_ns`: the run time the kernel items' run
// shares are taken of. Needs KernelGroup::analysis.
// `fused`, when given, receives the groups a plain fusion item names (producer, the stage, consumer): the bytes it
// keeps on chip are what those groups' "cut DRAM traffic to the declared minimum" counts as excess. Not the groups of
// an epilogue, a re-read or a folded copy, which keep excess bytes of their own.
std::vector<Opportunity> fusion_advice(const ProfileRun& run, double total_ns, const Thresholds& t,
                                       std::vector<const KernelGroup*>* fused = nullptr);

// Consecutive stages that each leave at least half the SMs idle and whose recorded launches (start and duration,
// from a tracer) never ran concurrently: run them on separate streams (or as parallel graph branches) if they are
// independent. Nothing without launch times.
std::vector<Opportunity> overlap_advice(const ProfileRun& run, double total_ns);

// Kernels of one named stage that launch the same number of blocks, under the SM count, each with its own grid_fill
// item: one launch shape (one block per row of a small batch: a softmax, a scan and an argmax over 64 rows of a
// vocabulary) under-fills the GPU in each, and one change of it (split a row across blocks, or batch more rows) is
// the step. One grid_fill item of scope "stage" per such set of two or more, its gain their items' summed.
std::vector<Opportunity> shape_advice(const ProfileRun& run);

// A library call wrapped in its own layout conversions: in a named stage, the library's kernels that change a layout
// (opportunities.layout_conversion_names; no matrix math), as many bytes out as in (over fusion_min_bytes; the
// counted writes may fall short by what L2 held dirty), between 1/16 and twice what the library's matrix kernel beside
// them reads or writes (cuDNN's nchwToNhwc and nhwcToNchw around
// its NHWC implicit GEMM for an NCHW convolution). One library_tuning item (kernel remedy dram_traffic) per stage:
// pass the call tensors in the layout it computes in (channels_last where the call's name or a conversion into it
// says NHWC: opportunities.layout_nhwc_names, layout_to_nhwc_names); the conversions' whole time goes.
std::vector<Opportunity> layout_advice(const ProfileRun& run, double total_ns, const Thresholds& t);

// The layout conversions layout_advice reads in one stage: the library's matrix kernel (the call) and its own
// conversion kernels around it, with their summed GPU time. None where the stage has no such call or conversion.
struct LayoutConversions {
  const KernelGroup* call = nullptr;
  std::vector<const KernelGroup*> conversions;
  double ns = 0;
};
std::optional<LayoutConversions> layout_conversions(const Stage& stage, const DeviceSpec* device, const Thresholds& t);

// Launch gaps of a traced program (its timeline). With host waits between the launches, a kernel group whose own
// cause is launch overhead gets host_sync in place of its launch_overhead item (a graph cannot capture a loop that
// synchronises), and that item stands for the gaps: no whole-program item is added then.
std::vector<Opportunity> gap_advice(ProfileRun& run, const Trace& trace, const TimelineSummary& timeline,
                                    const Thresholds& t);

// The host in the GPU's path inside the program's named ranges. A stage whose range instances typically spend at
// least gap_min_idle_share of their span with the GPU idle
//   - in gaps of gap_host_work_max_ns or more while the host is in no CUDA call, or in shorter gaps between its
//     kernels while no host thread makes a CUDA call for host_silence_min_ns or more (it computes: a sampler drawing
//     its noise with the CPU's generator, per-step preprocessing in Python) gets one host_work item;
//   - while the host is held in CUDA calls of blocking_call_min_ns or more that are not launches (allocations and
//     frees; where the trace records copies, also blocking copies and synchronisations), at least
//     gap_host_work_max_ns per instance, gets one host_sync item;
// the larger of the two; and, where the trace records copies, copies and kernels that never ran side by side (the
// shorter of the two alone for gap_min_idle_share of the span: a two-stream pipeline serialised by work on the legacy
// default stream) get one overlap_stages item; and device-to-device copies taking gap_min_idle_share of the span (a
// stencil copying its new grid back where a pointer swap would do) get one dram_traffic item; pinned uploads and
// read-backs that never ran side by side (two or more each way, not a round trip) get one host_sync item where most
// are blocking calls, else overlap_stages. Each estimate is that time's share of the stage's span; its run gain, the share of the traced
// span `span_ns`. The typical instance is the lower median, and a stage needs two instances: the first call of a
// range, which plans library calls or compiles, is not the steady state. Nothing without API call records.
// `times`, when given, receives each such stage's typical range instance (Stage::range), idle or not.
std::vector<Opportunity> range_advice(const ProfileRun& run, const Trace& trace, double span_ns,
                                      const Thresholds& t, std::map<const Stage*, RangeTime>* times = nullptr);

}  // namespace kprof::analyze
