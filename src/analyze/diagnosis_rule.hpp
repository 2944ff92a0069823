// What a diagnosis rule is: a detect function, the causes it may name (each with its remedy and the plain bounds it
// explains) and the thresholds it reads. Rules are rows of one table (analyze/rule_table.cpp); find_causes runs
// them in table order, so a rule may defer to a cause an earlier row found.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/cause_ids.hpp"
#include "analyze/diagnosis.hpp"
#include "analyze/thresholds.hpp"
#include "model/analysis.hpp"
#include "model/device_spec.hpp"
#include "model/profile.hpp"

namespace kprof::analyze {

// As many stall reasons as a full breakdown holds: with fewer collected, their shares say little
// (RuleContext::waiting_total then estimates the total).
inline constexpr std::size_t kFullStallBreakdown = 10;

struct RuleContext;

// Whether `text` matches the case-insensitive regular expression of the "*_names" threshold `key`
// ("diagnosis.library_kernel_names"); false without the key or with a malformed pattern.
bool names_match(const std::string& text, const Thresholds& t, const std::string& key);

// The threads of a block smaller than a warp (each of its warps runs only that many of its 32 lanes), or nothing:
// what the occupancy rule names and the divergence rule leaves alone.
std::optional<double> sub_warp_block(const CanonicalMetrics& m);

// Whether a kernel's name is a library's (diagnosis.library_kernel_names: cuBLAS nvjet, CUTLASS, cuDNN, flash
// attention); false without the key or with a malformed pattern.
bool library_kernel_name(const std::string& kernel, const std::string& signature, const Thresholds& t);

// A cause as the rules and the ranking see it; find_causes hands it on as a model Cause, its ids as their names.
struct Finding {
  CauseId id;
  std::string label;
  std::string evidence;
  std::string trigger;
  RemedyId remedy;
  double gain_pct = 0;
  bool specific = false;
  // Bounds the table says this cause explains but this finding does not (uncoalesced stores do not starve the
  // tensor pipe: only loads feed its operands).
  std::vector<CauseId> does_not_explain = {};
  // A plain bound on a unit near its roof whose own remedy moves the work off that unit (the host link, for a kernel
  // reading host memory: keep the data in device memory), so its gain is not the unit's room: the room left on the
  // unit, in percent. Like a saturated pipe or DRAM, it caps the specific fixes that do not explain it and binds the
  // kernel (cause_ranking.cpp).
  std::optional<double> unit_room_pct = std::nullopt;
  bool accounts_for(CauseId bound) const;
};

// One cause a rule may name, and what follows from it.
struct CauseSpec {
  CauseId id;
  // A specific cause names a fix (access pattern, conflicts, ...); the others are plain bounds (a unit busy, or
  // latency) that a specific cause may explain.
  bool specific;
  RemedyId remedy;                     // what to try; a plain bound at its roof points to none instead
  std::optional<BottleneckKind> kind;  // what the bottleneck is called when this cause leads
  // A plain bound naming one saturating unit (DRAM or a pipe): a specific fix it does not explain gains at most
  // that unit's headroom.
  bool saturates_unit = false;
  // The plain bounds this specific cause accounts for: fixing it is how to approach their roof.
  std::vector<CauseId> explains = {};
  bool explains_every_bound = false;  // launch overhead: the counters of a tiny kernel describe no roof
  // It names the kernel whatever its estimate: launch overhead (its gain is idle time outside the kernel) and an
  // undiagnosed dominant stall (no remedy, but the generic one it replaces would be wrong).
  bool leads_without_gain = false;
};

struct Rule {
  std::string_view name;
  void (*detect)(RuleContext&);
  std::vector<CauseSpec> causes;
  // Every thresholds.toml key it reads ("diagnosis.bank_conflict_share"); reading another one throws.
  std::vector<std::string_view> thresholds;
};

// What a rule reads (one kernel group's counters, facts and placement) and where it writes (the causes so far).
struct RuleContext {
  const CanonicalMetrics& m;
  const GroupFacts& g;
  const DeclaredWork& declared;
  const DeviceSpec* spec;
  const std::optional<RooflinePlacement>& roof;
  double headroom;  // 0..1
  const Thresholds& t;
  const Rule* rule = nullptr;  // the rule running
  std::vector<Finding> out;

  // diagnosis.<key> / a key of any table; the running rule must declare it.
  double p(std::string_view key) const;
  double param(std::string_view full_key) const;
  double busy() const;  // classify.busy_pct

