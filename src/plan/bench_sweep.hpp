// The parameter sweep bench/bench_all runs (bench/sweeps.toml): per package, the timed runs per version and the
// problem points, each written as the parameters that differ from the package's defaults.
//
//   schema = "kprof.bench.sweeps/1"
//   runs = 20                                   # default for every package
//   [packages.mla]
//   runs = 10                                   # this package's own count
//   points = [ { b = 32, s = 16, t = 4096 }, { b = 8 } ]
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/params.hpp"
#include "plan/plan_types.hpp"

namespace kprof::plan {

struct PackageSweep {
  std::optional<int> runs;               // timed runs per version and point; nullopt = the sweep's default
  std::vector<ProblemParams> points;     // as written; an empty point means the package's defaults
};

struct Sweep {
  int runs = 20;
  std::map<std::string, PackageSweep> packages;
  std::string origin;                    // file it came from
};

// Throws ParseError (exit 3) naming `origin` and the line: unknown keys, non-integer values, runs < 1.
Sweep parse_sweep(const std::string& toml_text, const std::string& origin);
Sweep load_sweep(const std::filesystem::path& file);

// A point given on the command line: "m=1024,n=512" (commas or spaces between pairs). Throws PlanError.
ProblemParams parse_point(const std::string& text);

// "m=1024 n=512 k=64": the point's parameters in the package's declared order; "defaults" for an empty point.
std::string point_label(const ProblemParams& point, const PackageInfo& pkg);

}  // namespace kprof::plan
