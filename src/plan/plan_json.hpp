// JSON for the plan types (what `kprof-kernels list` / `describe` print and `kprof` reads back), and the checks
// that make a plan or a parameter set usable.
#pragma once
#include <optional>
#include <stdexcept>
#include <vector>

#include "model/json_support.hpp"
#include "model/params.hpp"
#include "plan/plan_types.hpp"

namespace kprof::plan {

NLOHMANN_JSON_SERIALIZE_ENUM(PlanKind, {{PlanKind::single, "single"}, {PlanKind::pipeline, "pipeline"},
                                        {PlanKind::concurrent, "concurrent"}})
KPROF_JSON_DECLARE(StageSpec)
KPROF_JSON_DECLARE(KernelPlan)
KPROF_JSON_DECLARE(ParamSpec)
KPROF_JSON_DECLARE(VersionInfo)
KPROF_JSON_DECLARE(PackageInfo)

// Thrown for a plan or parameter problem the user can fix (unknown name, bad value); the CLI maps it to exit 2.
class PlanError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses `{"packages":[...]}` (kprof-kernels list) or a bare array. Throws PlanError on malformed input.
std::vector<PackageInfo> packages_from_json(const std::string& text);
std::string packages_to_json(const std::vector<PackageInfo>& pkgs);
// Parses a plan (kprof-kernels describe) and validates it. Throws PlanError.
KernelPlan plan_from_json(const std::string& text);

const PackageInfo* find_package(const std::vector<PackageInfo>& pkgs, const std::string& name);
// The named version, or the latest when `name` is empty; nullptr when absent.
const VersionInfo* find_version(const PackageInfo& pkg, const std::string& name);

// The package's parameters with the user's values over the defaults. Unknown names, negative or zero sizes and a
// dtype other than the package's throw PlanError (the message lists the valid names).
ProblemParams resolve_params(const PackageInfo& pkg, const ProblemParams& given);

// Structural checks: at least one stage, unique non-empty stage names, a single plan has one stage, concurrent
// stages name a stream >= 0, tile configs have positive values. Throws PlanError.
void validate_plan(const KernelPlan& plan);

// One line per package for `kprof list`: "gemm  v1 v2 v3*  m=4096 n=4096 k=4096  bf16  description".
std::string render_package_list(const std::vector<PackageInfo>& pkgs);

}  // namespace kprof::plan
