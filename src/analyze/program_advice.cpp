#include "analyze/program_advice.hpp"

#include "analyze/opportunities.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <tuple>
#include <cmath>
#include <cstdint>
#include <vector>
#include <optional>
#include <map>
#include <set>

#include "analyze/cause_ids.hpp"
#include "analyze/diagnosis_rule.hpp"
#include "analyze/remedies.hpp"
#include "analyze/rule_table.hpp"
#include "model/stage_path.hpp"

namespace kprof::analyze {

namespace {

std::string gb(double bytes) { return fmt::format("{:.2f} GB", bytes * 1e-9); }

Opportunity make(RemedyId id, std::string scope) {
  const Remedy* r = find_remedy(id);
  Opportunity o;
  o.name = r->name;
  o.remedy = std::string(name(id));
  o.rationale = r->rationale;
  o.assumes = remedy_assumption(id);
  o.source = "kprof";
  o.scope = std::move(scope);
  return o;
}

// The named stages of a traced program's NVTX range instances: a kernel's innermost default-domain range (its own,
// else the one it adopted from a waiting thread), and the run's stage whose name that range's stack matches.
class RangeStages {
 public:
  RangeStages(const ProfileRun& run, const Trace& trace) : run_(run), trace_(trace) {}
  // The innermost default-domain range at or above `r`; -1 when none.
  int innermost_default(int r) const {
    const int n = static_cast<int>(trace_.nvtx.size());
    while (r >= 0 && r < n && !in_default_domain(trace_, r)) r = trace_.nvtx[r].parent;
    return r >= 0 && r < n ? r : -1;
  }
  // The push/pop range instance a kernel ran in; -1 when none.
  int range_of(const TraceKernel& k) const {
    int r = innermost_default(k.nvtx_range);
    if (r < 0) r = innermost_default(k.nvtx_adopted);
    return r >= 0 && trace_.nvtx[r].push_pop ? r : -1;
  }
  // The named stage of the run whose name the range instance's stack matches; nullptr when none.
  const Stage* stage_of(int r) const {
    if (r < 0) return nullptr;
    if (auto it = cache_.find(r); it != cache_.end()) return it->second;
    KernelLaunch l;
    l.nvtx_range = trace_.str(trace_.nvtx[r].name);
    for (int p = r; p >= 0 && p < static_cast<int>(trace_.nvtx.size()); p = trace_.nvtx[p].parent)
      if (in_default_domain(trace_, p)) l.nvtx_stack.insert(l.nvtx_stack.begin(), trace_.str(trace_.nvtx[p].name));
    const Stage* stage = nullptr;
    for (const auto& s : run_.stages)
      if (!s.name.empty() && !s.kernels.empty() && launch_in_stage(l, s.name)) stage = &s;
    return cache_[r] = stage;
  }
  const Stage* stage_of(const TraceKernel& k) const { return stage_of(range_of(k)); }

