// The benchmark table's figures: throughput from the plan's declared work, the roofline lower bound of the plan's
// time from the device peaks, and each version judged against the previous one with the rank test of compare.hpp.
// Pure: no I/O, so bench tables are tested with synthetic samples (tests/test_bench_table.cpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analyze/thresholds.hpp"
#include "model/bench_table.hpp"
#include "model/device_spec.hpp"

namespace kprof::analyze {

// The least time the plan can take on `device` (milliseconds), from each stage's declared FLOPs and minimum bytes:
// a stage needs max(FLOPs / precision peak, bytes / DRAM bandwidth) (its roofline placement, roofline.hpp).
// single and pipeline plans run their stages one after another: the stage bounds add up. concurrent stages
// share the GPU: max(sum of compute times, sum of memory times).
struct PlanBound {
  double ms = 0;
  std::string bound_by;             // "compute", "memory", or "mixed" when sequential stages differ
  std::vector<std::string> peaks;   // every peak used: "bf16_tflops 796 (measured: kprof peaks ...)"
};
// nullopt with `gap` set when a peak the plan needs is missing or nothing is declared.
std::optional<PlanBound> plan_bound(const std::string& plan_kind, const std::vector<BenchStage>& stages,
                                    const DeviceSpec& device, std::string* gap = nullptr);

// One row per run, in input order (the driver gives per package, per point, versions oldest first). Each timed
// version is compared with the previous timed version at the same package and parameters: verdict "same" when
// the two-sided Mann-Whitney U p-value is >= compare.alpha (both sides >= compare.min_samples runs), else the
// relative change rule of compare_values. `device` may be null: no roof columns then.
BenchTable build_bench_table(const std::vector<BenchRun>& runs, const DeviceSpec* device, const Thresholds& t);

}  // namespace kprof::analyze