  // The busiest of the SM and memory units (Nsight Compute's speed-of-light pair), in %.
  double sol_max() const;
  // DRAM throughput against the measured copy bandwidth when the device has one, else against Nsight Compute's
  // peak, in %.
  double dram_pct() const;
  // Busiest memory unit seen, in %.
  double memory_max() const;
  bool latency_bound() const;
  // Warp cycles waiting per issued instruction, all reasons: their sum, or, with fewer than kFullStallBreakdown
  // reasons collected, at least what Little's law gives (resident warps per scheduler over instructions issued per
  // cycle, minus one).
  double waiting_total() const;
  // The waiting at block barriers or asleep (__nanosleep): warps waiting on other warps, not on a unit of their own.
  double waiting_on_other_warps() const { return m.waiting_stalls({"barrier", "sleeping"}); }
  // A library kernel that already drives the tensor cores (a name in diagnosis.library_kernel_names, with tensor
  // math): "use/feed the tensor cores" cannot apply; its remedy is the call's shape, fusion or precision
  // (library_tuning). The rules that call it declare that key.
  bool library_tensor_kernel() const;
  // A kernel of matrix math (tensor FLOPs or IMMA; not DMMA, read off the FP64 pipe) whose tensor pipe is busy from
  // pipe_bound_pct up to saturation, right of the roofline's ridge and short of its roof, with barrier waits at least
  // dominant_stall_share of the waiting: the MMA pipeline's waits (a warpgroup MMA's WARPGROUP.DEPBAR samples as a
  // barrier stall on Hopper; a tile loop's barrier before its MMAs), not uneven work in the block. The rules that call
  // it declare its keys.
  bool mma_pipeline_waits() const;
  // Bytes the L1/TEX unit moves per SM cycle: global and local bytes through its tag stage and shared-memory
  // wavefronts (128 B at most each), shared atomics' where they were counted. None without those counts, the
  // device's SM count and a clock, or in a kernel of tensor math (TMA and warpgroup-MMA operands reach shared memory
  // past these counters). None either where global requests spread over uncoalesced_sectors_per_request sectors or
  // more: the unit is then busy with those sectors' lookups, not with other MIO instructions.
  std::optional<double> l1_data_per_clk() const;
  // Warps waiting mostly (dominant_stall_share or more of the waiting) for room in the texture queue: texture
  // fetches keep the L1/TEX unit busy and move bytes no load/store or shared-memory count holds, so a low
  // l1_data_per_clk does not mean other MIO instructions there (set 38's point-sampled bicubic through tex2D).
  bool texture_waits() const;
  // The finding for an L1/TEX unit busy `l1`% while it moves `per_clk` bytes per SM cycle (MIO instructions, not
  // data), as `id` (mio_queue from the dominant-stall rule, l1_bandwidth from the plain bounds where that rule did not
  // name it), with the remedy mio_pressure.
  Finding& add_mio_instructions(CauseId id, double l1, double per_clk);

  // Records a cause of the running rule with its table remedy and kind; `gain` is a fraction of the kernel's time.
  // The returned cause may be amended where one finding differs from its row (a bound at its roof has no remedy).
  Finding& add(CauseId id, std::string label, std::string evidence, double gain, std::string trigger);
  bool found(CauseId id) const;
};

inline double val(const std::optional<double>& v) { return v.value_or(0); }
std::string pct(double fraction);  // 0.25 → "25%"

// The detect functions of the rows of analyze/rule_table.cpp, by the file that holds them.
// rules_launch.cpp: how the kernel is launched (launches, waves, grid, occupancy limits).
void detect_launch_overhead(RuleContext& r);
void detect_page_migration(RuleContext& r);
void detect_tail_wave(RuleContext& r);
void detect_sm_imbalance(RuleContext& r);
void detect_small_grid(RuleContext& r);
void detect_occupancy_limit(RuleContext& r);
// rules_memory_access.cpp: how the kernel touches memory.
void detect_atomic_contention(RuleContext& r);
void detect_bank_conflicts(RuleContext& r);
void detect_access_pattern(RuleContext& r);
void detect_local_memory(RuleContext& r);
// rules_compute.cpp: how the kernel uses its pipes.
void detect_divergence(RuleContext& r);
void detect_matmul_off_tensor(RuleContext& r);
void detect_tensor_underfed(RuleContext& r);
// rules_stalls.cpp: the stall reason that dominates the warps' waiting time.
void detect_dominant_stall(RuleContext& r);
// rules_bounds.cpp: the plain bounds (a pipe, DRAM, L2, L1, latency).
void detect_plain_bounds(RuleContext& r);

}  // namespace kprof::analyze