 private:
  const ProfileRun& run_;
  const Trace& trace_;
  mutable std::map<int, const Stage*> cache_;
};

}  // namespace

bool small_copies(const RangeTime& r, const Thresholds& t) {
  return r.link_copies > 0 && r.link_copies >= t.param("diagnosis.small_copy_min_count") &&
         r.link_copy_bytes <= t.param("diagnosis.small_copy_max_bytes") * r.link_copies;
}

bool owns_launch_gaps(const KernelGroup& g, const Thresholds& t) {
  if (!g.analysis || g.analysis->causes.empty() || g.analysis->causes.front().id != name(CauseId::launch_overhead) ||
      g.graph_launched())
    return false;
  const double launches = double(g.launch_count());
  return launches >= t.param("diagnosis.launch_bound_min_launches") && g.span_ns && *g.span_ns > 0 &&
         g.gpu_idle_ns.value_or(0) / *g.span_ns >= t.param("diagnosis.launch_bound_idle_share");
}

bool unmarked(const Stage& s, const KernelGroup& g) { return s.name.empty() || s.name == g.kernel; }

namespace {

// Whether a kernel's busy pipes do floating-point math more than integer work (ALU, and IMAD on the FMA pipe).
bool floating_point_bound(const CanonicalMetrics& m) {
  if (!m.fma_pipe_pct || !m.alu_pipe_pct) return false;
  const double integer_share = std::clamp(m.fma_integer_share.value_or(0.0), 0.0, 1.0);
  const double fp = std::max(*m.fma_pipe_pct * (1.0 - integer_share), m.fp64_pipe_pct.value_or(0));
  return fp >= *m.alu_pipe_pct + *m.fma_pipe_pct * integer_share;
}

// Whether a kernel only moves data (a cast, a materialised broadcast or repeat, a layout copy): a name that says so
// (opportunities.data_movement_names: PyTorch's copy kernels), or no floating-point math where the FLOPs were
// counted (conversions and compares are not FLOPs). The name comes first: a bf16 copy's SASS moves registers with
// HFMA2.MMA, which the FP16 FLOP count takes for math (PyTorch's repeat_kv copy on the H200: 6 per element).
bool named_copy(const KernelGroup& g, const Thresholds& t) {
  return names_match(g.signature.empty() ? g.kernel : g.signature, t, "opportunities.data_movement_names");
}

// Two kernels of one launch of a CUDA graph: graph nodes that share the launch call's correlation id.
bool same_graph_launch(const TraceKernel& a, const TraceKernel& b) {
  return a.graph_id != 0 && a.graph_id == b.graph_id && a.correlation != 0 && a.correlation == b.correlation;
}

// The start of each launch, in time order: a kernel launched on its own, or a graph's launch placed at its first node
// (one launch call, however many kernels the graph runs).
std::vector<std::int64_t> launch_starts_of(const Trace& trace) {
  std::vector<std::int64_t> starts;
  std::set<std::pair<std::uint32_t, std::uint32_t>> graphs;
  for (const auto& k : trace.kernels)
    if (k.graph_id == 0 || k.correlation == 0 || graphs.insert({k.graph_id, k.correlation}).second)
      starts.push_back(k.start_ns);
  std::sort(starts.begin(), starts.end());
  return starts;
}

using Span = std::pair<std::int64_t, std::int64_t>;

// The spans sorted by start and merged where they touch or overlap.
std::vector<Span> merged_spans(std::vector<Span> v) {
  std::sort(v.begin(), v.end());
  std::vector<Span> m;
  for (const auto& s : v)
    if (!m.empty() && s.first <= m.back().second) m.back().second = std::max(m.back().second, s.second);
    else m.push_back(s);
  return m;
}

// When the GPU ran anything (kernels, copies, memsets), merged.
std::vector<Span> gpu_busy_spans(const Trace& trace) {
  std::vector<Span> gpu;
  for (const auto& k : trace.kernels) gpu.push_back({k.start_ns, k.end_ns});
  for (const auto& c : trace.memcpys) gpu.push_back({c.start_ns, c.end_ns});
  for (const auto& m : trace.memsets) gpu.push_back({m.start_ns, m.end_ns});
  return merged_spans(std::move(gpu));
}

// The GPU's idle time that the host's polling added, as (from, to) spans sorted by start: a thread asked whether work
// was done (cudaStreamQuery or cudaEventQuery, or their driver forms) and was told not yet (600, not ready) while the
// GPU ran; that thread's next CUDA call (after a sleep, or work) was a query told done (0), with the GPU idle. The GPU
// finished between the two and waited from then to the second query for the host to notice (set 24's relaxation
// loop: a query, a 1 ms sleep, a query; 0.55 ms of each 1.1 ms step idle). Queries that found the work done
// (PyTorch's caching allocator checking its events), or made on another thread than the next one, poll nothing; a
// spin without sleeps finds the finish at once, and its waits are too short to matter. `busy`: gpu_busy_spans(trace).
std::vector<Span> poll_waits(const Trace& trace, const std::vector<Span>& busy) {
  std::vector<Span> out;
  constexpr std::int32_t kNotReady = 600;  // cudaErrorNotReady, CUDA_ERROR_NOT_READY
  auto query = [&](const TraceApiCall& a) {
    const std::string_view n = trace.str(a.name);
    return n.find("StreamQuery") != std::string_view::npos || n.find("EventQuery") != std::string_view::npos;
  };
  // Each thread's calls (of each process) in start order.
  std::vector<const TraceApiCall*> calls;
  calls.reserve(trace.api_calls.size());
  for (const auto& a : trace.api_calls) calls.push_back(&a);
  std::sort(calls.begin(), calls.end(), [](const TraceApiCall* a, const TraceApiCall* b) {
    return std::tie(a->process, a->thread, a->start_ns) < std::tie(b->process, b->thread, b->start_ns);
  });
  for (std::size_t i = 0; i + 1 < calls.size(); ++i) {
    const TraceApiCall &q1 = *calls[i], &q2 = *calls[i + 1];
    if (q1.process != q2.process || q1.thread != q2.thread || q1.return_value != kNotReady || q2.return_value != 0 ||
        !query(q1) || !query(q2))
      continue;
    // The end of the GPU's last busy stretch that began before the second query.
    auto g = std::partition_point(busy.begin(), busy.end(), [&](const Span& b) { return b.first < q2.start_ns; });
    if (g == busy.begin()) continue;
    const std::int64_t end = std::prev(g)->second;
    if (end > q1.end_ns && end < q2.start_ns) out.push_back({end, q2.start_ns});
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Time in [lo, hi) covered by the spans of `of` (sorted by start).
std::int64_t covered_ns(const std::vector<Span>& of, std::int64_t lo, std::int64_t hi) {
  std::int64_t sum = 0;
  auto it = std::upper_bound(of.begin(), of.end(), Span{lo, lo},
                             [](const Span& a, const Span& b) { return a.first < b.first; });
  if (it != of.begin()) --it;
  for (; it != of.end() && it->first < hi; ++it)
    sum += std::max<std::int64_t>(0, std::min(hi, it->second) - std::max(lo, it->first));
  return sum;
}

// The host's silences: stretches in which no thread that launches kernels is in a CUDA call and none polls the GPU.
// Inside an idle stretch of the GPU shorter than gap_host_work_max_ns, a silence of host_silence_min_ns or more is the
// host working, not paying launch cost: a launch loop calls the driver every few microseconds (set 23's .tolist()
// filter and set 39's tokenizer decode after each step's read-back, 270-630 us each). Only the launching threads'
// calls end a silence (a watchdog thread's queries do not), and only where the trace holds the launch calls: a
// program launching through an untraced API would look silent throughout.
class HostSilences {
 public:
  HostSilences(const Trace& trace, const std::vector<Span>& polls, double min_ns) : min_ns_(min_ns) {
    std::set<std::pair<std::uint32_t, std::uint32_t>> launching;
    std::size_t launch_calls = 0;
    for (const auto& a : trace.api_calls)
      if (const std::string_view n = trace.str(a.name);
          n.find("Launch") != std::string_view::npos && n.find("LaunchHostFunc") == std::string_view::npos)
        launching.insert({a.process, a.thread}), ++launch_calls;
    enabled_ = launch_calls > 0 && 2 * launch_calls >= launch_starts_of(trace).size();
    for (const auto& a : trace.api_calls)
      if (launching.count({a.process, a.thread})) calls_.push_back({a.start_ns, a.end_ns});
    calls_ = merged_spans(std::move(calls_));
    polling_ = merged_spans(polls);
  }
  // The silences of min_ns or more in [lo, hi), less the polling in them.
  std::int64_t in(std::int64_t lo, std::int64_t hi) const {
    if (!enabled_ || hi <= lo) return 0;
    std::int64_t sum = 0, at = lo;
    auto add = [&](std::int64_t a, std::int64_t b) {
      if (static_cast<double>(b - a) >= min_ns_) sum += b - a - covered_ns(polling_, a, b);
    };
    auto it = std::upper_bound(calls_.begin(), calls_.end(), Span{lo, lo},
                               [](const Span& a, const Span& b) { return a.first < b.first; });
    if (it != calls_.begin()) --it;
    for (; it != calls_.end() && it->first < hi; ++it) {
      if (it->first > at) add(at, std::min(hi, it->first));
      at = std::max(at, it->second);
    }
    if (at < hi) add(at, hi);
    return sum;
  }

 private:
  std::vector<Span> calls_, polling_;
  double min_ns_ = 0;
  bool enabled_ = false;
};

// Matrix math: tensor FLOPs counted, or the tensor pipe busy.
bool matrix_math(const CanonicalMetrics& m) {
  return m.flops_tensor.value_or(0) > 0 || m.tensor_pipe_pct.value_or(0) >= 5.0;
}

bool moves_only(const KernelGroup& g, const Thresholds& t) {
  const CanonicalMetrics& m = g.metrics;
  if (matrix_math(m)) return false;
  if (named_copy(g, t)) return true;
  if (m.flops_fp32 && m.flops_fp16 && m.flops_fp64)
    return *m.flops_fp32 + *m.flops_fp16 + *m.flops_fp64 <= 0;
  // Without the FLOP counts (CUPTI's counters have no SASS counts of FP32 and FP16 instructions): an FMA pipe whose
  // work is all integer (its light sub-pipe, which FP32 and FP16 arithmetic share evenly with the heavy one, idle) and
  // no FP64 work. Set 45's bit-unpacking kernel: IMADs alone on the FMA pipe, its 0.25 GB output read by the filter.
  return m.fma_integer_share && *m.fma_integer_share >= t.param("opportunities.moves_only_integer_share") &&
         (m.flops_fp64 ? *m.flops_fp64 <= 0 : m.fp64_pipe_pct && *m.fp64_pipe_pct <= 0);
}

}  // namespace

std::vector<Opportunity> fusion_advice(const ProfileRun& run, double total_ns, const Thresholds& t,
                                       std::vector<const KernelGroup*>* fused) {
  struct Item {
    const Stage* stage;
    const KernelGroup* group;
  };
  std::vector<Item> order;
  const double min_bytes = t.param("opportunities.fusion_min_bytes");
  // Inside a named range of three or more kernels, one that moves almost nothing (under fusion_tiny_share of an
  // intermediate worth fusing: `std + eps` on 512 floats between `x - mean` and the division by it) stands between
  // no producer and its consumer.
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels)
      if (g.metrics.dram_read_bytes && g.metrics.dram_write_bytes &&
          (s.kernels.size() < 3 || unmarked(s, g) ||
           *g.metrics.dram_read_bytes + *g.metrics.dram_write_bytes >=
               t.param("opportunities.fusion_tiny_share") * min_bytes))
        order.push_back({&s, &g});
  std::vector<Opportunity> out;
  if (order.size() < 2 || total_ns <= 0) return out;
  // What each fusion item of a kernel with the stage before and/or after it (or a second pass over its input) saves
  // kernel by kernel, and the intermediates it keeps on chip, so that items of one chain become one item below. Empty
  // for folded copies and epilogues. Positions are the first of a kernel's run of consecutive stages (the same kernel
  // in a range and outside it is one stage).
  struct Chain {
    std::vector<std::pair<std::size_t, double>> saved;    // (position in `order`, ns saved of that group's time)
    std::vector<std::size_t> members;                     // positions in `order` of the kernels the item names
    std::vector<std::tuple<std::size_t, std::size_t, double>> edges;  // (producer, consumer, bytes kept on chip)
    std::vector<std::tuple<std::size_t, std::size_t, double>> rereads;  // (first reader, second, bytes read once)
  };
  std::vector<Chain> chains;
  const double min_dram = t.param("opportunities.fusion_min_dram_pct");
  const double match = t.param("opportunities.fusion_reread_match_share");
  const double l2_bytes = run.device_spec ? run.device_spec->l2_mb * 1e6 : 0.0;
  // The same kernel seen in two stages (a launch inside an NVTX range and the rest outside it) is one stage. Its
  // full signature decides: PyTorch's SiLU and multiply are both `elementwise_kernel`, of different functors, and
  // one stage's groups are different steps.
  auto same = [](const Item& a, const Item& b) {
    const bool signed_ = !a.group->signature.empty() && !b.group->signature.empty();
    return a.stage != b.stage &&
           (signed_ ? a.group->signature == b.group->signature : a.group->kernel == b.group->kernel);
  };
  // Counters say how many bytes a kernel wrote and the next one read, not that they are the same bytes. Data flows
  // between the stages of a kernel package's pipeline, between kernels of one NVTX range, and between kernels the
  // program did not mark at all; two ranges a user marked apart are separate steps (independent ops of a test
  // program wrote and read the same 0.5 GB by coincidence).
  const bool package = !run.params.empty();
  // The first position of the run of consecutive stages holding order[k]'s kernel, and that run's time.
  auto run_start = [&](std::size_t k) {
    while (k > 0 && same(order[k - 1], order[k])) --k;
    return k;
  };
  auto run_ns = [&](std::size_t k) {
    double ns = order[k].group->gpu_time_or_profiled_ns();
    for (std::size_t j = k + 1; j < order.size() && same(order[j], order[k]); ++j)
      ns += order[j].group->gpu_time_or_profiled_ns();
    return ns;
  };
  std::vector<std::size_t> taken_whole;  // epilogue consumers: their whole time is their epilogue item's
  auto flows = [&](const Item& a, const Item& b) {
    return package || a.stage == b.stage || (unmarked(*a.stage, *a.group) && unmarked(*b.stage, *b.group));
  };
  // A library kernel without matrix math is a closed call (cuFFT's passes, cuSOLVER's, PyTorch's copy of CUB): no
  // user kernel fuses with it (cuFFT's two passes of one 2-D transform; a window multiply before cuFFT's
  // real-to-complex pass). A library matrix product is not closed: its epilogue or a fused library operator
  // (attention) takes the work. Nor is a header library's kernel the program instantiated itself (Thrust, CUB): its
  // producer or consumer goes into the call's input or output iterator (`thrust::transform_reduce`, a transform
  // iterator into `cub::DeviceScan`), or one kernel of the program's own does all of it.
  auto closed = [&](const KernelGroup& g) {
    // The library is read off the kernel's qualified name, as kernel_owner reads it: a user's elementwise kernel
    // instantiated on a library's type (`scale<cutlass::half_t>`) is the user's, open to fusion.
    if (kernel_owner(g.kernel, g.signature, t) != "A library's" || matrix_math(g.metrics)) return false;
    const bool own = (names_match(g.kernel, t, "diagnosis.header_library_kernel_names") ||
                      names_match(g.signature, t, "diagnosis.header_library_kernel_names")) &&
                     !names_match(g.kernel, t, "diagnosis.framework_kernel_names") &&
                     !names_match(g.signature, t, "diagnosis.framework_kernel_names");
    return !own;
  };
  std::set<const KernelGroup*> folded;  // copies already folded into their consumer (one item per pair)
  std::set<const KernelGroup*> in_epilogue;  // an epilogue item's consumers: its whole time is theirs
  const double whole = t.param("opportunities.epilogue_whole_output_share");
  // Elementwise: no matrix math and threads that exchange nothing on chip (no shared-memory traffic: a softmax or a
  // norm needs whole rows, which span a product's tiles).
  auto elementwise = [](const CanonicalMetrics& m) {
    return m.shared_wavefronts && *m.shared_wavefronts == 0 && m.flops_tensor.value_or(0) <= 0;
  };
  // A kernel's counted DRAM writes fall short of what it wrote by what L2 still held dirty when it ended: up to L2's
  // size, and no more than was counted (set 41's GEMM, bias and GELU kernels on the H100 counted 58-66% of their
  // 50 MB outputs). Did it write about `bytes`?
  auto wrote_about = [&](double counted, double bytes) {
    return counted + std::min(l2_bytes, counted) >= whole * bytes;
  };
  // How large an intermediate is, as its consumer reads it: the producer's counted writes and the part of L2 a kernel
  // ends with dirty (opportunities.l2_dirty_share of L2, no more than was counted), no more than the consumer read.
  // Set 51's feature hashing under Nsight Compute: each 68 MB step counted 47-52 MB of writes, read back whole.
  const double dirty = t.param("opportunities.l2_dirty_share") * l2_bytes;
  auto held_dirty = [&](double counted, double read) { return std::min(read, counted + std::min(dirty, counted)); };
  const double size_change = t.param("opportunities.fold_size_change");
  const double min_read = t.param("opportunities.fold_min_read_share");
  auto dram_pct = [](const CanonicalMetrics& m) {
    return m.dram_measured_pct ? *m.dram_measured_pct : m.dram_throughput_pct.value_or(0);
  };
  auto near_dram_roof = [&](const KernelGroup& g) {
    const double dram = dram_pct(g.metrics);
    return dram >= min_dram ||
           (g.analysis && g.analysis->bottleneck.kind == BottleneckKind::memory && dram >= 0.5 * min_dram);
  };
  for (std::size_t i = 0; i < order.size(); ++i) {
    const KernelGroup& b = *order[i].group;
    if (in_epilogue.count(&b)) continue;  // absorbed into an epilogue item before it
    const CanonicalMetrics& m = b.metrics;
    // The consumer spends its time moving bytes: near the DRAM roof (against the measured copy bandwidth when
    // known), or bound by DRAM by kprof's own diagnosis.
    const double dram = dram_pct(m);
    const bool dram_side = near_dram_roof(b);
    const double reads = *m.dram_read_bytes, writes = *m.dram_write_bytes;
    // Or it streams (loads each byte once: its global load sectors are no more than stream_load_ratio times what
    // it reads from DRAM; no matrix math) and is bound in the SM by the work of each element it moves: PyTorch's
    // strided elementwise kernels, bound by their index arithmetic at a third of the DRAM roof (SwiGLU's SiLU and
    // multiply on the H200). Their time goes with their elements, not with DRAM's roof.
    const bool sm_streaming =
        !dram_side && b.analysis && b.analysis->bottleneck.kind == BottleneckKind::compute &&
        m.flops_tensor.value_or(0) <= 0 && m.global_load_sectors && *m.global_load_sectors > 0 &&
        *m.global_load_sectors * 32.0 <= t.param("opportunities.fusion_stream_load_ratio") * reads &&
        // ... and busier with integer work (indexing, conversions) than with floating-point math: a kernel bound by
        // the math of each element (a 40-term series per element: FFMA and FADD fill the FMA pipe) keeps that math
        // when fused, so its time does not go with its elements' traffic. PyTorch's strided SiLU: ALU 43%, FMA 27%.
        // The FMA pipe runs IMAD too (index arithmetic): its integer share counts as integer work.
        !floating_point_bound(m);
    // A kernel that only moves data, whose whole output the next stage of its range reads, is that stage's
    // prologue: the consumer can read the source itself, converting or indexing as it loads, and the copy's whole
    // time goes (PyTorch's `.float()` of bf16 logits before log_softmax, `repeat_kv`'s expand + reshape before
    // attention, an int8 weight's `.to(bf16)` before the scale multiply; on the H200 each at 25-45% of the DRAM
    // roof, bound by index arithmetic, or at the roof).
    // Only a copy that converts or expands (its writes differ from its reads by over fold_size_change): a
    // same-size copy may be what its consumer needs (an in-place factorisation works on its own copy), so it is
    // fused, if at all, by the items below. A fill reads nothing: its output is made, not moved (an expansion
    // reads at least fold_min_read_share of what it writes).
    const bool reshapes = reads > 0 && reads >= min_read * writes && std::abs(writes / reads - 1.0) > size_change;
    // A concatenation (opportunities.concat_names: torch.cat's kernel) copies each of its inputs whole into a new
    // buffer, as many bytes out as in (a same-size copy, which the fold leaves alone): no consumer needs that copy,
    // since the inputs can be written in place into a buffer allocated once at the final size (sets 18 and 39: a KV
    // cache re-copied whole by `torch.cat` each decode step before attention reads it, at 81-92% of the DRAM roof).
    // Not a fusion: nothing is kept on chip, the copy is dropped and its whole time goes. The name says what it is (a
    // bf16 copy's register moves may count as FP16 FLOPs). Only as many bytes out as in, within fold_size_change: one
    // that reads much more than it writes is a chain's copy more than one to drop (set 31's torch.stack of int64
    // indices in an unfused NeRF sampler, 0.80 GB read for 0.54 GB written: both blind labels fuse the sampler).
    const bool concat =
        !reshapes && reads > 0 && !matrix_math(m) && names_match(b.kernel, t, "opportunities.concat_names");
    if (!closed(b) && (concat || (reshapes && moves_only(b, t))) && writes >= min_bytes &&
        (i == 0 || !same(order[i - 1], order[i]))) {
      std::size_t last = i;
      while (last + 1 < order.size() && same(order[last + 1], order[i])) ++last;
      // Within one named range or a package: stages outside any range are grouped by function name, so the next
      // group there need not be the next launch.
      const Item* consumer = last + 1 < order.size() &&
                                     (package || (order[last].stage == order[last + 1].stage &&
                                                  !unmarked(*order[last].stage, *order[last].group))) &&
                                     !closed(*order[last + 1].group) &&
                                     *order[last + 1].group->metrics.dram_read_bytes >= 0.5 * writes
                                 ? &order[last + 1]
                                 : nullptr;
      if (consumer) {
        double own = 0;
        for (std::size_t k = i; k <= last; ++k) own += order[k].group->gpu_time_or_profiled_ns();
        const std::string copy = stage_kernel_label(*order[i].stage, b),
                          into = stage_kernel_label(*consumer->stage, *consumer->group);
        Opportunity o = make(concat ? RemedyId::dram_traffic : RemedyId::fuse_stages, "pipeline");
        const bool call = library_kernel_name(consumer->group->kernel, consumer->group->signature, t);
        if (concat) {
          o.name = fmt::format("Drop {}: write its inputs in place into one buffer allocated at the final size, "
                               "which {} reads",
                               copy, into);
          o.rationale = "A concatenation copies every input whole into a new buffer that the next kernel reads: "
                        "written where they belong from the start (a preallocated cache written at its position, "
                        "slice assignment instead of torch.cat), the inputs need no copy.";
          o.assumes = "the inputs' producers can write into slices of a buffer allocated once (a cache allocated at "
                      "its final length), so the copy's whole time goes";
        } else {
          o.name = call ? fmt::format("Drop {}: give {}'s call the source (a variant that reads it as it is)", copy,
                                      into)
                        : fmt::format("Fold {} into {}'s loads (read the source directly)", copy, into);
          o.rationale = "A kernel that only moves data (a cast, a materialised broadcast or repeat, a layout copy) "
                        "writes an intermediate the next kernel reads back; that kernel can read the source itself, "
                        "converting or indexing as it loads.";
          o.assumes = "the consumer can take the copy's source as its input (a conversion or index mapping in its "
                      "loads; a library call may need a different entry point), so the copy's whole time goes";
        }
        o.kernels = {copy, into};
        // A narrowing cast (fp32 to bf16) leaves its consumer reading the wider source: only the written share of
        // what it read goes.
        // A concatenation goes whole, whatever it read.
        o.est_gain_pct = t.param("diagnosis.max_gain_pct") * (concat ? 1.0 : std::min(1.0, writes / reads));
        o.run_share_pct = own / total_ns * 100.0;
        o.run_gain_pct = o.est_gain_pct * o.run_share_pct / 100.0;
        o.trigger_metric = "dram_bytes";
        o.trigger_value = writes;
        o.trigger = fmt::format("{} only moves data ({}) and writes {} that {} reads", copy,
                                concat ? "a concatenation" : named_copy(b, t) ? "a copy kernel" : "no floating-point math",
                                gb(writes), into);
        out.push_back(std::move(o));
        chains.emplace_back();
        for (std::size_t k = i; k <= last; ++k) folded.insert(order[k].group);
        continue;
      }
    }
    if (!dram_side && !sm_streaming) continue;
    if (reads + writes <= 0 || closed(b)) continue;
    // Bytes a kernel far below the DRAM roof wrote and an unmarked neighbour read are even less likely the same
    // bytes (two independent test kernels of a CUDA program, each in a range named after itself): such a consumer
    // pairs only inside one range or package.
    auto linked = [&](const Item& a, const Item& c) {
      return dram_side ? flows(a, c) : package || a.stage == c.stage;
    };
    double in = 0, out_bytes = 0;
    std::vector<std::string> kernels;
    std::size_t prev = i, next = i;
    while (prev > 0 && same(order[prev - 1], order[i])) --prev;
    while (next + 1 < order.size() && same(order[next + 1], order[i])) ++next;
    if (prev != i) continue;  // the same kernel in consecutive stages: one item, made at its first stage
    const KernelGroup* producer = nullptr;
    Chain chain;
    bool reread = false, epilogue = false;
    // (A kernel an epilogue item takes whole is no producer of another item: its time is that item's.)
    if (prev > 0 && linked(order[prev - 1], order[i]) && !closed(*order[prev - 1].group) &&
        !folded.count(order[prev - 1].group) && !in_epilogue.count(order[prev - 1].group)) {
      const KernelGroup& a = *order[prev - 1].group;
      const double written = *a.metrics.dram_write_bytes, read = *a.metrics.dram_read_bytes;
      // The consumer reads the intermediate beside at most one input as large (half its reads). The producer's
      // counted writes fall short of its output by what L2 still held dirty when it ended, up to L2's size: those
      // bytes reach DRAM after the kernel (set 30's right-hand side: 117 of its 134 MB counted, the update reading
      // 268 MB of state and right-hand side).
      // An elementwise consumer of a matrix product's whole output belongs in the product's epilogue, whatever the
      // output's size (below): the consumer's whole pass goes, whether the bytes came from DRAM or L2. The output's
      // size is what the consumer read of it, where the product's counted writes, short by what L2 still held dirty
      // (wrote_about), say it wrote about as much (set 41's 50 MB GEMM output: 33 MB counted, read back as 50 MB by
      // its bias kernel); the consumer reads all of it, and writes about what it read (a row reduction by warp
      // shuffles moves no shared memory either, and writes little).
      const double held = std::min(written + std::min(l2_bytes, written), reads);
      epilogue = a.metrics.flops_tensor.value_or(0) > 0 && elementwise(m) && held >= whole * reads &&
                 held >= whole * written && wrote_about(written, held) && writes <= held / whole &&
                 wrote_about(writes, held);
      if (epilogue ||
          (held_dirty(written, reads) >= min_bytes && std::min(written + l2_bytes, reads) >= 0.5 * reads)) {
        in = epilogue ? held : std::min(written, reads);
        producer = &a;
        kernels.push_back(stage_kernel_label(*order[prev - 1].stage, a));
        chain.members.push_back(run_start(prev - 1));
        chain.edges.emplace_back(run_start(prev - 1), i, in);
      } else if (dram_side && (package || order[prev - 1].stage == order[i].stage) && read >= min_bytes &&
                 written <= t.param("opportunities.fusion_reread_write_share") * read && reads >= match * read &&
                 reads <= read / match + written) {
        // A two-pass operation inside one range: the first kernel reads a large input and writes almost nothing
        // (row statistics), the next reads as much again (the input, to apply them): one pass with the rows on
        // chip reads it once (a layer norm's statistics and apply kernels on the H200, each at the DRAM roof).
        in = std::min(read, reads);
        reread = true;
        kernels.push_back(stage_kernel_label(*order[prev - 1].stage, a));
        chain.members.push_back(run_start(prev - 1));
        chain.rereads.emplace_back(run_start(prev - 1), i, in);
      }
    }
    // The epilogue's consumer's whole time goes; the product writes the result in place of its raw output. A
    // library's product (cuBLAS) takes the epilogue in the call (cuBLASLt's bias and activation epilogues): that is
    // tuning the call, not writing a kernel.
    const bool library_epilogue =
        epilogue && kernel_owner(producer->kernel, producer->signature, t) == "A library's";
    kernels.push_back(stage_kernel_label(*order[i].stage, b));
    chain.members.push_back(i);
    // Elementwise kernels after it over the same elements go into the same epilogue (a bias add, then GELU: cuBLASLt's
    // GELU_BIAS epilogue): each reads about what the one before it wrote (with what L2 held dirty) and writes as much.
    // Each is moving bytes (near the DRAM roof), or not bound by floating-point math of its own, which it would keep
    // when fused. A kernel seen in consecutive stages joins with all of them.
    std::size_t epilogue_end = next;
    if (epilogue) {
      for (std::size_t k = i; k <= next; ++k) in_epilogue.insert(order[k].group);
      while (epilogue_end + 1 < order.size() && linked(order[epilogue_end], order[epilogue_end + 1])) {
        const KernelGroup& c = *order[epilogue_end + 1].group;
        const double c_reads = *c.metrics.dram_read_bytes, c_writes = *c.metrics.dram_write_bytes;
        if (closed(c) || !elementwise(c.metrics) || c_reads < whole * in || c_reads > in / whole ||
            c_writes > c_reads / whole || !wrote_about(c_writes, c_reads) ||
            (!near_dram_roof(c) && floating_point_bound(c.metrics)))
          break;
        const std::size_t first = ++epilogue_end;
        while (epilogue_end + 1 < order.size() && same(order[epilogue_end + 1], order[first])) ++epilogue_end;
        kernels.push_back(stage_kernel_label(*order[first].stage, c));
        for (std::size_t k = first; k <= epilogue_end; ++k) in_epilogue.insert(order[k].group);
      }
    }
    // (An epilogue item is the product and its consumer: the consumer's whole time, whatever it feeds next.)
    if (!epilogue && next + 1 < order.size() && linked(order[i], order[next + 1]) &&
        !closed(*order[next + 1].group)) {
      const KernelGroup& c = *order[next + 1].group;
      const double read = *c.metrics.dram_read_bytes;
      if (held_dirty(writes, read) >= min_bytes && std::min(writes, read) >= 0.5 * writes) {
        out_bytes = std::min(writes, read);
        kernels.push_back(stage_kernel_label(*order[next + 1].stage, c));
        chain.members.push_back(next + 1);
        chain.edges.emplace_back(i, next + 1, out_bytes);
      }
    }
    if (in + out_bytes <= 0) continue;
    const double share = std::min(1.0, (in + out_bytes) / (reads + writes));
    double own = 0;
    for (std::size_t k = prev; k <= epilogue_end; ++k) own += order[k].group->gpu_time_or_profiled_ns();
    Opportunity o = make(library_epilogue ? RemedyId::library_tuning : RemedyId::fuse_stages, "pipeline");
    // Through the library's call, the kernel-level change is the fusion (as a layout item's is moving fewer bytes).
    if (library_epilogue) o.kernel_remedy = std::string(name(RemedyId::fuse_stages));
    if (epilogue) {
      const std::string product = stage_kernel_label(*order[prev - 1].stage, *producer);
      const std::string passes = fmt::format("{}", fmt::join(kernels.begin() + 1, kernels.end(), " and "));
      o.name = library_epilogue
                   ? fmt::format("Apply {} in {}'s epilogue (the library call's fused epilogue)", passes, product)
                   : fmt::format("Fuse {} into {}'s epilogue (keep the product on chip)", passes, product);
      o.rationale = fmt::format(
          "An elementwise pass over a matrix product's whole output reads back what the product just wrote; "
          "applied in the product's epilogue it costs almost nothing{}.",
          !library_epilogue ? ""
          : names_match(producer->kernel, t, "opportunities.fused_epilogue_names")
              ? " (cuBLASLt's bias/activation epilogues; in PyTorch a fused linear + activation)"
              : " (the library's fused operator or epilogue option for this operation)");
      o.assumes = "the consumer is elementwise over the product's output (it reads all the product wrote, writes as "
                  "much and exchanges nothing on chip), so its whole time goes";
    } else if (reread && out_bytes <= 0) {
      o.name = fmt::format("Do {} and {} in one pass (read the input once, keep the rows on chip)", kernels[0],
                           kernels[1]);
      o.rationale = "Two kernels of one range read the same large input from DRAM: the first writes almost nothing "
                    "(statistics), the second reads the input again to apply them. One kernel holding each row on "
                    "chip between the two steps reads it once.";
      o.assumes = "the second kernel reads the same bytes the first read (equal sizes, one range), and both run "
                  "at the DRAM roof, so the saved read's share of the second kernel's time goes";
    } else {
      o.name = fmt::format("Fuse {} with {} (keep the intermediate on chip)", stage_kernel_label(*order[i].stage, b),
                           in > 0 && out_bytes > 0 ? "the stages around it"
                           : in > 0               ? "the stage before it"
                                                  : "the stage after it");
      if (fused)
        for (std::size_t k = prev; k <= next; ++k) fused->push_back(order[k].group);
    }
    o.kernels = kernels;
    // The bytes kept on chip save the time they take at DRAM's roof: the byte share of the kernel's time where it
    // runs at the roof, less below it (a consumer at 38% of the roof, bound by its uncoalesced loads, spends most
    // of its time elsewhere: PyTorch's bernoulli_ on the H200). A consumer bound by per-element work in the SM
    // saves its elements' share of that work; an epilogue saves the consumer's whole time.
    const double saved = epilogue ? 1.0 : share * (sm_streaming ? 1.0 : std::min(1.0, dram / 100.0));
    o.est_gain_pct = std::min(t.param("diagnosis.max_gain_pct"), std::min(1.0, saved) * 100.0);
    o.run_share_pct = own / total_ns * 100.0;
    o.run_gain_pct = o.est_gain_pct * o.run_share_pct / 100.0;
    chain.saved = {{i, std::min(1.0, saved) * own}};
    // A pair (a producer and this kernel, nothing after it): fused, they no longer move the intermediate (the
    // producer's writes of it, this kernel's reads), nor this kernel's second read of its producer's input where it
    // reads about as much again beside the intermediate (an Euler step's right-hand side and the update adding it to
    // the state it came from both read the state). Each kernel saves those bytes' share of its time as this kernel's
    // own estimate above does (at DRAM's roof: in full only where the kernel runs at it). The saving is of both
    // kernels' time; it stands when it beats this kernel's alone. A chain of three keeps the middle kernel's own
    // estimate: counted on both sides, MLA v4's softmax fused with its GEMMs read 56% against the 31.7% the fused v5
    // realised (29% from the softmax's side alone; bench/version_pairs.py).
    const bool pair = !epilogue && !reread && prev == next && producer && in >= min_bytes && out_bytes <= 0;
    if (pair) {
      const CanonicalMetrics& pm = producer->metrics;
      const double p_read = *pm.dram_read_bytes, p_moved = p_read + *pm.dram_write_bytes;
      const double p_dram = pm.dram_measured_pct ? *pm.dram_measured_pct : pm.dram_throughput_pct.value_or(0);
      const double others = std::max(0.0, reads - in);
      const double shared =
          others >= match * p_read && others <= p_read / match + l2_bytes ? std::min(others, p_read) : 0.0;
      // This kernel's reads of the intermediate (and of the shared input), and the producer's writes of it, each a
      // share of a launch of its kernel, over the launches that pair (a group may hold more launches of one than
      // of the other); the gain is of both groups' whole time.
      const double p_ns = producer->gpu_time_or_profiled_ns();
      const double n_c = std::max<double>(1.0, double(b.launch_count()));
      const double n_p = std::max<double>(1.0, double(producer->launch_count())), pairs = std::min(n_c, n_p);
      const double saved_ns =
          pairs * (own / n_c * std::min(1.0, (in + shared) / (reads + writes)) *
                       (sm_streaming ? 1.0 : std::min(1.0, dram / 100.0)) +
                   p_ns / n_p * std::min(1.0, in / std::max(p_moved, 1.0)) * std::min(1.0, p_dram / 100.0));
      const double all_ns = own + p_ns;
      const double gain = all_ns > 0 ? std::min(1.0, saved_ns / all_ns) : 0.0;
      if (gain * all_ns > o.est_gain_pct / 100.0 * own) {
        const double consumer_ns = pairs * own / n_c * std::min(1.0, (in + shared) / (reads + writes)) *
                                   (sm_streaming ? 1.0 : std::min(1.0, dram / 100.0));
        chain.saved = {{i, consumer_ns}, {run_start(prev - 1), std::max(0.0, saved_ns - consumer_ns)}};
        o.est_gain_pct = std::min(t.param("diagnosis.max_gain_pct"), gain * 100.0);
        o.run_share_pct = all_ns / total_ns * 100.0;
        o.run_gain_pct = o.est_gain_pct * o.run_share_pct / 100.0;
        o.assumes = fmt::format(
            "one kernel does the work of {}: the intermediate stops moving through DRAM{}, each kernel saving those "
            "bytes' share of its time at the DRAM rate it reaches",
            fmt::join(kernels, ", "),
            shared > 0 ? fmt::format(" and {} of the producer's input is read once, not twice", gb(shared)) : "");
      }
    }
    o.trigger_metric = "dram_bytes";
    o.trigger_value = in + out_bytes;
    std::vector<std::string> moved;
    if (in > 0) moved.push_back(reread ? fmt::format("reads again the {} the stage before it read", gb(in))
                                       : fmt::format("reads back {} its producer wrote", gb(in)));
    if (out_bytes > 0) moved.push_back(fmt::format("writes {} the next stage reads", gb(out_bytes)));
    o.trigger = fmt::format("{} {} at {:.0f}% of DRAM {}", stage_kernel_label(*order[i].stage, b), fmt::join(moved, " and "),
                            dram, m.dram_measured_pct ? "copy bandwidth" : "peak");
    out.push_back(std::move(o));
    if (epilogue) {
      chain = Chain{};
      // Their whole time is the epilogue item's: no chain counts it again.
      for (std::size_t k = i; k <= epilogue_end; ++k) taken_whole.push_back(k);
    }
    chains.push_back(std::move(chain));
  }
  // Items that share a kernel whose time the fusion cuts are one chain (a → b → c gives a's item with the stage after
  // it, b's with the stages around it and c's with the stage before it): one item fuses the whole chain, each kernel
  // saving what its largest item said it saves (a kernel's own bytes, or the producer's side of a pair), of the time
  // of the kernels that save. Apart, they filled the top 3 with one step and counted the middle kernel's time twice
  // (set 10's three-kernel softmax: 4.1% and 4.0% of the run apart, 6.1% as one item). A matrix product between two
  // items joins nothing: a prologue and an epilogue are two changes (a norm before a GEMM, RoPE after it).
  auto taken = [&](std::size_t k) { return std::find(taken_whole.begin(), taken_whole.end(), k) != taken_whole.end(); };
  auto saves = [&](const Chain& c, std::size_t k) {
    return std::any_of(c.saved.begin(), c.saved.end(), [&](const auto& p) { return p.first == k && p.second > 0; });
  };
  std::vector<std::size_t> root(out.size());
  for (std::size_t k = 0; k < root.size(); ++k) root[k] = k;
  auto find = [&](std::size_t k) {
    while (root[k] != k) k = root[k] = root[root[k]];
    return k;
  };
  for (std::size_t x = 0; x < out.size(); ++x)
    for (std::size_t y = x + 1; y < out.size(); ++y) {
      if (chains[x].saved.empty() || chains[y].saved.empty()) continue;
      const auto& mx = chains[x].members;
      const bool joined = std::any_of(chains[y].members.begin(), chains[y].members.end(), [&](std::size_t k) {
        return std::find(mx.begin(), mx.end(), k) != mx.end() && !matrix_math(order[k].group->metrics) && !taken(k) &&
               (saves(chains[x], k) || saves(chains[y], k));
      });
      if (!joined) continue;
      const std::size_t rx = find(x), ry = find(y);
      root[std::max(rx, ry)] = std::min(rx, ry);  // the chain's first item is its root
    }
  std::vector<Opportunity> merged;
  for (std::size_t x = 0; x < out.size(); ++x) {
    if (chains[x].saved.empty()) {
      merged.push_back(std::move(out[x]));
      continue;
    }
    if (find(x) != x) continue;  // merged into its chain's first item
    std::vector<std::size_t> items;
    for (std::size_t y = 0; y < out.size(); ++y)
      if (!chains[y].saved.empty() && find(y) == x) items.push_back(y);
    if (items.size() == 1) {
      merged.push_back(std::move(out[x]));
      continue;
    }
    std::map<std::size_t, double> saved;             // position in `order` → ns saved
    std::map<std::pair<std::size_t, std::size_t>, double> edges, rereads;
    for (std::size_t y : items) {
      for (std::size_t k : chains[y].members) saved.try_emplace(k, 0.0);
      for (const auto& [k, ns] : chains[y].saved)
        if (!taken(k)) saved[k] = std::max(saved[k], ns);
      for (const auto& [a, c, bytes] : chains[y].edges) edges[{a, c}] = std::max(edges[{a, c}], bytes);
      for (const auto& [a, c, bytes] : chains[y].rereads) rereads[{a, c}] = std::max(rereads[{a, c}], bytes);
    }
    // Of the time of the kernels it cuts (each kernel's run of consecutive stages): a neighbour that saves nothing
    // (a matrix product whose output stays on chip, compute-bound) is named, not counted.
    double own = 0, cut = 0, bytes = 0, again = 0;
    std::vector<std::string> kernels, cutting;
    for (const auto& [k, ns] : saved) {
      const std::string label = stage_kernel_label(*order[k].stage, *order[k].group);
      if (ns > 0) own += run_ns(k), cutting.push_back(label);
      cut += ns;
      kernels.push_back(label);
    }
    for (const auto& [e, b] : edges) bytes += b;
    for (const auto& [e, b] : rereads) again += b;
    if (own <= 0) continue;
    Opportunity o = make(RemedyId::fuse_stages, "pipeline");
    // The title names the kernels whose time goes (the kernels list names the chain's ends too); a long chain's, its
    // ends.
    const std::string what = cutting.size() <= 3 ? fmt::format("{}", fmt::join(cutting, " → "))
                                                  : fmt::format("the {} stages {} → … → {}", cutting.size(),
                                                                cutting.front(), cutting.back());
    o.name = edges.empty() ? fmt::format("Do {} in one pass (read the input once, keep the rows on chip)", what)
                           : fmt::format("Fuse {} (keep the intermediates on chip)", what);
    o.kernels = kernels;
    o.est_gain_pct = std::min(t.param("diagnosis.max_gain_pct"), std::min(1.0, cut / own) * 100.0);
    o.run_share_pct = own / total_ns * 100.0;
    o.run_gain_pct = o.est_gain_pct * o.run_share_pct / 100.0;
    o.assumes = fmt::format(
        "one kernel does the work of the {} stages: the {} intermediate(s) stop moving through DRAM{}, each kernel "
        "saving those bytes' share of its time at the DRAM rate it reaches (a stage bound by other work, such as a "
        "matrix product, saves little of its time)",
        cutting.size(), edges.size(), again > 0 ? " and an input read twice is read once" : "");
    o.trigger_metric = "dram_bytes";
    o.trigger_value = bytes + again;
    o.trigger = fmt::format("{} intermediate(s), {} in all, go through DRAM in the chain from {} to {}{}", edges.size(),
                            gb(bytes), kernels.front(), kernels.back(),
                            again > 0 ? fmt::format(", and {} of input is read twice", gb(again)) : "");
    merged.push_back(std::move(o));
  }
  return merged;
}

std::vector<Opportunity> overlap_advice(const ProfileRun& run, double total_ns) {
  std::vector<Opportunity> out;
  const int sms = run.device_spec ? run.device_spec->sm_count : run.device.sm_count;
  if (sms <= 0 || total_ns <= 0) return out;
  auto blocks = [](const KernelGroup& g) {
    if (g.metrics.grid_size) return *g.metrics.grid_size;
    return double(g.launch.grid[0]) * g.launch.grid[1] * g.launch.grid[2];
  };
  // Whether any recorded launch of one group ran while one of the other's did; nullopt without launch times.
  auto concurrent = [](const KernelGroup& a, const KernelGroup& b) -> std::optional<bool> {
    bool timed = false;
    for (const auto& x : a.launches)
      for (const auto& y : b.launches) {
        if (!x.start_ns || !x.duration_ns || !y.start_ns || !y.duration_ns) continue;
        timed = true;
        if (*x.start_ns < *y.start_ns + *y.duration_ns && *y.start_ns < *x.start_ns + *x.duration_ns) return true;
      }
    return timed ? std::optional<bool>(false) : std::nullopt;
  };
  const KernelGroup* prev = nullptr;
  const Stage* prev_stage = nullptr;
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels) {
      const double b = blocks(g);
      const bool underfilled = b > 0 && b <= sms / 2.0;
      // The same kernel in a stage of its own name is one kernel seen twice (a launch inside an NVTX range, the
      // rest outside it); in two named stages it is two steps (overlap's rotate_a and rotate_b).
      const bool seen_twice = prev && prev->kernel == g.kernel && (unmarked(*prev_stage, *prev) || unmarked(s, g));
      if (prev && underfilled && prev_stage != &s && !seen_twice && blocks(*prev) + b <= sms &&
          concurrent(*prev, g) == false) {
        const double shorter = std::min(prev->gpu_time_or_profiled_ns(), g.gpu_time_or_profiled_ns());
        const double both = prev->gpu_time_or_profiled_ns() + g.gpu_time_or_profiled_ns();
        // Filling each grid serves the same idle SMs and needs no independence between the stages: where the two
        // kernels' own grid-fill items save at least as much of the run as the overlap would, the overlap is not
        // the step to take (two 60-block pointer chases of 414 us on the H200: 55% each by filling, 50% of the
        // pair by overlapping).
        auto fill_gain = [](const KernelGroup& k) {
          double best = 0;
          if (k.analysis)
            for (const auto& o : k.analysis->opportunities)
              if (o.remedy == name(RemedyId::grid_fill)) best = std::max(best, o.run_gain_pct);
          return best;
        };
        if (fill_gain(*prev) + fill_gain(g) >= shorter / total_ns * 100.0) {
          prev = &g;
          prev_stage = &s;
          continue;
        }
        Opportunity op = make(RemedyId::overlap_stages, "pipeline");
        op.kernels = {stage_kernel_label(*prev_stage, *prev), stage_kernel_label(s, g)};
        op.est_gain_pct = both > 0 ? 100.0 * shorter / both : 0;
        op.run_share_pct = both / total_ns * 100.0;
        op.run_gain_pct = shorter / total_ns * 100.0;
        op.trigger_metric = "grid_size";
        op.trigger_value = b;
        op.trigger = fmt::format("{} and {} run one after the other on {:.0f} and {:.0f} blocks of {} SMs",
                                 op.kernels[0], op.kernels[1], blocks(*prev), b, sms);
        op.name = fmt::format("Overlap {} and {} if independent (streams or parallel graph branches)", op.kernels[0],
                              op.kernels[1]);
        out.push_back(std::move(op));
        prev = nullptr;  // a stage pairs once
        continue;
      }
      prev = underfilled ? &g : nullptr;
      prev_stage = &s;
    }
  return out;
}

std::vector<Opportunity> shape_advice(const ProfileRun& run) {
  std::vector<Opportunity> out;
  const int sms = run.device_spec ? run.device_spec->sm_count : run.device.sm_count;
  if (sms <= 0) return out;
  for (const auto& s : run.stages) {
    if (s.kernels.size() < 2 || s.name.empty()) continue;
    // Each block count under the SM count → the groups launching it with a grid_fill item, and those items.
    std::map<double, std::vector<std::pair<const KernelGroup*, const Opportunity*>>> by_blocks;
    for (const auto& g : s.kernels) {
      if (!g.analysis || !g.metrics.grid_size || *g.metrics.grid_size <= 0 || *g.metrics.grid_size >= sms ||
          unmarked(s, g))
        continue;
      for (const auto& o : g.analysis->opportunities)
        // A library's kernel has it through the call (library_tuning, kernel_remedy grid_fill).
        if ((o.remedy == name(RemedyId::grid_fill) || o.kernel_remedy == name(RemedyId::grid_fill)) && o.estimated) {
          by_blocks[*g.metrics.grid_size].emplace_back(&g, &o);
          break;
        }
    }
    for (const auto& [blocks, groups] : by_blocks) {
      if (groups.size() < 2) continue;
      Opportunity o = make(RemedyId::grid_fill, "stage");
      double own = 0;
      for (const auto& [g, item] : groups) {
        o.kernels.push_back(stage_kernel_label(s, *g));
        own += g->gpu_time_or_profiled_ns();
        o.run_share_pct += item->run_share_pct;
        o.run_gain_pct += item->run_gain_pct;
      }
      if (own <= 0 || o.run_share_pct <= 0) continue;
      // Of the groups' run shares (a launch-bound group's holds the idle time it owns): run gain = estimate x share.
      o.est_gain_pct = o.run_gain_pct / o.run_share_pct * 100.0;
      // The shape is the caller's: more rows per call serves library kernels too; or kernels that split a row across
      // blocks (one's own, a generated one: torch.compile's split reductions, Triton; a fused library op).
      o.name = fmt::format("Fill the GPU in the {} kernels of {} that launch {:.0f} blocks (one launch shape: batch "
                           "more rows per call, or kernels that split a row across blocks)",
                           groups.size(), s.name, blocks);
      o.assumes = "each kernel's own grid-fill estimate holds (every SM gets work at the active SMs' rate): a larger "
                  "batch serves them all at once; splitting rows is a change to each kernel";
      o.trigger_metric = "grid_size";
      o.trigger_value = blocks;
      o.trigger = fmt::format("{} kernels of {} launch {:.0f} blocks each for {} SMs, {:.3f} ms of their time",
                              groups.size(), s.name, blocks, sms, own * 1e-6);
      out.push_back(std::move(o));
    }
  }
  return out;
}

std::optional<LayoutConversions> layout_conversions(const Stage& s, const DeviceSpec* device, const Thresholds& t) {
  if (s.kernels.size() < 2 || s.name.empty()) return std::nullopt;
  const double min_bytes = t.param("opportunities.fusion_min_bytes");
  const double size_change = t.param("opportunities.fold_size_change");
  const double l2_bytes = device ? device->l2_mb * 1e6 : 0.0;
  auto bytes = [](const KernelGroup& g, bool written) {
    const auto& v = written ? g.metrics.dram_write_bytes : g.metrics.dram_read_bytes;
    return v ? *v : 0.0;
  };
  // The library's matrix kernel of the stage with the most time: the call the conversions serve.
  const KernelGroup* call = nullptr;
  for (const auto& g : s.kernels)
    if (!unmarked(s, g) && library_kernel_name(g.kernel, g.signature, t) && matrix_math(g.metrics) &&
        (!call || g.gpu_time_or_profiled_ns() > call->gpu_time_or_profiled_ns()))
      call = &g;
  if (!call) return std::nullopt;
  LayoutConversions out{.call = call};
  // The library's own kernels beside it that change a layout, as many bytes out as in (not a cast), of the size of
  // the call's input or output (below).
  for (const auto& g : s.kernels) {
    // A layout change by its name (cuDNN's scale the values as they move, a few FLOPs per element, so "no FLOPs"
    // cannot find them; and a library's sort, gather or activation moves data without being a layout change).
    const bool converts = names_match(g.signature.empty() ? g.kernel : g.signature, t,
                                      "opportunities.layout_conversion_names") &&
                          !matrix_math(g.metrics);
    if (&g == call || !library_kernel_name(g.kernel, g.signature, t) || !converts) continue;
    // As many bytes out as in: the counted writes fall short of the output by what L2 still held dirty when the
    // kernel ended, up to L2's size (set 4's input conversion: 0.067 GB read, 0.050 GB counted written).
    // (At most half the size tolerance again: a 2:1 narrowing cast does not pass.)
    const double reads = bytes(g, false), writes = bytes(g, true);
    const double dirty = std::min(l2_bytes, 0.5 * size_change * reads);
    if (std::max(reads, writes) < min_bytes || reads <= 0 || writes > reads * (1.0 + size_change) ||
        writes + dirty < reads * (1.0 - size_change))
      continue;
    // Of the call's input or output: no more than twice what the call reads, or what it writes (a convolution's
    // reads hold its input several times over; set 4's transposed convolution reads 0.27 GB for a 0.067 GB input).
    // And no less than fold_min_read_share of either: a small reorder beside a large product is not its operand.
    const double call_reads = bytes(*call, false), call_writes = bytes(*call, true);
    if (writes > 2.0 * call_reads && reads > 2.0 * call_writes) continue;
    if (std::max(reads, writes) < t.param("opportunities.fold_min_read_share") * std::max(call_reads, call_writes))
      continue;
    out.conversions.push_back(&g);
    out.ns += g.gpu_time_or_profiled_ns();
  }
  if (out.conversions.empty() || out.ns <= 0) return std::nullopt;
  return out;
}

std::vector<Opportunity> layout_advice(const ProfileRun& run, double total_ns, const Thresholds& t) {
  std::vector<Opportunity> out;
  if (total_ns <= 0) return out;
  auto bytes = [](const KernelGroup& g, bool written) {
    const auto& v = written ? g.metrics.dram_write_bytes : g.metrics.dram_read_bytes;
    return v ? *v : 0.0;
  };
  for (const auto& s : run.stages) {
    const auto found = layout_conversions(s, run.device_spec ? &*run.device_spec : nullptr, t);
    if (!found) continue;
    const KernelGroup* call = found->call;
    const std::vector<const KernelGroup*>& conversions = found->conversions;
    const double own = found->ns;
    Opportunity o = make(RemedyId::library_tuning, "stage");
    // The change is to the call (its tensors' layout); what it removes is DRAM traffic: both are the item's.
    o.kernel_remedy = std::string(name(RemedyId::dram_traffic));
    const std::string into = stage_kernel_label(s, *call);
    std::vector<std::string> copies;
    // The layout the call computes in, from its own name (cuDNN's "..._nhwckrsc_nhwc") or a conversion into it
    // ("nchwToNhwc"): not from a conversion out of it, which a caller already in NHWC meets before an NCHW kernel.
    bool nhwc = names_match(call->signature.empty() ? call->kernel : call->signature, t,
                            "opportunities.layout_nhwc_names");
    for (const auto* g : conversions) {
      copies.push_back(stage_kernel_label(s, *g));
      nhwc = nhwc ||
             names_match(g->signature.empty() ? g->kernel : g->signature, t, "opportunities.layout_to_nhwc_names");
    }
    o.name = fmt::format("Pass {}'s call its tensors in the layout it computes in{}: the library converts them "
                         "({}) around its kernel",
                         s.name, nhwc ? " (channels_last / NHWC; channels_last_3d for 5-D tensors)" : "",
                         fmt::join(copies, ", "));
    o.rationale = "The library's own layout-conversion kernels (as many bytes out as in) move the call's input or "
                  "output around its matrix kernel: the tensors reach it in a layout it does not compute in. Keeping "
                  "them in its layout (and the layers around it) drops the conversions and their DRAM round trips.";
    o.assumes = "the tensors can be kept in the call's layout through the neighbouring operations (or converted "
                "once for many calls), so the conversions' whole time goes";
    o.kernels = copies;
    o.kernels.push_back(into);
    o.est_gain_pct = t.param("diagnosis.max_gain_pct");
    o.run_share_pct = own / total_ns * 100.0;
    o.run_gain_pct = o.est_gain_pct * o.run_share_pct / 100.0;
    double moved = 0;
    for (const auto* g : conversions) moved += bytes(*g, false) + bytes(*g, true);
    o.trigger_metric = "dram_bytes";
    o.trigger_value = moved;
    o.trigger = fmt::format("{} layout conversion kernel(s) of the library move {} in {:.3f} ms beside {}",
                            conversions.size(), gb(moved), own * 1e-6, into);
    out.push_back(std::move(o));
  }
  return out;
}

namespace {

// The host's CUDA calls, as spans: every call (`host`); those that hold it (not launches, blocking_call_min_ns or more)
// waiting for the GPU (`blocking`) or doing the driver's own work with the GPU idle (`driver`: allocating, pinning,
// building graphs; a synchronisation's tail after the GPU's last work, also in `sync_tails`); every holding call
// (`long_calls`); and the cudaLaunchHostFunc calls. Unsorted and unmerged.
struct HostCalls {
  std::vector<Span> host, blocking, driver, long_calls, host_func_calls, sync_tails;
};
HostCalls host_calls(const Trace& trace, const std::vector<Span>& gpu, const Thresholds& t) {
  HostCalls out;
  auto& host = out.host;
  auto& blocking = out.blocking;
  auto& driver = out.driver;
  auto& long_calls = out.long_calls;
  auto& host_func_calls = out.host_func_calls;
  auto& sync_tails = out.sync_tails;
  auto covered = covered_ns;
  const double wait_busy_share = t.param("opportunities.blocking_wait_min_busy_share");
  for (const auto& a : trace.api_calls) {
    host.push_back({a.start_ns, a.end_ns});
    // A call that holds the host while the GPU has nothing queued: an allocation or free (cudaFree synchronises
    // the device), a blocking copy, a synchronisation. Launch calls are the launch's own cost.
    // Calls shorter than blocking_call_min_ns only enqueue work (an asynchronous device-to-device copy, an event).
    // Without copy records (the annotation and event tracers), the GPU may be copying while the host waits in a copy
    // or a synchronisation, unseen: only calls that are neither count there, allocations and frees, and a graph
    // captured, instantiated or destroyed (a stencil's blocking device-to-device copy and a two-stream copy pipeline on
    // the H200 read as idle GPU otherwise). Module loads are not added there (with copy records they count as any long
    // call): lazy loading on a kernel's first launch is a first call's cost, and counting them without copy records
    // moved set 2's bincount (25 ms of library loading in its first range instance, none in its second) to a host item.
    const std::string_view call = trace.str(a.name);
    auto named = [&](std::initializer_list<std::string_view> parts) {
      return std::any_of(parts.begin(), parts.end(),
                         [&](std::string_view p) { return call.find(p) != std::string_view::npos; });
    };
    const bool allocation = named({"Malloc", "Free", "HostAlloc", "GraphInstantiate", "GraphExecDestroy",
                                   "GraphDestroy", "StreamBeginCapture", "StreamEndCapture"});
    const bool long_call = call.find("Launch") == std::string_view::npos &&
                           a.end_ns - a.start_ns >= t.param("opportunities.blocking_call_min_ns");
    if (call.find("LaunchHostFunc") != std::string_view::npos) host_func_calls.push_back({a.start_ns, a.end_ns});
    if (long_call) long_calls.push_back({a.start_ns, a.end_ns});  // (a call without a name is no launch either)
    // Of those, a call that waits for the GPU (a synchronisation, a copy, or a call during which the GPU ran queued
    // work for blocking_wait_min_busy_share of it: set 14's cudaFree, which synchronises the device, 23 us of kernels
    // in a 92 us call) is the host waiting. One with the GPU idle (nearly) all along is the host's own work inside the
    // driver (pinning a buffer, instantiating a graph, building a library plan, loading a module): it goes by moving
    // the call out of the loop, not by dropping a wait (set 22's per-frame cudaHostAlloc, 3.7 ms beside a 3.6 us
    // kernel).
    if (long_call && !call.empty() && (allocation || !trace.memcpys.empty())) {
      const bool sync = call.find("Synchronize") != std::string_view::npos;
      const bool waits = sync || call.find("Memcpy") != std::string_view::npos ||
                         static_cast<double>(covered(gpu, a.start_ns, a.end_ns)) >=
                             wait_busy_share * static_cast<double>(a.end_ns - a.start_ns);
      // A synchronisation that returns long after the GPU's last work (sync_tail_driver_min_ns or more) waited only
      // until then: the rest is the driver's own work in the call, the host's (set 38's stream-ordered pool with a
      // release threshold of 0, unmapping its memory at every cudaStreamSynchronize: each returned about 120 us after
      // the batch's last copy, 2.9 ms of a 9.6 ms range; both blind labels "host work": allocate once, or keep the
      // pool's memory).
      std::int64_t until = a.end_ns;
      if (sync) {
        auto g = std::partition_point(gpu.begin(), gpu.end(), [&](const Span& b) { return b.first < a.end_ns; });
        const std::int64_t gpu_end = g == gpu.begin() ? a.start_ns : std::max(a.start_ns, std::prev(g)->second);
        if (gpu_end < a.end_ns &&
            static_cast<double>(a.end_ns - gpu_end) >= t.param("opportunities.sync_tail_driver_min_ns")) {
          until = gpu_end;
          driver.push_back({gpu_end, a.end_ns});
          sync_tails.push_back({gpu_end, a.end_ns});
        }
      }
      if (until > a.start_ns) (waits ? blocking : driver).push_back({a.start_ns, until});
    }
  }
  return out;
}

}  // namespace

std::vector<Opportunity> gap_advice(ProfileRun& run, const Trace& trace, const TimelineSummary& timeline,
                                    const Thresholds& t) {
  std::vector<Opportunity> out;
  const auto& o = timeline.overlap;
  const std::vector<std::int64_t> all_starts = launch_starts_of(trace);  // sorted
  const std::size_t n = all_starts.size();
  if (o.span_ns <= 0 || n < static_cast<std::size_t>(t.param("diagnosis.launch_bound_min_launches"))) return out;
  const double idle_share = o.idle_ns / o.span_ns;
  if (idle_share < t.param("opportunities.gap_min_idle_share")) return out;
  // Host waits: the host blocking on the GPU (event, stream or context synchronisation; a stream waiting on an
  // event is a wait on the GPU, not the host), and blocking copies (read-backs, and uploads without Async).
  std::size_t waits = 0;
  std::vector<std::int64_t> wait_starts;
  std::vector<std::pair<std::int64_t, std::int64_t>> wait_spans;  // (end, start), sorted by end
  for (const auto& s : trace.syncs)
    if (s.type == SyncType::event_synchronize || s.type == SyncType::stream_synchronize ||
        s.type == SyncType::context_synchronize)
      ++waits, wait_starts.push_back(s.start_ns), wait_spans.push_back({s.end_ns, s.start_ns});
  // Without synchronisation records (the annotation and event tracer record API calls, not syncs): the
  // synchronising API calls themselves (cudaStreamSynchronize, cudaDeviceSynchronize, cuEventSynchronize, ...).
  // Likewise, without copy records, the blocking copies (cudaMemcpy, not ...Async: the host waits for the copy and
  // the work before it) and cudaFree (it synchronises the device): a 4-byte convergence read-back after every
  // iteration is a host wait the annotation tracer sees only as its API call.
  if (trace.syncs.empty())
    for (const auto& a : trace.api_calls) {
      const std::string_view call = trace.str(a.name);
      const bool copy = trace.memcpys.empty() && (call.rfind("cudaMemcpy", 0) == 0 || call.rfind("cuMemcpy", 0) == 0) &&
                        call.find("Async") == std::string_view::npos;
      const bool free_sync = call == "cudaFree" || call.rfind("cudaFree_v", 0) == 0;
      if (call.find("Synchronize") != std::string_view::npos || copy || free_sync)
        ++waits, wait_starts.push_back(a.start_ns), wait_spans.push_back({a.end_ns, a.start_ns});
    }
  // Blocking copies both ways: an upload without Async synchronises the stream first, as range_advice counts it.
  for (const auto& c : trace.memcpys)
    if ((c.kind == MemcpyKind::dtoh || c.kind == MemcpyKind::htod) && !c.async)
      ++waits, wait_starts.push_back(c.start_ns), wait_spans.push_back({c.end_ns, c.start_ns});
  std::sort(wait_starts.begin(), wait_starts.end());
  std::sort(wait_spans.begin(), wait_spans.end());
  const bool host_waits = waits * 4 >= n;
  // What the change can win: with host waits, the gaps between consecutive kernels in which a wait of the host
  // returned (a sync or blocking copy that drained the queue): the host then launched ahead. Without, every gap in
  // which no wait returned. Each remaining launch still costs the host its launch call (the median measured, at least
  // 1 µs).
  const double floor_ns = std::max(1000.0, timeline.launch.api_duration_ns.count ? timeline.launch.api_duration_ns.median : 0.0);
  const auto& ks = trace.kernels;  // sorted by start
  // A gap longer than gap_host_work_max_ns is the host computing (compiling, loading, checking results), which
  // neither a graph nor fewer synchronisations removes (a PyTorch script with torch.compile on the H200: 162
  // launches over 20 s, the GPU idle 99.99% of it).
  const double host_work_ns = t.param("opportunities.gap_host_work_max_ns");
  // Where the gaps lie: a gap is a named stage's when both kernels around it ran in that stage's ranges and either in
  // one range instance, or, with host waits, the wait that made the gap began inside one of their instances (a loop
  // that synchronises inside each step's range). Otherwise it is the program's: between stages, outside every named
  // range, or a wait after a range closed (a test harness checking each case's result between the cases: set 16's
  // 317 blocking read-backs).
  const RangeStages ranges(run, trace);
  auto inside = [&](int r, std::int64_t at) {
    return r >= 0 && trace.nvtx[r].start_ns <= at && at <= trace.nvtx[r].end_ns;
  };
  std::map<const Stage*, double> in_stage;  // nullptr: between stages or outside them
  double winnable = 0;
  // A gap the host's polling made is the polling's (range_advice's spin_wait item), not a launch's.
  const std::vector<Span> busy = gpu_busy_spans(trace);
  const auto polls = poll_waits(trace, busy);
  // Nor is a silence of the host's: it works (range_advice's host_work item). Nor the driver's own work in the host's
  // calls with the GPU idle (allocations, a synchronisation's tail after the GPU's last work: set 38's stream-ordered
  // pool unmapping its memory at every sync, then mapping it again at the next cudaMallocAsync): no fewer waits or a
  // graph removes it (range_advice's host_work item).
  const HostSilences silences(trace, polls, t.param("opportunities.host_silence_min_ns"));
  const std::vector<Span> driver = merged_spans(host_calls(trace, busy, t).driver);
  auto polled_in = [&](std::int64_t lo, std::int64_t hi) {
    double sum = 0;
    auto it = std::partition_point(polls.begin(), polls.end(), [&](const auto& p) { return p.second <= lo; });
    for (; it != polls.end() && it->first < hi; ++it)
      sum += static_cast<double>(std::max<std::int64_t>(0, std::min(hi, it->second) - std::max(lo, it->first)));
    return sum;
  };
  std::int64_t last_end = ks.empty() ? 0 : ks.front().end_ns;
  std::size_t last = 0;  // the kernel that ends at last_end: the gap's earlier side (on several streams, not ks[i - 1])
  for (std::size_t i = 1; i < ks.size(); ++i) {
    const double gap = static_cast<double>(ks[i].start_ns - last_end);
    // Inside one launch of a graph the gap is a node's own cost; between two launches of graphs, "capture them in a
    // graph" cannot apply, and only a wait that drained the queue (a synchronisation after each launch) is winnable.
    const bool in_graph = same_graph_launch(ks[last], ks[i]);
    const bool between_graphs = !in_graph && ks[last].graph_id != 0 && ks[i].graph_id != 0;
    if (gap > 0 && gap < host_work_ns && !in_graph) {
      // A wait that returned in the gap drained the queue before it (a wait begins right after its launch call,
      // before the kernel it waits for has started: its return, not its start, places it).
      auto w = std::lower_bound(wait_spans.begin(), wait_spans.end(), std::make_pair(last_end, std::int64_t{0}));
      const bool waited = w != wait_spans.end() && w->first <= ks[i].start_ns;
      // Without host waits enough to lead (a wait per four launches), the remedy is a graph, which removes launch
      // gaps but not the gaps a wait made: those stay with the ranges that wait (their own items; set 36's pageable
      // loader and per-layer synchronize() named by a whole-program graph item).
      if (between_graphs ? host_waits && waited : host_waits ? waited : !waited) {
        const double win = std::max(0.0, gap - polled_in(last_end, ks[i].start_ns) -
                                             static_cast<double>(silences.in(last_end, ks[i].start_ns)) -
                                             static_cast<double>(covered_ns(driver, last_end, ks[i].start_ns)) -
                                             floor_ns);
        winnable += win;
        const int ra = ranges.range_of(ks[last]), rb = ranges.range_of(ks[i]);
        const Stage* a = ranges.stage_of(ra);
        const bool same = a && a == ranges.stage_of(rb) &&
                          (ra == rb || (host_waits && (inside(ra, w->second) || inside(rb, w->second))));
        in_stage[same ? a : nullptr] += win;
      }
    }
    if (ks[i].end_ns > last_end) last_end = ks[i].end_ns, last = i;
  }
  const double gain = std::min(winnable, o.idle_ns) / o.span_ns;
  // kprof's per-kernel launch-overhead cause already owns these gaps when it found them itself (many launches
  // with the GPU idle over their span, not merely a tiny kernel); with host waits its remedy is to stop waiting,
  // not a graph.
  bool owned = false;
  std::map<const Stage*, std::vector<std::int64_t>> stage_starts;  // its trace kernels' starts, in order
  for (const auto& k : ks)
    if (const Stage* st = ranges.stage_of(ranges.range_of(k))) stage_starts[st].push_back(k.start_ns);
  for (auto& s : run.stages)
    for (auto& g : s.kernels) {
      if (!owns_launch_gaps(g, t)) continue;
      const double launches = double(g.launch_count());
      owned = true;
      // The host waits between this kernel's own launches, not the program's: a program that synchronises once
      // per case around a range of 288 back-to-back launches (set 16's Adam step) is launch-bound there.
      // Only the waits between two launches of its stage that follow each other within gap_host_work_max_ns count:
      // a kernel launched in each repetition of a case has other cases, and their waits, between its repetitions
      // (set 25's per-parameter SGD: 80 launches a step, no wait among them, 142 waits of other cases between its
      // steps). Without trace kernels in the stage, over the span of its launches.
      std::size_t own_waits = 0;
      const auto& starts = stage_starts[&s];
      auto waits_in = [&](double from, double to) {
        return static_cast<std::size_t>(
            std::lower_bound(wait_starts.begin(), wait_starts.end(), static_cast<std::int64_t>(to)) -
            std::lower_bound(wait_starts.begin(), wait_starts.end(), static_cast<std::int64_t>(from)));
      };
      if (starts.size() >= 2) {
        for (std::size_t k = 1; k < starts.size(); ++k)
          if (static_cast<double>(starts[k] - starts[k - 1]) < host_work_ns) own_waits += waits_in(starts[k - 1], starts[k]);
      } else if (!g.launches.empty() && g.launches.front().start_ns) {
        own_waits = waits_in(*g.launches.front().start_ns, *g.launches.front().start_ns + *g.span_ns);
      }
      if (!host_waits || static_cast<double>(own_waits) * 4 < launches) continue;
      const Remedy* r = find_remedy(RemedyId::host_sync);
      // The waits dropped, the host queues its launches while the GPU works: what stays idle is the launch calls' own
      // time beyond the GPU's busy time, a loop of kernels shorter than their launch calls running at the host's
      // launch rate (set 33's heat steps: 1.8-us kernels, 128 launches, estimated 82% from the idle share alone,
      // realised 65% once the loop ran at about 3.3 us a launch).
      // Every launch in the group's span counts (a step of three kernels launches three), against the busy time of
      // all of them.
      std::optional<double> left_ns;
      double span_launches = launches;
      if (g.span_ns && g.gpu_idle_ns && *g.span_ns > 0) {
        if (!g.launches.empty() && g.launches.front().start_ns) {
          const auto from = static_cast<std::int64_t>(*g.launches.front().start_ns);
          const auto to = static_cast<std::int64_t>(*g.launches.front().start_ns + *g.span_ns);
          span_launches = std::max(launches, static_cast<double>(
                                                 std::upper_bound(all_starts.begin(), all_starts.end(), to) -
                                                 std::lower_bound(all_starts.begin(), all_starts.end(), from)));
        }
        const double busy = std::max(0.0, *g.span_ns - *g.gpu_idle_ns);
        left_ns = std::max(0.0, span_launches * floor_ns - busy);
      }
      for (auto& o : g.analysis->opportunities)
        if (o.remedy == name(RemedyId::launch_overhead)) {
          o.name = r->name;
          o.remedy = std::string(name(RemedyId::host_sync));
          o.rationale += fmt::format(" The trace shows {} host waits (synchronisations, blocking copies) "
                                     "between its {:.0f} launches: the host waits for each result before the next "
                                     "launch.",
                                     own_waits, launches);
          o.assumes = remedy_assumption(RemedyId::host_sync);
          if (left_ns && *left_ns > 0) {
            const double est = std::clamp((*g.gpu_idle_ns - *left_ns) / *g.span_ns * 100.0, 0.0, o.est_gain_pct);
            if (o.est_gain_pct > 0) o.run_gain_pct *= est / o.est_gain_pct;
            o.est_gain_pct = est;
            o.rationale += fmt::format(" Without the waits, the {:.0f} launch calls over its launches' span (the "
                                       "program's median launch call: {:.1f} us) still take {:.2f} ms more than the "
                                       "GPU's {:.2f} ms of work: the loop then runs at the host's launch rate.",
                                       span_launches, floor_ns * 1e-3, *left_ns * 1e-6,
                                       std::max(0.0, *g.span_ns - *g.gpu_idle_ns) * 1e-6);
            o.assumes = fmt::format("launches queue ahead of the GPU once the waits go, each costing the host its "
                                    "median launch call ({:.1f} us), which stays where it exceeds the kernels' time",
                                    floor_ns * 1e-3);
          }
        }
    }
  if (owned || gain * 100.0 < t.param("opportunities.min_gain_pct")) return out;
  Opportunity op = make(host_waits ? RemedyId::host_sync : RemedyId::launch_overhead, "program");
  op.est_gain_pct = std::min(t.param("diagnosis.max_gain_pct"), gain * 100.0);
  op.run_share_pct = 100.0;
  op.run_gain_pct = op.est_gain_pct;
  op.trigger_metric = "gpu_idle_ns";
  op.trigger_value = o.idle_ns;
  // metric=value, as every trigger: the prose goes into the rationale.
  op.trigger = fmt::format("gpu_idle={:.0f}%, launches={}{}", idle_share * 100.0, n,
                           host_waits ? fmt::format(", host_waits={}", waits) : std::string());
  op.rationale = fmt::format("The GPU idles {:.0f}% of the {:.2f} ms its {} launches span{}. ", idle_share * 100.0,
                             o.span_ns * 1e-6, n,
                             host_waits ? fmt::format(", and the host waits for the GPU {} times", waits)
                                        : std::string()) +
                 op.rationale;
  // The item names the stages that hold at least a quarter of the winnable gaps, largest first; "whole program"
  // stands for the gaps between or outside the named stages, and alone where no stage holds a quarter.
  std::vector<std::pair<double, const Stage*>> where;
  for (const auto& [stage, ns] : in_stage)
    if (winnable > 0 && ns >= 0.25 * winnable) where.push_back({ns, stage});
  std::sort(where.begin(), where.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [ns, stage] : where) {
    if (!stage) {
      op.kernels.push_back("whole program");
      continue;
    }
    for (const auto& g : stage->kernels) op.kernels.push_back(stage_kernel_label(*stage, g));
  }
  if (op.kernels.empty()) op.kernels = {"whole program"};
  out.push_back(std::move(op));
  return out;
}

std::vector<Opportunity> range_advice(const ProfileRun& run, const Trace& trace, double span_ns,
                                      const Thresholds& t, std::map<const Stage*, RangeTime>* times) {
  std::vector<Opportunity> out;
  if (trace.kernels.empty() || trace.api_calls.empty() || trace.nvtx.empty() || span_ns <= 0) return out;
  const std::vector<Span> gpu = gpu_busy_spans(trace);
  // (Named references, not structured bindings: the lambdas below capture them, which clang 14 does not allow for
  // bindings.)
  HostCalls calls = host_calls(trace, gpu, t);
  auto& host = calls.host;
  auto& blocking = calls.blocking;
  auto& driver = calls.driver;
  auto& long_calls = calls.long_calls;
  auto& host_func_calls = calls.host_func_calls;
  auto& sync_tails = calls.sync_tails;
  auto covered = covered_ns;
  // The kernels and the copies apart, for how much of each ran beside the other.
  // Only copies between host and device use a resource of their own (the host link); a device-to-device copy
  // takes the DRAM bandwidth the kernels use (a stencil's copy-back of its grid cannot hide under the stencil).
  std::vector<Span> kernels_only, copies_only;
  struct PageableCopy {
    std::int64_t start, end;
    double bytes;
    bool to_device;
    std::uint32_t correlation = 0;
    double staged_ns = 0;  // its call's time before the DMA, where the driver staged it whole first (below)
  };
  std::vector<PageableCopy> pageable;
  // Copies inside one device and memsets: bytes moved or cleared at DRAM's rate with no computation on them (a
  // kernel's output copied again, a whole buffer cleared each step). (Peer copies between GPUs move data another
  // device needs: no buffer swap removes them.)
  std::vector<Span> device_copies;
  bool memsets_in_fills = false;
  for (const auto& k : trace.kernels) kernels_only.push_back({k.start_ns, k.end_ns});
  for (const auto& c : trace.memcpys)
    if (c.kind == MemcpyKind::dtod) device_copies.push_back({c.start_ns, c.end_ns});
  for (const auto& m : trace.memsets) device_copies.push_back({m.start_ns, m.end_ns}), memsets_in_fills = true;
  device_copies = merged_spans(std::move(device_copies));
  // Pinned copies by direction: the two copy engines can move one of each at once (pageable copies have their own
  // item: the driver stages them, whatever runs beside them).
  std::vector<Span> uploads, readbacks;
  for (const auto& c : trace.memcpys)
    if (c.kind == MemcpyKind::htod || c.kind == MemcpyKind::dtoh) {
      copies_only.push_back({c.start_ns, c.end_ns});
      if (c.pageable)
        pageable.push_back({c.start_ns, c.end_ns, static_cast<double>(c.bytes), c.kind == MemcpyKind::htod,
                            c.correlation});
      else
        (c.kind == MemcpyKind::htod ? uploads : readbacks).push_back({c.start_ns, c.end_ns});
    }
  uploads = merged_spans(std::move(uploads));
  readbacks = merged_spans(std::move(readbacks));
  kernels_only = merged_spans(std::move(kernels_only));
  copies_only = merged_spans(std::move(copies_only));
  host = merged_spans(std::move(host));
  std::sort(host_func_calls.begin(), host_func_calls.end());  // counted by start, not merged
  blocking = merged_spans(std::move(blocking));
  driver = merged_spans(std::move(driver));
  sync_tails = merged_spans(std::move(sync_tails));
  long_calls = merged_spans(std::move(long_calls));
  const double min_gap = t.param("opportunities.gap_host_work_max_ns");
  // In [lo, hi), with the GPU idle: the host's computing (idle stretches of min_gap or more, less the host's CUDA
  // calls in them: a blocking copy or a synchronisation is a wait, not work), and the host held in a blocking call
  // (any stretch).
  // `calls`: the host in any CUDA call of blocking_call_min_ns or more that is not a launch, blocking or not (without
  // copy records, a copy or a synchronisation the GPU may be serving unseen).
  // `driver`: the host in such a call that does not wait for the GPU (host work inside the driver).
  struct Idle {
    // staged: the part of `blocked` inside calls that copy from or to pageable memory (staging, below).
    double work = 0, blocked = 0, driver = 0, calls = 0, idle = 0, tails = 0, staged = 0;
  };
  // The copy calls whose copies are pageable: the driver stages the bytes through a pinned buffer in the call, and
  // the GPU idles between its DMA pieces while the host copies the next (set 48's GPS traces: 100 MB uploaded from
  // std::vector buffers, 6.8 ms of DMA and 5.7 ms of the GPU idle inside the calls, of a 13.3 ms range). That time is
  // the copies' own, at the pageable rate, not the host waiting for the GPU.
  // An upload the driver stages whole before its DMA, which starts as the call returns (set 51's Criteo columns,
  // 256-512 KiB each from pageable tensors: 47-89 us in cudaMemcpyAsync with the GPU idle, the 7-13 us DMA just
  // after), is matched to its call by correlation id, where the GPU ran nothing during the call: a call during which
  // the GPU ran waited for that work first (cudaMemcpyToSymbol's 48 bytes after each step's kernel, set 30: a wait).
  // Such a copy's time is its call's and its DMA's (pageable_copies below).
  std::map<std::uint32_t, PageableCopy*> staged_uploads;
  for (auto& c : pageable)
    if (c.to_device && c.correlation != 0) staged_uploads[c.correlation] = &c;
  std::vector<Span> staging;
  for (const auto& a : trace.api_calls) {
    if (trace.str(a.name).find("Memcpy") == std::string_view::npos) continue;
    auto c = std::partition_point(pageable.begin(), pageable.end(),
                                  [&](const PageableCopy& x) { return x.start < a.start_ns; });
    if (c != pageable.end() && c->start < a.end_ns) {
      staging.push_back({a.start_ns, a.end_ns});
    } else if (auto u = a.correlation != 0 ? staged_uploads.find(a.correlation) : staged_uploads.end();
               u != staged_uploads.end() && u->second->start >= a.end_ns && covered(gpu, a.start_ns, a.end_ns) == 0) {
      staging.push_back({a.start_ns, a.end_ns});
      u->second->staged_ns = static_cast<double>(a.end_ns - a.start_ns);
    }
  }
  staging = merged_spans(std::move(staging));
  // A host polling the GPU between two queries (poll_waits below) is silent too: that time is the polling's.
  const auto polls = poll_waits(trace, gpu);
  const HostSilences silences(trace, polls, t.param("opportunities.host_silence_min_ns"));
  // Silences count only inside [quiet_lo, quiet_hi), between an instance's kernels: the host's time before its first
  // launch is a single call's own overhead (guards, dispatch), which matters only where a loop repeats the call (set
  // 11's compiled kernel, one launch after 0.2-0.3 ms of torch.compile's guards: labelled at the DRAM roof).
  auto idle_host = [&](std::int64_t lo, std::int64_t hi, std::int64_t quiet_lo = 0, std::int64_t quiet_hi = 0) {
    Idle out;
    std::int64_t at = lo;
    auto flush = [&](std::int64_t until) {
      if (until <= at) return;
      out.idle += static_cast<double>(until - at);
      out.blocked += static_cast<double>(covered(blocking, at, until));
      out.staged += static_cast<double>(covered(staging, at, until));
      out.driver += static_cast<double>(covered(driver, at, until));
      out.tails += static_cast<double>(covered(sync_tails, at, until));
      out.calls += static_cast<double>(covered(long_calls, at, until));
      if (until - at >= min_gap) out.work += static_cast<double>(until - at - covered(host, at, until));
      else if (std::min(until, quiet_hi) > std::max(at, quiet_lo))
        out.work += static_cast<double>(silences.in(std::max(at, quiet_lo), std::min(until, quiet_hi)));
    };
    auto it = std::upper_bound(gpu.begin(), gpu.end(), Span{lo, lo},
                               [](const Span& a, const Span& b) { return a.first < b.first; });
    if (it != gpu.begin()) --it;
    for (; it != gpu.end() && it->first < hi; ++it) {
      if (it->second <= at) continue;
      if (it->first > at) flush(it->first);
      at = std::max(at, it->second);
    }
    if (at < hi) flush(hi);
    return out;
  };
  // In [lo, hi): the GPU's idle time that the host's polling added (poll_waits), less what other threads' long CUDA
  // calls cover (that time is theirs: blocked or driver work); `in_work`, the part in idle stretches of min_gap or
  // more, which idle_host counts as the host's work (less the host's calls in them).
  struct Poll {
    double ns = 0, in_work = 0;
  };
  auto polled = [&](std::int64_t lo, std::int64_t hi) {
    Poll out;
    auto it = std::partition_point(polls.begin(), polls.end(), [&](const Span& p) { return p.first < lo; });
    for (; it != polls.end() && it->first < hi; ++it) {
      const std::int64_t from = it->first, to = std::min(hi, it->second);
      if (to <= from) continue;
      out.ns += static_cast<double>(to - from - covered(long_calls, from, to));
      // The idle stretch it lies in: from the GPU's finish to its next start.
      auto g = std::partition_point(gpu.begin(), gpu.end(), [&](const Span& b) { return b.first <= from; });
      const std::int64_t stretch_end = g == gpu.end() ? hi : std::min(hi, g->first);
      if (static_cast<double>(stretch_end - from) >= min_gap)
        out.in_work += static_cast<double>(to - from - covered(host, from, to));
    }
    return out;
  };
  // The range instances that hold launches, with the end of their last kernel.
  const RangeStages ranges(run, trace);
  std::map<int, std::int64_t> last_end;     // range instance → the end of its last kernel
  std::map<int, std::int64_t> first_start;  // range instance → the start of its first kernel
  // Each instance's launch calls (the first's start, the last's end) and its kernels' durations: where all its kernels
  // ran after the host had issued them (queued behind earlier work), the GPU's span hides how fast the host issues.
  std::map<int, std::pair<std::int64_t, std::int64_t>> issued;
  std::map<int, std::vector<std::int64_t>> kernel_ns;
  const auto call_of = api_calls_by_correlation(trace);
  for (const auto& k : trace.kernels) {
    const int r = ranges.range_of(k);
    if (r < 0) continue;
    auto& e = last_end[r];
    e = std::max(e, k.end_ns);
    auto f = first_start.try_emplace(r, k.start_ns).first;
    f->second = std::min(f->second, k.start_ns);
    kernel_ns[r].push_back(k.end_ns - k.start_ns);
    if (const auto c = call_of.find(k.correlation); k.correlation && c != call_of.end()) {
      const auto& a = trace.api_calls[c->second];
      auto w = issued.try_emplace(r, a.start_ns, a.end_ns).first;
      w->second.first = std::min(w->second.first, a.start_ns);
      w->second.second = std::max(w->second.second, a.end_ns);
    }
  }
  // In [lo, hi): the time of `a` during which none of `b` ran (a copy hidden under a kernel on another stream costs
  // the range nothing to remove).
  auto alone = [&](const std::vector<Span>& a, const std::vector<Span>& b, std::int64_t lo, std::int64_t hi) {
    double t = 0;
    // `a` is merged (sorted, disjoint): start at the last span that begins at or before lo.
    auto it = std::upper_bound(a.begin(), a.end(), Span{lo, lo},
                               [](const Span& x, const Span& y) { return x.first < y.first; });
    if (it != a.begin()) --it;
    for (; it != a.end() && it->first < hi; ++it) {
      const std::int64_t from = std::max(lo, it->first), to = std::min(hi, it->second);
      if (to > from) t += static_cast<double>(to - from - covered(b, from, to));
    }
    return t;
  };
  // In [lo, hi): the time merged spans `v` (sorted, disjoint) cover.
  auto busy_in = [](const std::vector<Span>& v, std::int64_t lo, std::int64_t hi) {
    double t = 0;
    for (auto it = std::partition_point(v.begin(), v.end(), [&](const Span& x) { return x.second <= lo; });
         it != v.end() && it->first < hi; ++it)
      t += static_cast<double>(std::min(hi, it->second) - std::max(lo, it->first));
    return t;
  };
  // In [lo, hi): the part of the shorter of two kinds of GPU work that did not run beside the other.
  auto shorter_alone = [&](const std::vector<Span>& a, const std::vector<Span>& b, std::int64_t lo, std::int64_t hi) {
    // (Merged spans are sorted and disjoint, so their ends are sorted too: start at the first that ends after lo.)
    auto clip = [&](const std::vector<Span>& v) {
      std::vector<Span> out;
      auto it = std::partition_point(v.begin(), v.end(), [&](const Span& s) { return s.second <= lo; });
      for (; it != v.end() && it->first < hi; ++it) out.push_back({std::max(lo, it->first), std::min(hi, it->second)});
      return out;
    };
    const std::vector<Span> k = clip(a), c = clip(b);
    double kt = 0, ct = 0, both = 0;
    for (const auto& s : k) kt += static_cast<double>(s.second - s.first);
    for (const auto& s : c) ct += static_cast<double>(s.second - s.first);
    for (std::size_t i = 0, j = 0; i < k.size() && j < c.size();) {
      both += static_cast<double>(std::max<std::int64_t>(0, std::min(k[i].second, c[j].second) -
                                                              std::max(k[i].first, c[j].first)));
      if (k[i].second < c[j].second) ++i;
      else ++j;
    }
    return std::max(0.0, std::min(kt, ct) - both);
  };
  // In [lo, hi): the part of the shorter of the copies and the kernels that did not run beside the other (what
  // overlapping them could hide).
  auto serial_copies = [&](std::int64_t lo, std::int64_t hi) {
    return shorter_alone(kernels_only, copies_only, lo, hi);
  };
  // The rate of a copy from or to pinned memory: the device's measured host link in that direction (kprof-peaks'
  // h2d_pinned_gbps, d2h_pinned_gbps), else opportunities.pinned_copy_gbps.
  auto measured_rate = [&](bool to_device) -> std::optional<double> {
    if (run.device_spec)
      if (auto p = run.device_spec->peak(to_device ? "h2d_pinned_gbps" : "d2h_pinned_gbps"); p && p->value > 0)
        return p->value;
    return std::nullopt;
  };
  auto pinned_rate = [&](bool to_device) {
    return measured_rate(to_device).value_or(t.param("opportunities.pinned_copy_gbps"));
  };
  // In [lo, hi): the time and bytes of copies from or to pageable host memory (the driver stages them, at a
  // fraction of the host link's rate, and the call blocks the host), and the time the same bytes take from pinned
  // memory.
  struct Paged {
    double ns = 0, bytes = 0, pinned_ns = 0, up_bytes = 0;  // up_bytes: those copied to the device
    bool measured = false, fallback = false;  // some copy's rate came from the device's measurement / the threshold
  };
  auto pageable_copies = [&](std::int64_t lo, std::int64_t hi) {
    Paged out;
    // (In start order, as the trace's copies.)
    auto it = std::partition_point(pageable.begin(), pageable.end(), [&](const PageableCopy& c) { return c.start < lo; });
    for (; it != pageable.end() && it->start < hi; ++it)
      if (const PageableCopy& c = *it; c.end <= hi) {
        out.ns += static_cast<double>(c.end - c.start) + c.staged_ns;
        out.bytes += c.bytes;
        if (c.to_device) out.up_bytes += c.bytes;
        out.pinned_ns += c.bytes / pinned_rate(c.to_device);
        (measured_rate(c.to_device) ? out.measured : out.fallback) = true;
      }
    return out;
  };
  struct Seen {
    // serial_pinned: serial, plus what pinning the pageable copies saves beyond it where the copies are the longer
    // of the two (the overlap item's remedy pins them too).
    std::vector<double> work, driver, tails, blocked, in_calls, serial, serial_pinned, span, pageable_ns, pageable_bytes,
        pageable_up_share, pageable_pinned_ns, device_copy, link_alone, round_trip, device_synced, host_funcs, polled,
        directions_serial, blocking_copy_share, side_by_side;
    std::vector<RangeTime> instances;
    std::vector<int> side_launches;  // each instance's under-filled launches of that kernel (0 where none counted)
    std::string side_kernel;
    // The GPU-idle time inside each instance's child NVTX ranges that launched nothing (the program's or a
    // framework's annotations of host work: XLA's "XlaCompile:#module=...#" around each compilation), by label.
    std::map<std::string, std::vector<double>> annotated;
    double leads = 0;  // the host's computing before each instance's first GPU activity, summed (in their spans)
    int loading = 0;   // instances in which the driver loaded a module or library (a first call's set-up)
    bool pinned_measured = false, pinned_fallback = false;
  };
  // Kernel starts, and the host's waits for the GPU (synchronising calls, blocking copies either way), in time
  // order: how many of each an instance holds.
  std::vector<std::int64_t> kernel_starts, wait_starts, wait_ends;
  for (const auto& k : trace.kernels) kernel_starts.push_back(k.start_ns);
  const std::vector<std::int64_t> launch_starts = launch_starts_of(trace);
  auto wait = [&](std::int64_t start, std::int64_t end) { wait_starts.push_back(start), wait_ends.push_back(end); };
  for (const auto& s : trace.syncs)
    if (s.type == SyncType::event_synchronize || s.type == SyncType::stream_synchronize ||
        s.type == SyncType::context_synchronize)
      wait(s.start_ns, s.end_ns);
  if (trace.syncs.empty())
    for (const auto& a : trace.api_calls)
      if (trace.str(a.name).find("Synchronize") != std::string_view::npos) wait(a.start_ns, a.end_ns);
  // Blocking copies: a read-back, and an upload too (cudaMemcpy or cudaMemcpyToSymbol without Async synchronises the
  // stream before it copies: CUDA's API synchronisation behaviour), so the host waits for the work queued before it
  // (set 30's 48-byte symbol upload before every diffusion step).
  for (const auto& c : trace.memcpys)
    if ((c.kind == MemcpyKind::dtoh || c.kind == MemcpyKind::htod) && !c.async) wait(c.start_ns, c.end_ns);
  std::sort(kernel_starts.begin(), kernel_starts.end());
  // The host synchronising the whole device (cudaDeviceSynchronize), in time order.
  std::vector<std::int64_t> device_syncs;
  for (const auto& s : trace.syncs)
    if (s.type == SyncType::context_synchronize) device_syncs.push_back(s.start_ns);
  for (const auto& a : trace.api_calls)
    if (const std::string_view n = trace.str(a.name);
        n.find("DeviceSynchronize") != std::string_view::npos || n.find("CtxSynchronize") != std::string_view::npos)
      device_syncs.push_back(a.start_ns);
  std::sort(device_syncs.begin(), device_syncs.end());
  // The copies and kernels that began in [lo, hi) (both kept sorted by start in the trace).
  auto copies_in = [&](std::int64_t lo, std::int64_t hi) {
    auto by_start = [](const TraceMemcpy& c, std::int64_t at) { return c.start_ns < at; };
    return std::pair(std::lower_bound(trace.memcpys.begin(), trace.memcpys.end(), lo, by_start),
                     std::lower_bound(trace.memcpys.begin(), trace.memcpys.end(), hi, by_start));
  };
  auto kernels_in = [&](std::int64_t lo, std::int64_t hi) {
    auto by_start = [](const TraceKernel& k, std::int64_t at) { return k.start_ns < at; };
    return std::pair(std::lower_bound(trace.kernels.begin(), trace.kernels.end(), lo, by_start),
                     std::lower_bound(trace.kernels.begin(), trace.kernels.end(), hi, by_start));
  };
  std::sort(wait_starts.begin(), wait_starts.end());
  std::sort(wait_ends.begin(), wait_ends.end());
  // Waits that returned after the first kernel of [from, to) started and before its last one did: the host launched
  // again after them. (A wait begins before the kernel it waits for starts; it returns after it ends.) A blocking
  // upload before the first kernel (inside the span, which copies widen) is not between launches.
  auto waits_between = [&](std::int64_t from, std::int64_t to) {
    const auto l0 = std::lower_bound(launch_starts.begin(), launch_starts.end(), from);
    const auto l1 = std::lower_bound(launch_starts.begin(), launch_starts.end(), to);
    if (l0 == l1) return 0;
    const std::int64_t first_start = *l0, last_start = *std::prev(l1);
    if (last_start <= first_start) return 0;
    return static_cast<int>(std::lower_bound(wait_ends.begin(), wait_ends.end(), last_start) -
                            std::upper_bound(wait_ends.begin(), wait_ends.end(), first_start));
  };
  // A launch's own cost, which no remedy of the gaps removes: the median launch call, at least 1 us.
  double launch_floor_ns = 1000.0;
  {
    std::vector<double> calls;
    for (const auto& a : trace.api_calls)
      if (trace.str(a.name).find("Launch") != std::string_view::npos) calls.push_back(static_cast<double>(a.end_ns - a.start_ns));
    if (!calls.empty()) {
      std::nth_element(calls.begin(), calls.begin() + calls.size() / 2, calls.end());
      launch_floor_ns = std::max(launch_floor_ns, calls[calls.size() / 2]);
    }
  }
  // Ranges that hold a kernel launch (its innermost range and every range around it): the others, nested in a stage's
  // range, annotate host work. A child's label is its name up to a TraceMe-style "Name:#key=value#" argument list.
  std::vector<bool> launched(trace.nvtx.size(), false);
  for (const auto& k : trace.kernels)
    for (int p = k.nvtx_range; p >= 0 && p < static_cast<int>(trace.nvtx.size()) && !launched[p];
         p = trace.nvtx[p].parent)
      launched[p] = true;
  std::map<int, std::vector<std::pair<std::string, Span>>> annotations;  // parent range -> (label, span) of children
  for (std::size_t i = 0; i < trace.nvtx.size(); ++i) {
    const auto& c = trace.nvtx[i];
    if (c.parent < 0 || launched[i] || !c.push_pop || c.end_ns <= c.start_ns) continue;
    std::string label{trace.str(c.name)};
    if (const auto at = label.find(":#"); at != std::string::npos) label.resize(at);
    if (label.size() > 48) label.resize(48);
    annotations[c.parent].push_back({label, {c.start_ns, c.end_ns}});
  }
  std::map<const Stage*, Seen> per_stage;
  for (const auto& [r, end] : last_end) {
    const auto& range = trace.nvtx[r];
    const Stage* stage = ranges.stage_of(r);
    if (!stage) continue;
    const std::int64_t lo = range.start_ns, hi = std::max(range.end_ns, end);
    if (hi <= lo) continue;
    const Idle idle = idle_host(lo, hi, first_start[r], end);
    if (const auto found = annotations.find(r); found != annotations.end()) {
      std::map<std::string, double> by_label;
      for (const auto& [label, span] : found->second) {
        const std::int64_t a = std::max(span.first, lo), b = std::min(span.second, hi);
        if (b > a) {  // counted as the range's host work is: computing and driver calls with the GPU idle
          const Idle in = idle_host(a, b, first_start[r], end);
          by_label[label] += in.work + in.driver;
        }
      }
      for (const auto& [label, ns] : by_label) per_stage[stage].annotated[label].push_back(ns);
    }
    // A module or library loaded in the instance (CUDA's lazy loading of the kernels a first call uses): set-up. The
    // driver's calls name it, and CUPTI's overhead records where the tracer kept them (TraceOverhead: the driver's
    // compiler, runtime module loading, lazy function loading).
    {
      bool loads = std::any_of(trace.overheads.begin(), trace.overheads.end(), [&](const TraceOverhead& o) {
        const std::uint32_t kind = o.kind >> 16;
        return (o.kind == 1 || kind == 4 || kind == 5) && o.start_ns < hi && o.end_ns > lo;
      });
      auto a = std::lower_bound(trace.api_calls.begin(), trace.api_calls.end(), lo,
                                [](const TraceApiCall& c, std::int64_t at) { return c.start_ns < at; });
      for (; !loads && a != trace.api_calls.end() && a->start_ns < hi; ++a) {
        const std::string_view n = trace.str(a->name);
        loads = n.find("LoadData") != std::string_view::npos || n.find("ModuleLoad") != std::string_view::npos ||
                n.find("LibraryLoad") != std::string_view::npos;
      }
      if (loads) ++per_stage[stage].loading;
    }
    // The GPU idle while the host polls is the polling's, not the host's work (its own item below).
    const Poll poll = polled(lo, hi);
    per_stage[stage].polled.push_back(poll.ns);
    per_stage[stage].work.push_back(std::max(0.0, idle.work - poll.in_work) + idle.driver);
    per_stage[stage].driver.push_back(idle.driver);
    per_stage[stage].tails.push_back(idle.tails);
    per_stage[stage].in_calls.push_back(idle.blocked + idle.driver);
    per_stage[stage].blocked.push_back(std::max(0.0, idle.blocked - idle.staged));
    per_stage[stage].serial.push_back(trace.memcpys.empty() ? 0.0 : serial_copies(lo, hi));
    per_stage[stage].directions_serial.push_back(shorter_alone(uploads, readbacks, lo, hi));
    {
      // The share of the instance's pinned copies outside graphs (those the item counts) issued by a blocking call
      // (cudaMemcpy without Async), by time; and whether it has two or more each way: a pipeline of chunks, not one
      // upload, a kernel and one read-back of its result, which depend on each other.
      double all = 0, blocking_copies = 0;
      int up = 0, down = 0;
      const auto [c0, c1] = copies_in(lo, hi);
      for (auto ci = c0; ci != c1; ++ci)
        if ((ci->kind == MemcpyKind::htod || ci->kind == MemcpyKind::dtoh) && !ci->pageable && ci->graph_id == 0) {
          const double d = static_cast<double>(ci->end_ns - ci->start_ns);
          all += d;
          blocking_copies += ci->async ? 0.0 : d;
          (ci->kind == MemcpyKind::htod ? up : down) += 1;
        }
      per_stage[stage].blocking_copy_share.push_back(all > 0 ? blocking_copies / all : 0.0);
      // The shorter direction alone, at most half of the copies' time with no kernel beside them (time under a
      // kernel is hidden already).
      const double link_alone = alone(copies_only, kernels_only, lo, hi);
      per_stage[stage].directions_serial.back() =
          up >= 2 && down >= 2 ? std::min(per_stage[stage].directions_serial.back(), 0.5 * link_alone) : 0.0;
    }
    per_stage[stage].device_copy.push_back(alone(device_copies, kernels_only, lo, hi));  // none without copy records
    per_stage[stage].link_alone.push_back(alone(copies_only, kernels_only, lo, hi));
    // The share of its host-link bytes that went to the host and came back: a device-to-host copy followed in the
    // instance by a host-to-device copy of the same size (within 5%): an intermediate handed from one stage to the next
    // through host memory (set 22: 32 MiB down after the first kernel, the same 32 MiB up before the second). The copy
    // records carry no addresses: an instance that uploads anything it did not read back first (a chunked pipeline:
    // upload x1, read back y1, upload x2 ... of one size) brings new data in, and counts no round trip.
    {
      double link_bytes = 0, back = 0;
      bool fresh = false;             // an upload no read-back of its size came before
      std::multiset<double> down;     // sizes read back and not yet sent up again
      const auto [c0, c1] = copies_in(lo, hi);
      for (auto ci = c0; ci != c1; ++ci) {
        const auto& c = *ci;
        if (c.kind != MemcpyKind::dtoh && c.kind != MemcpyKind::htod) continue;
        const double b = static_cast<double>(c.bytes);
        link_bytes += b;
        if (c.kind == MemcpyKind::dtoh) {
          down.insert(b);
          continue;
        }
        auto it = down.lower_bound(b / 1.05);
        if (it != down.end() && *it <= b / 0.95) back += *it + b, down.erase(it);
        else fresh = true;
      }
      per_stage[stage].round_trip.push_back(link_bytes > 0 && !fresh ? back / link_bytes : 0.0);
    }
    // Host-link copies on streams none of the instance's kernels ran on (put there to overlap them), in an instance
    // where the host synchronises the whole device: the device-wide wait also waits for those copies, so they cannot
    // run beside the next kernels (set 24's checkpoint copy on a side stream, a cudaDeviceSynchronize every step).
    {
      std::set<std::uint32_t> kernel_streams;
      for (auto [k0, k1] = kernels_in(lo, hi); k0 != k1; ++k0) kernel_streams.insert(k0->stream);
      bool side = false, all_side = true;
      for (auto [c0, c1] = copies_in(lo, hi); c0 != c1; ++c0)
        if ((c0->kind == MemcpyKind::dtoh || c0->kind == MemcpyKind::htod) && c0->bytes >= 1 << 20) {
          if (kernel_streams.count(c0->stream)) all_side = false;
          else side = true;
        }
      const bool device_sync = std::lower_bound(device_syncs.begin(), device_syncs.end(), lo) !=
                               std::lower_bound(device_syncs.begin(), device_syncs.end(), hi);
      per_stage[stage].device_synced.push_back(side && all_side && device_sync ? 1.0 : 0.0);
    }
    // Host functions enqueued on a stream (cudaLaunchHostFunc): the stream holds its next work until each returns.
    auto first_at = [&](std::int64_t at) {
      return std::partition_point(host_func_calls.begin(), host_func_calls.end(),
                                  [&](const Span& c) { return c.first < at; });
    };
    const int host_funcs = static_cast<int>(first_at(hi) - first_at(lo));
    per_stage[stage].host_funcs.push_back(host_funcs);
    const Paged paged = pageable_copies(lo, hi);
    {
      // Overlapping copies with kernels takes asynchronous copies, and those take pinned memory: where the copies
      // are the longer of the two, the pinned ones run faster too, down to the kernels' time (set 45's CSV batches
      // and set 33's ocean frames, uploaded or read back from pageable memory one after each kernel on one stream:
      // every blind label named pinned buffers and copies overlapped with the kernels as one fix).
      const double kernels_ns = busy_in(kernels_only, lo, hi), copies_ns = busy_in(copies_only, lo, hi);
      const double hidden = per_stage[stage].serial.back();  // what overlapping alone hides (pushed above)
      const double faster = std::max(0.0, paged.ns - paged.pinned_ns);
      per_stage[stage].serial_pinned.push_back(hidden + std::max(0.0, std::min(faster, copies_ns - kernels_ns)));
    }
    per_stage[stage].pageable_ns.push_back(paged.ns);
    per_stage[stage].pageable_bytes.push_back(paged.bytes);
    if (paged.bytes > 0) per_stage[stage].pageable_up_share.push_back(paged.up_bytes / paged.bytes);
    per_stage[stage].pageable_pinned_ns.push_back(paged.pinned_ns);
    per_stage[stage].pinned_measured |= paged.measured;
    per_stage[stage].pinned_fallback |= paged.fallback;
    per_stage[stage].span.push_back(static_cast<double>(hi - lo));
    // Launches of one kernel, each of fewer blocks than the GPU has SMs, run one after another: side by side (streams,
    // graph branches, or one launch over all their blocks), they take about the longest one's time, or their blocks'
    // work spread over every SM (sets 22 and 28: six option-pricing and eight epidemic-ensemble launches of 8-24
    // blocks on 132 SMs, back to back on one stream; every blind label named running them concurrently).
    {
      const int sms = run.device_spec ? run.device_spec->sm_count : 0;
      // Consecutive launches only: another kernel between two of them (a layer's full-grid kernel before each small
      // one) is a chain whose small launches read what it wrote. Kernels before the first or after the last (a final
      // reduction) do not break it.
      double serial = 0, block_ns = 0, longest = 0;
      int small = 0;
      bool one_kernel = true, apart = true, interrupted = false, other_since = false;
      StringId fn = kNoName;
      std::int64_t reach = 0;
      for (auto [k0, k1] = kernels_in(lo, hi); sms > 0 && k0 != k1; ++k0) {
        const auto& k = *k0;
        const double blocks = double(k.grid[0]) * std::max(1, k.grid[1]) * std::max(1, k.grid[2]);
        if (k.start_ns < reach) apart = false;
        reach = std::max(reach, k.end_ns);
        const bool mine = blocks > 0 && blocks < sms && (small == 0 || k.function == fn);
        if (!mine) {
          if (blocks > 0 && blocks < sms) one_kernel = false;  // another under-filled kernel
          if (small > 0) other_since = true;
          continue;
        }
        if (other_since) interrupted = true;
        fn = k.function;
        const double d = static_cast<double>(k.end_ns - k.start_ns);
        ++small, serial += d, block_ns += d * blocks, longest = std::max(longest, d);
      }
      const bool counts = small >= 2 && one_kernel && apart && !interrupted;
      per_stage[stage].side_by_side.push_back(counts ? std::max(0.0, serial - std::max(longest, block_ns / sms)) : 0.0);
      per_stage[stage].side_launches.push_back(counts ? small : 0);
      if (counts) per_stage[stage].side_kernel = std::string(trace.str(fn));
    }
    // The instance's GPU span: from the start of its own first kernel to the end of its last, widened to the copies
    // and memsets that ran while the host was inside the range (copies carry no range of their own). The host's time
    // before the first launch (a single call's own overhead, which matters only where a loop repeats the call) is not
    // the range's idling, nor is other work of the window (another stream's, or earlier instances' when the host
    // queues ahead); but the host computing in the range before it, outside any CUDA call in stretches of
    // gap_host_work_max_ns or more with the GPU idle, is the range's host work, added to the span (set 32's subword
    // hashing and np.unique of voxel keys, each of them most of its range, before the range's first launch).
    std::int64_t first = first_start[r], last = end;
    auto widen = [&](const auto& spans) {  // sorted by start
      auto it = std::lower_bound(spans.begin(), spans.end(), range.start_ns,
                                 [](const auto& x, std::int64_t at) { return x.start_ns < at; });
      for (; it != spans.end() && it->start_ns < range.end_ns; ++it)
        if (it->end_ns <= range.end_ns) first = std::min(first, it->start_ns), last = std::max(last, it->end_ns);
    };
    widen(trace.memcpys);
    widen(trace.memsets);
    // The range's span for its items' shares is the host's, less the time before its own first GPU activity that the
    // GPU spent on earlier work (another step's kernels, still running when the host entered the range and waited in
    // its first blocking call): the GPU was not the range's then, nor idle for it (set 36's loader: its first pageable
    // copy call waited 13.4 ms of the 17.7-ms range, 10.3 ms of it behind the previous case's kernels; its copies'
    // share of the typical span went from 15%, under any item's floor, to 35%).
    if (first > lo && !per_stage[stage].span.empty())
      per_stage[stage].span.back() =
          std::max(1.0, per_stage[stage].span.back() - static_cast<double>(covered_ns(gpu, lo, first)));
    if (last > first) {
      const double lead = first > range.start_ns ? idle_host(range.start_ns, first).work : 0.0;
      const Idle within = idle_host(first, last, first_start[r], end);
      auto count = [&](const std::vector<std::int64_t>& starts) {
        return static_cast<int>(std::lower_bound(starts.begin(), starts.end(), last) -
                                std::lower_bound(starts.begin(), starts.end(), first));
      };
      // Gaps (under gap_host_work_max_ns) between consecutive kernels of the span in which a wait of the host for the
      // GPU returned: the wait drained the queue, and the next launch came after it. (A wait begins before the kernel
      // it waits for has started, right after its launch call: its end, not its start, places it.)
      // Gaps between two nodes of one graph launch: the graph's own cost per node, not the host's.
      double wait_gaps = 0, node_gaps = 0;
      {
        // (kernel_starts[i] is trace.kernels[i]'s start: the trace keeps its kernels sorted by start.)
        auto k0 = std::lower_bound(kernel_starts.begin(), kernel_starts.end(), first);
        std::int64_t reach = 0;
        bool any = false;
        for (std::size_t i = static_cast<std::size_t>(k0 - kernel_starts.begin());
             i < trace.kernels.size() && trace.kernels[i].start_ns < last; ++i) {
          const auto& k = trace.kernels[i];
          if (any && k.start_ns > reach && static_cast<double>(k.start_ns - reach) < min_gap) {
            const double g = static_cast<double>(k.start_ns - reach);
            auto w = std::lower_bound(wait_ends.begin(), wait_ends.end(), reach);
            if (same_graph_launch(trace.kernels[i - 1], k)) node_gaps += g;
            else if (w != wait_ends.end() && *w <= k.start_ns)
              wait_gaps += g - static_cast<double>(silences.in(reach, k.start_ns));  // (a silence is the host's work)
          }
          reach = any ? std::max(reach, k.end_ns) : k.end_ns;
          any = true;
        }
      }
      // The host-device copies begun in the span that run some of their time with no kernel beside them (the time
      // link_copy_ns counts), and their bytes: small copies wholly under a kernel cost the range nothing.
      int link_copies = 0;
      double link_copy_bytes = 0;
      for (auto [c0, c1] = copies_in(first, last); c0 != c1; ++c0)
        if ((c0->kind == MemcpyKind::htod || c0->kind == MemcpyKind::dtoh) &&
            covered(kernels_only, c0->start_ns, c0->end_ns) < c0->end_ns - c0->start_ns)
          ++link_copies, link_copy_bytes += static_cast<double>(c0->bytes);
      // The idle time splits into the host's work, its blocking calls, its polling and the launch gaps; the host in
      // a long call that may be a copy the trace did not record is not counted as idle.
      const Poll poll = polled(first, last);
      // An instance whose kernels all ran after the host had issued the last of them (queued behind earlier work: a
      // program that runs its calls one after another without waiting) shows no gaps, though the host took longer to
      // issue them than the GPU to run them. Where they are short (the median under tiny_kernel_us: many small ops),
      // the call repeated on its own runs at the host's launch rate: the time the host's issuing exceeds the GPU's
      // span is launch gaps (set 32's Dice loss and detection-head decode, 77 and 41 PyTorch ops of 1-5 us each
      // issued at 17-19 us apiece: their blind labels read the gaps of the first call, where nothing queued).
      double paced = 0;
      if (const auto w = issued.find(r); w != issued.end() && kernel_ns[r].size() >= 2) {
        auto& d = kernel_ns[r];
        std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
        const bool queued = first_start[r] >= w->second.second;
        const double issue = static_cast<double>(w->second.second - w->second.first);
        if (queued && static_cast<double>(d[d.size() / 2]) < t.param("diagnosis.tiny_kernel_us") * 1e3)
          paced = std::max(0.0, issue - static_cast<double>(last - first));
      }
      per_stage[stage].leads += lead;
      per_stage[stage].instances.push_back({.instances = 1,
                                            .span_ns = static_cast<double>(last - first) + lead + paced,
                                            .idle_ns = std::max(0.0, within.idle - within.staged -
                                                                         std::max(0.0, within.calls - within.blocked -
                                                                                           within.driver)) +
                                                       lead + paced,
                                            .host_work_ns = std::max(0.0, within.work - poll.in_work) + within.driver +
                                                            lead,
                                            .host_blocked_ns = std::max(0.0, within.blocked - within.staged),
                                            .launch_gaps_ns = std::max(0.0, within.idle - within.work - within.calls -
                                                                                node_gaps - (poll.ns - poll.in_work)) +
                                                              paced,
                                            .paced_gaps_ns = paced,
                                            .wait_gaps_ns = wait_gaps,
                                            .graph_node_gaps_ns = node_gaps,
                                            .poll_wait_ns = poll.ns,
                                            .launches = count(launch_starts),
                                            .host_waits = count(wait_starts),
                                            .waits_between = waits_between(first, last),
                                            .link_copy_ns = alone(copies_only, kernels_only, first, last) +
                                                            within.staged,
                                            .device_fill_ns = alone(device_copies, kernels_only, first, last),
                                            .link_copies = link_copies,
                                            .link_copy_bytes = link_copy_bytes});
    }
  }
  auto lower_median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[(v.size() - 1) / 2];
  };
  // Synchronisations that return long after the GPU's last work: the driver works in them. Beside stream-ordered
  // allocations that is the pool handing its memory back at each synchronisation (its release threshold, 0 by default)
  // and mapping it again at the next allocation (set 38's Monte Carlo batches: 120 us in each sync).
  const bool stream_ordered = std::any_of(trace.api_calls.begin(), trace.api_calls.end(), [&](const TraceApiCall& a) {
    const std::string_view n = trace.str(a.name);
    return n.find("MallocAsync") != std::string_view::npos || n.find("MemAllocAsync") != std::string_view::npos ||
           n.find("MallocFromPoolAsync") != std::string_view::npos;
  });
  auto pool_trim = [&](const auto& seen) {
    const double tails = lower_median(seen.tails), driver = lower_median(seen.driver);
    if (driver <= 0 || tails < 0.25 * driver) return std::string();
    return fmt::format(" ({:.1f} ms of it in synchronisations that return after the GPU's last work{})", tails * 1e-6,
                       stream_ordered ? ": the stream-ordered pool releasing its memory at each synchronisation; "
                                        "raise its release threshold (cudaMemPoolAttrReleaseThreshold) or allocate "
                                        "once"
                                      : "");
  };
  for (const auto& entry : per_stage) {
    // (Named, not structured bindings: the lambdas below capture them, which clang 14 does not allow for bindings.)
    const Stage* const stage = entry.first;
    const Seen& seen = entry.second;
    // One instance cannot tell the steady state from a first call's set-up (cuDNN building its plans, a compile,
    // the allocator's first growth), unless the program warmed the call up before it: no module or library loaded in
    // it (CUDA loads a first call's kernels lazily), and the host's own work under gap_min_idle_share of its span
    // (set-up is the host's work: MLA v4's one output GEMM call, idle 91% of it while cuBLAS picks its kernel, with no
    // loading call in the trace). Sets 43 and 49's Python programs call every case once before the ranges, and ncu
    // mode ran them once.
    if (seen.work.empty()) continue;
    if (seen.work.size() < 2 &&
        (seen.loading > 0 || seen.instances.empty() ||
         seen.instances.front().host_work_ns >=
             t.param("opportunities.gap_min_idle_share") * seen.instances.front().span_ns))
      continue;
    // The typical instance over its GPU span: the lower median by the share of its span the GPU idled.
    std::optional<RangeTime> gpu_typical;
    double gpu_spans = 0;  // all instances' GPU spans
    if (!seen.instances.empty()) {
      std::vector<RangeTime> by_idle = seen.instances;
      std::sort(by_idle.begin(), by_idle.end(), [](const RangeTime& a, const RangeTime& b) {
        return a.idle_ns * b.span_ns < b.idle_ns * a.span_ns;
      });
      gpu_typical = by_idle[(by_idle.size() - 1) / 2];
      gpu_typical->instances = static_cast<int>(by_idle.size());
      // (Less the host's work before the instances' first GPU activity: the traced span, which the run shares are
      // of, begins at the first GPU activity, and a one-off lead, a compile, must not make the range's GPU time.)
      for (const auto& i : by_idle) gpu_spans += i.span_ns;
      gpu_spans = std::max(0.0, gpu_spans - seen.leads);
      if (times) (*times)[stage] = *gpu_typical;
    }
    double span = 0;
    for (double s : seen.span) span += s;
    if (span <= 0) continue;
    const double count = static_cast<double>(seen.work.size()), min_share = t.param("opportunities.gap_min_idle_share");
    // Each share is of the typical instance's span (the lower median): the first call of a range can hold set-up far
    // longer than the steady state (set 23's memory bank: 103 ms of library loading before its first kernel, then a
    // 0.5 ms step whose 130 us of device copies went unseen against the two instances' mean). The run's share is
    // then the instances at the typical span: the first call's set-up is not what the remedy saves.
    const double typical_span = lower_median(seen.span);
    if (typical_span <= 0) continue;
    const double per_range_ms = typical_span * 1e-6;
    // One item of this stage: `saved` is the share of its span the remedy saves; `total_ns` the time it reads,
    // over all instances.
    auto item = [&](RemedyId remedy, double saved, const char* metric, double total_ns, const std::string& trigger) {
      Opportunity o = make(remedy, "stage");
      o.est_gain_pct = std::min(t.param("diagnosis.max_gain_pct"), saved * 100.0);
      o.run_share_pct = std::min(100.0, std::min(span, typical_span * count) / span_ns * 100.0);
      o.run_gain_pct = o.est_gain_pct * o.run_share_pct / 100.0;
      o.trigger_metric = metric;
      o.trigger_value = total_ns;
      o.trigger = fmt::format("{}: {} over {} range{}", stage->name, trigger, seen.work.size(),
                              seen.work.size() == 1 ? "" : "s");
      for (const auto& g : stage->kernels) o.kernels.push_back(stage_kernel_label(*stage, g));
      return o;
    };
    // Under-filled launches of one kernel run one after another (the instance's side_by_side time).
    if (const double side = lower_median(seen.side_by_side); side / typical_span >= min_share) {
      // The launch count of the instance the estimate is (the lower median's).
      int launches = 0;
      for (std::size_t i = 0; i < seen.side_by_side.size(); ++i)
        if (seen.side_by_side[i] == side) launches = seen.side_launches[i];
      Opportunity o = item(RemedyId::overlap_stages, side / typical_span, "serial_grid_ns", side * count,
                           fmt::format("launches={} of {}, serial_small_grids={:.2f} ms of {:.2f} ms", launches,
                                       seen.side_kernel, side * 1e-6, per_range_ms));
      o.name = fmt::format("If the {} launches of {} are independent, run them side by side (streams or parallel graph "
                           "branches), or as one launch over all their blocks",
                           launches, seen.side_kernel);
      o.rationale = fmt::format(
          "In {} {} launches of {} each have fewer blocks than the GPU has SMs and run one after another, with no "
          "other kernel between them: most SMs idle through each. Side by side (or merged into one grid), they take "
          "about the longest launch's time, or their blocks' work spread over every SM: {:.2f} ms less of each "
          "range's {:.2f} ms (typically). kprof cannot see whether a launch reads what an earlier one wrote (a time "
          "step, a scan): then only more blocks per launch fill the GPU.",
          stage->name, launches, seen.side_kernel, side * 1e-6, per_range_ms);
      o.assumes = "the launches are independent (no launch reads what an earlier one wrote), and their blocks fit "
                  "beside each other on the SMs";
      // Only the kernel it names: its grid-fill item is the other way to the same idle SMs (the contract lists this
      // one in its place).
      o.kernels.clear();
      for (const auto& g : stage->kernels)
        if (g.kernel == seen.side_kernel || g.signature == seen.side_kernel ||
            stage_kernel_label(*stage, g).find(seen.side_kernel) != std::string::npos)
          o.kernels.push_back(stage_kernel_label(*stage, g));
      if (o.kernels.empty())
        for (const auto& g : stage->kernels) o.kernels.push_back(stage_kernel_label(*stage, g));
      out.push_back(std::move(o));
    }
    // Pageable uploads filling most of the range (the pinned-memory item below: have the input there ahead of use).
    const bool pageable_uploads_lead =
        !seen.pageable_up_share.empty() &&
        lower_median(seen.pageable_up_share) >= t.param("opportunities.pageable_upload_bytes_share") &&
        lower_median(seen.pageable_ns) >= t.param("opportunities.pageable_upload_range_share") * typical_span;
    // Copies and kernels that never ran side by side (a two-stream pipeline serialised by work on the legacy default
    // stream, or one stream for both): overlapping them hides the shorter.
    if (const double serial = lower_median(seen.serial); serial / typical_span >= min_share) {
      // The copies already on streams of their own, serialised by the host synchronising the whole device: the
      // device-wide waits are what to change.
      const bool synced = lower_median(seen.device_synced) >= 1.0;
      // Pageable copies longer than the kernels: pinning them (which overlapping needs) saves the rest of their time
      // down to the kernels', beyond what overlapping hides. Not for the synchronisation item (its copies are
      // already asynchronous), nor where the pageable copies are uploads filling the range (the upload-ahead item
      // below is the overlap there).
      const double pinned_more =
          synced || pageable_uploads_lead ? 0.0 : std::max(0.0, lower_median(seen.serial_pinned) - serial);
      Opportunity o = item(synced ? RemedyId::host_sync : RemedyId::overlap_stages, (serial + pinned_more) / typical_span,
                           "serial_copy_ns", (serial + pinned_more) * count,
                           fmt::format("serial_copies={:.1f} ms of {:.1f} ms", serial * count * 1e-6, span * 1e-6));
      o.name = synced ? "Synchronise only the stream whose result the host needs (cudaStreamSynchronize or an event), "
                        "not the whole device"
                      : "Overlap the copies with the kernels (pinned memory, cudaMemcpyAsync on other streams, nothing "
                        "on the legacy default stream between them)";
      o.rationale =
          synced ? fmt::format("In {} the copies run on a stream of their own, yet never beside the kernels: {:.1f} ms "
                               "of each range's {:.1f} ms (typically) is the shorter of the two running alone. The host "
                               "synchronises the whole device (cudaDeviceSynchronize) in each range, which waits for "
                               "the copies too; waiting on the kernels' stream (or an event after the result the host "
                               "reads) lets the copies run under the next kernels.",
                               stage->name, serial * 1e-6, per_range_ms)
                 : fmt::format("In {} the copies and the kernels run one after the other: {:.1f} ms of each range's "
                               "{:.1f} ms (typically) is the shorter of the two running alone. On separate streams "
                               "from pinned memory, with no work on the legacy default stream between them (it "
                               "waits for every other stream), one hides under the other.{}",
                               stage->name, serial * 1e-6, per_range_ms,
                               pinned_more > 0
                                   ? fmt::format(" The copies come from or go to pageable memory and take longer "
                                                 "than the kernels: from pinned buffers they also run at the host "
                                                 "link's rate, {:.1f} ms less.",
                                                 pinned_more * 1e-6)
                                   : std::string());
      o.assumes = synced ? "the host needs only the kernels' stream at each synchronisation, so the copies hide under "
                           "the next kernels"
                         : pinned_more > 0
                             ? "the copies and the kernels are independent chunks (a pipeline), so the shorter of the "
                               "two hides under the longer, and pinned copies run at the host link's rate"
                             : "the copies and the kernels are independent chunks (a pipeline), so the shorter of the two "
                               "hides under the longer";
      out.push_back(std::move(o));
    }
    // Uploads and read-backs from pinned memory that never ran side by side, though the two copy engines move one of
    // each at once: the shorter direction hides under the other (independent chunks: new data up, results down).
    // Issued by blocking calls (cudaMemcpy), each copy waits for the work queued before it and holds the host until it
    // ends (on the legacy default stream it also waits for every other stream): asynchronous copies on the chunks'
    // streams are the change (host_sync); issued asynchronously, the copies share one stream or wait on each other
    // (overlap_stages). Set 35's chunked decode:
    // 16 uploads by cudaMemcpy and 16 asynchronous read-backs of 8 MiB each, one after another across four streams.
    // Not where the uploads send back up what the read-backs brought down (a round trip through host memory: each
    // upload waits for its read-back, and keeping the data on the GPU removes both; the item below).
    // How much of the shorter direction hides: the device's two-way rate (kprof-peaks' both_pinned_gbps, an upload and
    // a read-back at once) against the one-way rate r (the mean of the two directions'): 2 (1 - r / both) of it, all
    // of it where the two directions run at full rate side by side (both = 2r), none where they share the link's
    // rate. Unmeasured, all of it (set 35's chunked decode on the H100: estimated 44% of the range, realised 25.6%).
    // (The item stands on the unscaled share: blocking copies also hold the host; only its estimate is scaled.)
    double hidden = 1.0;
    std::optional<double> both;
    if (run.device_spec)
      if (auto p = run.device_spec->peak("both_pinned_gbps"); p && p->value > 0) both = p->value;
    const auto up = measured_rate(true), down = measured_rate(false);
    const bool scaled = both && up && down;
    if (scaled) hidden = std::clamp(2.0 * (1.0 - 0.5 * (*up + *down) / *both), 0.0, 1.0);
    const double directions = lower_median(seen.round_trip) >= 0.5 ? 0.0 : lower_median(seen.directions_serial);
    if (directions / typical_span >= min_share) {
      // A blocking copy waits for (and on the legacy default stream, blocks) every stream's work: a quarter of the
      // copies' time in such calls serialises the rest with them (set 35: the uploads blocking, the read-backs not).
      const bool blocking = lower_median(seen.blocking_copy_share) >= 0.25;
      Opportunity o = item(blocking ? RemedyId::host_sync : RemedyId::overlap_stages,
                           directions * hidden / typical_span, "serial_direction_copy_ns", directions * count,
                           fmt::format("uploads and read-backs one after the other: {:.1f} ms of {:.1f} ms",
                                       directions * count * 1e-6, span * 1e-6));
      o.name = blocking ? "Issue the copies with cudaMemcpyAsync on the chunks' own streams (not blocking cudaMemcpy), "
                          "so that uploads run beside read-backs"
                        : "Put uploads and read-backs on different streams (pinned memory, no wait between them), so "
                          "the two copy engines run at once";
      o.rationale = fmt::format(
          "In {} the uploads and the read-backs never run side by side: {:.1f} ms of each range's {:.1f} ms "
          "(typically) is the shorter direction running alone, though the GPU's two copy engines move one of each at "
          "once. {}",
          stage->name, directions * 1e-6, per_range_ms,
          blocking ? "A quarter or more of the copies' time is blocking calls (cudaMemcpy): each waits for the work "
                     "queued before it (on the legacy default stream, for every stream) and holds the host until it "
                     "ends, so nothing else is issued meanwhile."
                   : "The copies are asynchronous, yet each waits for the other direction's (one stream for both, or "
                     "events between them).");
      o.assumes = scaled ? fmt::format("the chunks are independent, so one direction's copies hide under the other's, "
                                     "{:.0f}% of them: the device moves {:.0f} GB/s both ways at once (kprof-peaks' "
                                     "both_pinned_gbps) against {:.0f} GB/s one way",
                                     hidden * 100, *both, 0.5 * (*up + *down))
                       : "the chunks are independent, so one direction's copies hide under the other's (all of them: "
                         "the two copy engines at full rate side by side; kprof-peaks has not measured this device's "
                         "two-way rate, both_pinned_gbps)";
      out.push_back(std::move(o));
    }
    // Copies inside the device taking a share of the range: bytes a kernel just wrote moved again (a stencil copying
    // its new grid back each step where swapping the two buffers would do; set 20, half of each range). Dropping them
    // moves fewer bytes: a pointer swap, or the kernel writing where the data is wanted.
    if (const double copies = lower_median(seen.device_copy); copies / typical_span >= min_share) {
      Opportunity o = item(RemedyId::dram_traffic, copies / typical_span, "device_copy_ns", copies * count,
                           fmt::format("device_copies={:.1f} ms of {:.1f} ms", copies * count * 1e-6, span * 1e-6));
      o.name = memsets_in_fills ? "Drop the device-to-device copies and memsets (swap the buffers, write where the "
                                  "data is wanted, clear only what is read)"
                                : "Drop the device-to-device copies (swap the buffers, or write where the data is wanted)";
      o.rationale = fmt::format("In {} {} take {:.1f} ms of each range's {:.1f} ms (typically) with no kernel beside "
                                "them: they move or clear bytes already on the GPU, at DRAM's rate. Swapping the "
                                "pointers of two buffers (ping-pong), having the producing kernel write where the data "
                                "is wanted, or clearing only the part a later kernel reads removes them.",
                                stage->name,
                                memsets_in_fills ? "copies inside the device and memsets" : "copies inside the device",
                                copies * 1e-6, per_range_ms);
      o.assumes = "the copies (memsets) are not needed (a pointer swap, writing in place or clearing only what is read "
                  "replaces them), so their time goes";
      out.push_back(std::move(o));
    }
    // Copies from or to pageable memory at under half the pinned rate (the device's measured host link, else
    // opportunities.pinned_copy_gbps): pinned buffers and asynchronous copies (set 14's chunked upload at 6.5-9.5
    // GB/s, over 90% of its range).
    if (const double p_ns = lower_median(seen.pageable_ns); p_ns >= min_gap && p_ns / typical_span >= min_share) {
      double ns = 0, bytes = 0, pinned_ns = 0;
      for (std::size_t i = 0; i < seen.pageable_ns.size(); ++i)
        ns += seen.pageable_ns[i], bytes += seen.pageable_bytes[i], pinned_ns += seen.pageable_pinned_ns[i];
      const double gbps = ns > 0 ? bytes / ns : 0, pinned = pinned_ns > 0 ? bytes / pinned_ns : 0;
      // Uploads that fill most of the range (a batch, a volume slab, a frame moved to the device before its
      // kernels; sets 28 and 43): the range is the input's trip to the GPU, and the remedy is having the input
      // there before the step needs it: a pinned staging buffer and one asynchronous upload issued ahead (a
      // DataLoader's pin_memory with non_blocking copies on a side stream). Copies back to the host, both
      // directions (set 14's chunks up and down), or copies under that share of the range (set 15's upload beside
      // each step's launches) are the host waiting on each call: asynchronous copies from pinned memory (host_sync).
      // Both of the typical instance (lower medians), as the range's other figures: a first call's upload of its
      // weights does not make uploads of steps that read results back.
      const bool upload = pageable_uploads_lead;
      if (gbps > 0 && pinned > 0 && gbps < 0.5 * pinned) {
        Opportunity o = item(upload ? RemedyId::prefetch : RemedyId::host_sync,
                             p_ns / typical_span * (1.0 - gbps / pinned), "pageable_copy_ns", p_ns * count,
                             fmt::format("pageable_{}={:.1f} ms of {:.1f} ms at {:.1f} GB/s",
                                         upload ? "uploads" : "copies", p_ns * count * 1e-6, span * 1e-6, gbps));
        o.name = upload ? "Upload the input ahead of use from pinned memory (a pinned staging buffer, one "
                          "cudaMemcpyAsync / non_blocking=True issued before the step needs it)"
                        : "Copy from pinned memory asynchronously (pinned host buffers, cudaMemcpyAsync / "
                          "non_blocking=True)";
        o.rationale = fmt::format("In {} copies {} pageable host memory take {:.1f} ms of each range's {:.1f} "
                                  "ms at {:.1f} GB/s: the driver stages them through a pinned buffer while the host "
                                  "waits. From pinned buffers they run at the host link's rate and, asynchronous, "
                                  "beside the kernels{}.",
                                  stage->name, upload ? "from" : "from or to", p_ns * 1e-6, per_range_ms, gbps,
                                  upload ? "; issued ahead (the next batch while this one computes), the input is "
                                           "on the GPU when the step starts"
                                         : "");
        o.assumes = fmt::format(
            "the copies run at {:.0f} GB/s from pinned memory ({}) and nothing else changes{}", pinned,
            !seen.pinned_fallback ? "the device's host link as kprof-peaks measured it"
            : seen.pinned_measured
                ? "the device's host link as kprof-peaks measured it where known, else opportunities.pinned_copy_gbps"
                : "opportunities.pinned_copy_gbps: kprof-peaks has not measured this device's host link",
            upload ? " (an upload issued ahead, hidden under the previous step's work, would save more: not counted)"
                   : "");
        out.push_back(std::move(o));
      }
    }
    // Copies over the host link, at its pinned rate, taking a share of the range with no kernel beside them (an
    // 8-bit frame uploaded widened to float, a whole 64 MiB map read back for a 4 KiB window; set 24): the link is
    // the bound and only fewer bytes move it. How many can go kprof cannot tell; the estimate is the upper bound,
    // the copies' time. Pageable copies get the pinned-memory item above instead.
    // Where the kernels take as long and ran apart from the copies, overlapping the two (the item above) hides most
    // of it without knowing which bytes can go (set 20's upload pipeline serialised by a default-stream memset); so
    // does running the uploads beside the read-backs where the two directions went one after the other (the
    // directions item above): an upper bound on bytes nobody may be able to drop does not lead over either (set 46's
    // video frames, pinned, up and down in turn on one stream, the read-backs 40% of the copies' time: both blind
    // labels "overlap"; set 35's chunked decode).
    if (const double link = lower_median(seen.link_alone), paged = lower_median(seen.pageable_ns),
        serial = lower_median(seen.serial);
        link / typical_span >= min_share && paged < 0.5 * link && serial < 0.5 * link &&
        directions / typical_span < min_share) {
      // Most of the bytes make a round trip (down to the host, the same size back up): the stages hand an
      // intermediate over through host memory, and keeping it on the GPU removes both copies.
      const bool round_trip = lower_median(seen.round_trip) >= 0.5;
      // Many small copies (small_copies()): each pays its call's fixed cost for a few KiB, and fewer, larger copies
      // move the same bytes at the link's rate: the time beyond that goes (set 30's region of interest uploaded one
      // 2 KiB row per cudaMemcpyAsync, 2048 of them at under 2 GB/s).
      if (gpu_typical && small_copies(*gpu_typical, t)) {
        const RangeTime& g = *gpu_typical;
        const double at_rate = g.link_copy_bytes / pinned_rate(true);  // bytes / (GB/s) = ns
        Opportunity o = item(RemedyId::launch_overhead, std::max(0.0, link - at_rate) / typical_span, "link_copy_ns",
                             link * count,
                             fmt::format("link_copies={} of {:.1f} KiB each, {:.1f} ms of {:.1f} ms", g.link_copies,
                                         g.link_copy_bytes / g.link_copies / 1024.0, link * count * 1e-6, span * 1e-6));
        o.name = "Copy in a few large transfers, not many small ones (cudaMemcpy2DAsync for a strided region, or pack "
                 "the pieces into one buffer and copy it once)";
        o.rationale = fmt::format(
            "In {} {} copies between host and device of {:.1f} KiB each take {:.2f} ms of each range's {:.2f} ms "
            "(typically) with no kernel beside them, at {:.1f} GB/s: each copy pays its call's fixed cost (a few "
            "microseconds) for a few KiB. One copy of a strided region (cudaMemcpy2DAsync) or of a packed buffer moves "
            "the same bytes at the link's rate.",
            stage->name, g.link_copies, g.link_copy_bytes / g.link_copies / 1024.0, link * 1e-6, per_range_ms,
            link > 0 ? g.link_copy_bytes / link : 0.0);
        o.assumes = fmt::format("the copies' bytes move at {:.0f} GB/s in a few large copies", pinned_rate(true));
        out.push_back(std::move(o));
      } else {
        Opportunity o = item(round_trip ? RemedyId::fuse_stages : RemedyId::dram_traffic, link / typical_span,
                             "link_copy_ns", link * count,
                             fmt::format("link_copies={:.1f} ms of {:.1f} ms", link * count * 1e-6, span * 1e-6));
        o.name = round_trip ? "Keep the intermediate on the GPU (hand it from one stage's kernel to the next on the "
                              "device, not down to the host and back)"
                            : "Move fewer bytes over the host link (copy only what is read, in the narrowest type; "
                              "keep data on the GPU between stages, and upload data that does not change once)";
        o.rationale =
            fmt::format("In {} copies between host and device take {:.1f} ms of each range's {:.1f} ms (typically) "
                        "with no kernel beside them, from pinned memory at the link's rate: the host link bounds the "
                        "range. ",
                        stage->name, link * 1e-6, per_range_ms) +
            (round_trip ? "Most of its bytes go down to the host and come back up at the same size: an intermediate "
                          "handed from one stage to the next through host memory. Left on the GPU (the next stage's "
                          "kernel reading the buffer the first wrote, or both in one kernel), neither copy is needed."
                        : "Only fewer bytes make it faster: copy the part the other side reads, in the narrowest "
                          "type that holds it, keep intermediates on the GPU, and upload a buffer whose contents do "
                          "not change (a calibration map, weights) once rather than before every use: the copy "
                          "records carry no addresses, so kprof cannot tell a re-upload of the same bytes from new "
                          "data of one size.");
        o.assumes = round_trip
                        ? "the host does nothing with the data between the copies (or that work moves to the GPU), so "
                          "both copies go"
                        : "an upper bound: every byte copied goes (how many the other side needs kprof cannot tell)";
        out.push_back(std::move(o));
      }
    }
    // Gaps between the range's launches that are neither the host's work nor its blocking calls: the GPU waiting for
    // the host to issue the next launch (a Python loop of small ops, a synchronisation around every op). Over the
    // typical instance's GPU span, less each launch's own cost; a graph (or one kernel for the loop) removes them, or,
    // where at least half of them follow a wait for the GPU that drained the queue, dropping the waits.
    // analyze_run drops this item where the program's launch-gap item names the stage, or a kernel of the stage
    // owns the gaps (its own cause is launch overhead).
    if (gpu_typical && gpu_typical->launches >= 2 && gpu_typical->span_ns > 0) {
      const RangeTime& g = *gpu_typical;
      // A CUDA graph cannot span a wait of the host for the GPU: where the host waits between the range's launches
      // (a read-back deciding the next step), dropping or deferring those waits comes first, and only then can the
      // loop be captured (blind labels of per-step .item()/bool() checks, sets 21, 25 and 29: host_sync).
      const bool waits = g.wait_gaps_ns >= 0.5 * g.launch_gaps_ns || g.waits_between >= 1;
      // The waits dropped, the host queues its launches while the GPU works: the launch calls' own cost stays idle
      // only where it exceeds the GPU's busy time (a loop the host cannot keep ahead of).
      const double busy = std::max(0.0, g.span_ns - g.idle_ns);
      // The gaps of a queued instance's host pacing (paced_gaps_ns) are beyond the GPU's span of its back-to-back
      // kernels, which holds the launches' own cost on the GPU already: a graph removes all of them.
      const double launch_cost = g.launches * launch_floor_ns;
      // Without waits the remedy is a graph (or one kernel for the loop): its nodes need no host call each, and cost
      // the GPU about graph_node_ns apiece, not the launch call's time (the bundled streams program's 2000 tiny
      // launches, each call as long as the gap after it: the call's cost left nothing for the graph to save).
      const double node_cost = g.launches * t.param("opportunities.graph_node_ns");
      const double gaps = g.paced_gaps_ns + std::max(0.0, g.launch_gaps_ns - g.paced_gaps_ns -
                                                              (waits ? std::max(0.0, launch_cost - busy) : node_cost));
      const double saved = gaps / g.span_ns;
      if (saved >= min_share) {
        // Kernels that already run as a graph's nodes: the gaps are between the graph's launches, so "capture them in
        // a graph" cannot apply; what is left is the host's work between two launches of it (set 22 captures and
        // instantiates its graph again every step): host work.
        double nodes = 0, all = 0;
        for (const auto& k : stage->kernels) {
          nodes += static_cast<double>(k.graph_node_launches);
          all += static_cast<double>(k.launch_count());
        }
        const bool graphed = !waits && all > 0 && 2.0 * nodes > all;  // most of the stage's kernels are graph nodes
        Opportunity o = make(waits     ? RemedyId::host_sync
                             : graphed ? RemedyId::host_work
                                       : RemedyId::launch_overhead,
                             "stage");
        o.est_gain_pct = std::min(t.param("diagnosis.max_gain_pct"), saved * 100.0);
        // Of the typical instance's GPU span, once per instance, as the range's other items count theirs (the typical
        // span times the instances): a first instance's longer span (one-off waits between its launches: modules
        // loading, plans built) is not gaps the remedy removes in every range (set 25's FFT per new clip length: its
        // host-work item, worth more of each range, ranked below this one on the first instance's span).
        o.run_share_pct = std::min(100.0, std::min(gpu_spans, g.span_ns * count) / span_ns * 100.0);
        o.run_gain_pct = o.est_gain_pct * o.run_share_pct / 100.0;
        o.trigger_metric = "range_gap_ns";
        o.trigger_value = gaps;
        o.trigger = fmt::format("{}: launch_gaps={:.2f} ms of {:.2f} ms, launches={}, host_waits={} (typical of {} range{})",
                                stage->name, gaps * 1e-6, g.span_ns * 1e-6, g.launches, g.host_waits, g.instances,
                                g.instances == 1 ? "" : "s");
        for (const auto& k : stage->kernels) o.kernels.push_back(stage_kernel_label(*stage, k));
        if (graphed)
          o.name = "Relaunch the graph with nothing rebuilt between launches (instantiate once, update with "
                   "cudaGraphExecUpdate), or capture more of the loop in one graph";
        // The gaps are mostly the host's launch rate, not the drains after its waits: the waits go first because a
        // graph cannot span them, then the launches.
        const bool then_graph = waits && g.wait_gaps_ns < 0.5 * g.launch_gaps_ns;
        if (then_graph)
          o.name = "Remove the host's waits between the launches (defer or drop the read-backs), then capture the "
                   "loop in a CUDA graph";
        o.rationale = fmt::format("In {} the GPU waits {:.2f} ms of each range's {:.2f} ms GPU span (typically) between "
                                  "its {} launches for the host to issue the next{}. ",
                                  stage->name, gaps * 1e-6, g.span_ns * 1e-6, g.launches,
                                  waits ? fmt::format(", after {} waits for the GPU that drain its queue", g.host_waits)
                                        : std::string()) +
                      (g.paced_gaps_ns > 0
                           ? fmt::format("In the typical instance its kernels queued behind earlier work and ran back to "
                                         "back, but the host took {:.2f} ms to issue what the GPU ran in {:.2f} ms: run "
                                         "on its own (a loop of this call), the GPU waits that {:.2f} ms. ",
                                         g.span_ns * 1e-6,
                                         (g.span_ns - g.paced_gaps_ns) * 1e-6, g.paced_gaps_ns * 1e-6)
                           : std::string()) +
                      (then_graph ? fmt::format("{} of the waits come between launches: a CUDA graph, which would "
                                                "remove the launch gaps, cannot span them, so they go first. ",
                                                g.waits_between)
                                  : std::string()) +
                      (graphed ? std::string("Its kernels already run as nodes of a CUDA graph: the gaps lie between the "
                                             "graph's launches, where the host works (capture, instantiation); each "
                                             "launch of an instantiated graph costs a few microseconds.")
                               : o.rationale);
        o.assumes = waits ? fmt::format("the waits are dropped or moved out of the loop, so the host queues each "
                                        "launch ({:.1f} us) while the GPU works: the gaps go, less the launch calls' "
                                        "time beyond the GPU's busy time",
                                        launch_floor_ns * 1e-3)
                          : fmt::format("the loop runs as one graph: the gaps go, less {:.1f} us per kernel node on "
                                        "the GPU (no launch call per kernel)",
                                        t.param("opportunities.graph_node_ns") * 1e-3);
        out.push_back(std::move(o));
      }
    }
    // The host polling the GPU with sleeps (or work) between its queries: each finish waits for the next query.
    if (const double poll = lower_median(seen.polled); poll >= min_gap && poll / typical_span >= min_share) {
      Opportunity o = item(RemedyId::spin_wait, poll / typical_span, "poll_wait_ns", poll * count,
                           fmt::format("poll_wait={:.1f} ms of {:.1f} ms", poll * count * 1e-6, span * 1e-6));
      o.name = "Stop polling with sleeps (wait on an event with blocking sync, or queue the next work behind the "
               "current so the GPU never waits for the host to notice)";
      o.rationale = fmt::format(
          "In {} the host asks whether the GPU is done (cudaStreamQuery or cudaEventQuery) and, told no, sleeps or "
          "works until its next query: the GPU finishes in between and idles {:.2f} ms of each range's {:.2f} ms "
          "(typically) until the host notices. A blocking wait (cudaEventSynchronize on an event created with "
          "cudaEventBlockingSync, or a callback) returns when the work ends; work that does not depend on the result can "
          "be queued at once.",
          stage->name, poll * 1e-6, per_range_ms);
      o.assumes = "the GPU's idle time from each finish to the next query goes; the host still waits for the result";
      out.push_back(std::move(o));
    }
    // The host computing, or held in blocking calls, with the GPU idle: the larger of the two.
    const double work = lower_median(seen.work), blocked = lower_median(seen.blocked);
    // Where half or more of the host's work sits inside nested NVTX ranges of one label that launched nothing, the
    // program (or its framework) has named it: say so; where the label names compilation (JAX's XlaCompile ranges
    // around a jax.jit built anew for each batch; set 37), the change is to compile once.
    std::string annotated;
    double annotated_ns = 0;
    for (const auto& [label, per_instance] : seen.annotated) {
      std::vector<double> padded = per_instance;
      padded.resize(std::max(padded.size(), seen.work.size()), 0.0);
      if (const double ns = lower_median(padded); work > 0 && ns >= 0.5 * work && ns > annotated_ns)
        annotated = label, annotated_ns = ns;
    }
    annotated_ns = std::min(annotated_ns, work);
    // Compilation: "compile" (not "compiled": PyTorch's CompiledFunction runs compiled code), "compiling",
    // "compilation".
    std::string lower = annotated;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
    bool compiles = lower.find("compilation") != std::string::npos || lower.find("compiling") != std::string::npos;
    for (auto at = lower.find("compile"); at != std::string::npos && !compiles; at = lower.find("compile", at + 1))
      compiles = at + 7 >= lower.size() || lower[at + 7] != 'd';
    // The host held in a wait while the stream runs host functions it enqueued (a cudaLaunchHostFunc per step: set
    // 24's energy log): the GPU idles for the callbacks, host work on the stream's path, not a wait to drop. Not where
    // the program's annotations say the work is compilation (XLA enqueues a host function per execution; its idle
    // time is the compilation around it).
    const bool callbacks = lower_median(seen.host_funcs) >= 1 && !compiles;
    const bool computes = work >= blocked || callbacks;
    // Where the waits lead, allocating once and synchronising once take the host's other calls out of the loop too:
    // the estimate is its time in all of them.
    const double typical = computes ? std::max(work, callbacks ? blocked : 0.0) : lower_median(seen.in_calls),
                 total = typical * count;
    // The host's computing counts in stretches of min_gap or more; its time held in blocking calls counts whatever
    // their length, and its share of the span is the test (set 28's edge histograms with CUPTI's counters: 0.98 of
    // each 1.63 ms range held in synchronising calls, 60%, had no item under a 1 ms floor that the same range's
    // 1.15 ms passed with Nsight Compute's; both blind labels: the syncs).
    if ((computes && typical < min_gap) || typical / typical_span < min_share) continue;
    Opportunity o = item(computes ? RemedyId::host_work : RemedyId::host_sync, typical / typical_span,
                         computes ? "host_work_ns" : "host_blocked_ns", total,
                         fmt::format("{}={:.1f} ms of {:.1f} ms", computes ? "host_work" : "host_blocked",
                                     total * 1e-6, span * 1e-6));
    if (computes && compiles)
      o.name = "Compile once, outside the loop (build the jitted or compiled function once; keep its shapes, dtypes "
               "and static arguments fixed so that its cache hits)";

    o.rationale =
        computes
            ? (callbacks ? fmt::format("In {} the GPU idles {:.1f} ms of each range's {:.1f} ms (typically) while "
                                       "the stream runs host functions it holds its next work for (cudaLaunchHostFunc, "
                                       "{:.0f} a range): record an event instead and let a host thread wait on it, or "
                                       "do the work on the GPU. ",
                                       stage->name, typical * 1e-6, per_range_ms, lower_median(seen.host_funcs))
                         : fmt::format("In {} the GPU idles {:.1f} ms of each range's {:.1f} ms (typically) while the "
                                       "host works {}. {}",
                                       stage->name, typical * 1e-6, per_range_ms,
                                       2.0 * lower_median(seen.driver) >= work
                                           ? "in CUDA calls that do not wait for the GPU (allocating or pinning "
                                             "buffers, building graphs or library plans, loading modules): made once, "
                                             "ahead of the loop, they leave its path" + pool_trim(seen)
                                           : "outside any CUDA call",
                                       annotated.empty()
                                           ? std::string()
                                           : fmt::format("{:.1f} ms of it is inside NVTX ranges named \"{}\" (the "
                                                         "program's or its framework's), which launch nothing{}. ",
                                                         annotated_ns * 1e-6, annotated,
                                                         compiles ? ": compilation, repeated in every range" : ""))) +
                  o.rationale
            : fmt::format("In {} the GPU idles {:.1f} ms of each range's {:.1f} ms (typically) while the host is held "
                          "in CUDA calls, most of them waiting for the GPU (frees and allocations behind queued work, "
                          "blocking or pageable copies, synchronisations), the rest allocating. Allocate once (or with cudaMallocAsync), copy from "
                          "pinned memory asynchronously, and synchronise once: the launches then queue ahead of the "
                          "GPU.",
                          stage->name, typical * 1e-6, per_range_ms);
    if (!computes)
      o.assumes = "the blocking calls' time leaves the range (a copy still takes its time at the pinned rate, on the "
                  "copy engine beside the kernels)";
    out.push_back(std::move(o));
  }
  std::sort(out.begin(), out.end(),
            [](const Opportunity& a, const Opportunity& b) { return a.run_gain_pct > b.run_gain_pct; });
  return out;
}

}  // namespace kprof::analyze
