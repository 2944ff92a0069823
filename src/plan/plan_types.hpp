// What a kernel package declares: its versions and parameters (PackageInfo) and, for one problem, the plan it runs
// (KernelPlan → StageSpec). Plain C++17 with no JSON, so CUDA translation units (kernels/) can include it too;
// JSON lives in plan_json.hpp.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kprof::plan {

// One point of a stage's tile space: named integers ("bm" → 128, "bn" → 64).
using TileConfig = std::map<std::string, int>;

// "bm128_bn64" (keys in map order); "default" for an empty config. Used in file names and progress lines.
std::string config_label(const TileConfig& c);

// single: one kernel. pipeline: stages run one after another, each may read what the previous wrote.
// concurrent: independent stages, each on its own stream (StageSpec::stream), meant to overlap.
enum class PlanKind { single, pipeline, concurrent };
const char* plan_kind_name(PlanKind k);  // "single", "pipeline", "concurrent"

struct StageSpec {
  std::string name;              // also the NVTX range the stage runs in
  double flops = 0;              // declared work per execution of the stage
  double min_bytes = 0;          // compulsory DRAM traffic per execution (inputs read once, outputs written once)
  std::string precision;         // roof to use: "bf16", "fp32", ...
  int stream = 0;                // concurrent plans: index of the stream the stage runs on
  std::vector<TileConfig> tile_space;  // empty: nothing to tune; the first entry is the default config
};

struct KernelPlan {
  std::string package;
  std::string version;
  PlanKind kind = PlanKind::single;
  std::map<std::string, std::int64_t> params;  // resolved (defaults filled in)
  std::string dtype;
  std::vector<StageSpec> stages;
};

struct ParamSpec {
  std::string name;
  std::int64_t default_value = 0;
  std::string description;
};

struct VersionInfo {
  std::string name;         // "v2"
  std::string description;  // one line
};

struct PackageInfo {
  std::string name;                   // "gemm"
  std::string description;
  std::vector<VersionInfo> versions;  // oldest first; the last is the latest
  std::vector<ParamSpec> params;
  std::string dtype;                  // "bf16"
};

}  // namespace kprof::plan
